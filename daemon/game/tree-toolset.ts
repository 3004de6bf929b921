/**
 * The UI and world tools of the bridge toolset as describe_toolset shows them (their logic:
 * tools/ui-tools.ts). Reads are safe to re-send; a click or a value is not.
 */
import type { ArgType, BridgeToolName, GameTool, ToolArg } from './types.js';

const arg = (name: string, type: ArgType, description: string, required = false, def?: string): ToolArg =>
  def === undefined ? { name, type, description, required } : { name, type, description, required, default: def };

type Make = (name: BridgeToolName, description: string, args: ToolArg[], readOnly: boolean) => GameTool;

const needs = (cap: string) => ` Needs the game's "${cap}" capability (GET /${cap}).`;
const ref = (example: string) => arg('ref', 'string', `The node's ref, as snapshot shows it ([ref=${example}]).`, true);
const timeout = arg('timeoutMs', 'integer', "Give up after this many milliseconds. Default: the bridge's --timeout.");
const objectQuery = [
  arg('type', 'string', "Only objects of this type, e.g. 'crate'."),
  arg('tag', 'string', 'Only objects with this tag.'),
  arg('name', 'string', 'Only objects whose name or id contains this (case-insensitive).'),
  arg(
    'near',
    'object',
    'Only objects near a reference, closest first, each with its distance: {"ref": "hero", "within": 50} or {"pos": [x, y], "within": 50}. Resolved inside one world snapshot.',
  ),
  arg('limit', 'integer', 'At most this many matches (1-200).', false, '20'),
];

export function treeTools(t: Make): GameTool[] {
  const click = (name: 'click' | 'activate') =>
    t(
      name,
      'Press a UI node as a player would (ui.activate), by the ref snapshot showed. Refused before anything is sent when the latest snapshot lacks it, hides it or disables it (naming similar nodes); otherwise confirmed, with the state and the ui revision after.' +
        (name === 'activate' ? ' The same as click.' : '') +
        needs('ui'),
      [ref('start')],
      false,
    );
  return [
    t(
      'snapshot',
      'What is on screen as a compact text with refs (plus the same as JSON): the UI tree, the world tree, or both. Hidden nodes are left out unless asked for; `since` a revision you have answers one line when nothing changed.' +
        needs('ui'),
      [
        arg('tree', 'string', 'ui, world, or both.', false, 'ui'),
        arg('since', 'integer', 'A revision you already have: unchanged, the answer is one line.'),
        arg('role', 'string', "Only nodes of this role, e.g. 'button' (listed flat)."),
        arg('name', 'string', 'Only nodes whose name contains this (case-insensitive, listed flat).'),
        arg('includeHidden', 'boolean', 'Also list hidden nodes (not in the player view).', false, 'false'),
      ],
      true,
    ),
    click('click'),
    click('activate'),
    t(
      'set_value',
      "Set a UI node's value (ui.setValue): a text box's text, a slider's number (out of its range is refused), a checkbox's true/false, a combobox's option. Refused like click before anything is sent." +
        needs('ui'),
      [ref('vol'), arg('value', 'any', 'The value: text, a number, true/false, or an option name.', true)],
      false,
    ),
    t(
      'wait_for_node',
      'Read fresh UI snapshots until a node (by ref, or by role and/or name) is present, visible, hidden, enabled or gone; returns the node and the snapshot it held in.' +
        needs('ui'),
      [
        arg('ref', 'string', 'The node by its ref.'),
        arg('role', 'string', 'Or by role.'),
        arg('name', 'string', 'Or by a part of its name (case-insensitive).'),
        arg('state', 'string', 'present, visible, hidden (or absent), enabled, or gone.', true),
        timeout,
      ],
      true,
    ),
    t(
      'find_objects',
      'Find objects in the world tree by type, tag, name, or nearness to an object or a position; each match with its distance and the snapshot it was measured in.' +
        needs('world'),
      objectQuery,
      true,
    ),
    t(
      'wait_for_object',
      'Look at fresh world snapshots until find_objects would find something; returns the matches and the snapshot.' +
        needs('world'),
      [...objectQuery, timeout],
      true,
    ),
  ];
}
