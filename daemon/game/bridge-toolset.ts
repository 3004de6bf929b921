/** The built-in `bridge` toolset as a manifest toolset: the contract-level tools every conformant game supports (docs/CONTRACT.md). */
import { playTools } from './play-toolset.js';
import { testTools } from './test-toolset.js';
import {
  BRIDGE_TOOLSET,
  type ArgType,
  type BridgeToolName,
  type GameTool,
  type ToolArg,
  type Toolset,
} from './types.js';

const arg = (name: string, type: ArgType, description: string, required = false, def?: string): ToolArg =>
  def === undefined ? { name, type, description, required } : { name, type, description, required, default: def };

/** The contract-level tools every conformant game supports (docs/CONTRACT.md). */
export function bridgeToolset(): Toolset {
  const t = (name: BridgeToolName, description: string, args: ToolArg[], readOnly: boolean): GameTool => ({
    name,
    description,
    args,
    readOnly,
    toolset: BRIDGE_TOOLSET,
  });
  return {
    name: BRIDGE_TOOLSET,
    description:
      'Contract-level tools that work on every game: read the state, wait for a condition, send any command by name, check health, take a screenshot; ' +
      'and, on games that declare the "input"/"clock" capabilities, hold inputs and control the clock (press, hold, release, pause, resume, step); ' +
      'and keep what was found as a test: assert, save_test, run_test.',
    tools: [
      t(
        'get_state',
        "Read the game's current state snapshot (GET /state). Give `path` to read one part of it; a large snapshot is cut, so prefer a path.",
        [
          arg(
            'path',
            'string',
            "Dotted path into the snapshot, e.g. 'ui.screen' or 'game.score'; list items by index ('ui.elements.0'). Omit for the whole snapshot.",
          ),
        ],
        true,
      ),
      t(
        'wait_for',
        'Re-read fresh snapshots until the value at `path` meets one condition, then return {matched, value, elapsedMs, frame}. Fails on timeout or if the game restarts while waiting. Give exactly one condition.',
        [
          arg('path', 'string', "Dotted path into the state, e.g. 'ui.screen'.", true),
          arg('equals', 'any', 'Matches when the value equals this (deep equality for objects and lists).'),
          arg('notEquals', 'any', 'Matches when the value differs from this.'),
          arg('exists', 'boolean', 'true: matches when the path is present; false: when it is absent.'),
          arg('gt', 'number', 'Matches when the value is a number greater than this.'),
          arg('gte', 'number', 'Matches when the value is a number greater than or equal to this.'),
          arg('lt', 'number', 'Matches when the value is a number less than this.'),
          arg('lte', 'number', 'Matches when the value is a number less than or equal to this.'),
          arg('contains', 'any', 'Matches when the value (a string or a list) contains this.'),
          arg('matches', 'string', 'Matches when the value, as text, matches this regular expression.'),
          arg(
            'timeoutMs',
            'integer',
            "Give up after this many milliseconds. Default: the bridge's --timeout (5000 unless set).",
          ),
        ],
        true,
      ),
      t(
        'raw_command',
        'Send any command to the game by name (GET /command?cmd=...), including ones its manifest does not list, and wait until the game has applied it.',
        [
          arg('cmd', 'string', "The command's name, e.g. 'close' or 'set_seed'.", true),
          arg(
            'args',
            'object',
            'The command\'s arguments as an object, e.g. {"seed": 42}; each becomes a query parameter.',
          ),
          arg(
            'sync',
            'boolean',
            'Wait until the game confirms it applied the command and return the state after it; false returns as soon as the command is queued.',
            false,
            'true',
          ),
        ],
        false,
      ),
      t('health', 'Check that the game answers (GET /health): returns {ok, frame}. Cheap; changes nothing.', [], true),
      t(
        'screenshot',
        'Capture the game window as a PNG image (GET /screenshot, an optional extension; says so when the game does not implement it).',
        [],
        true,
      ),
      ...playTools(t),
      ...testTools(t),
    ],
  };
}
