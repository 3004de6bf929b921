/**
 * The UI and world trees (capabilities "ui" and "world"): the game hands the kit providers,
 * the kit publishes what they return at `GET /ui` and `GET /world` with `frameSequence` and
 * `revision`, and applies the reserved `ui.activate`, `ui.setValue` and `ui.focus` commands on
 * the tick, re-checking the node as it is then (gone, hidden or disabled is a failed command).
 * Platform-neutral: both carriers use it through the core.
 */
import type { UiNodeFields } from '../../shared/ui-node.js';
import type { CommandArgs, CommandHandler } from './args.js';

/** One element of the UI tree. Fields at their default (visible, enabled: true) may be left out. */
export interface UiNode extends UiNodeFields<UiNode> {
  /** `[x, y, w, h]` in screenshot pixels, top-left origin: exactly four numbers. */
  rect?: [number, number, number, number];
  /** `ui.activate`: press it as a player would (runs on the tick). */
  activate?: () => void;
  /** `ui.setValue`: a number for a slider, a boolean for a checkbox, text otherwise (runs on the tick). */
  setValue?: (value: string | number | boolean) => void;
  /** `ui.focus` (runs on the tick). */
  focus?: () => void;
}

export interface UiTree {
  /** The current screen's name. */
  screen?: string;
  nodes: UiNode[];
}

/** One published world object; `player: true` marks what a player can see. */
export interface WorldObject {
  id: string;
  type: string;
  name?: string;
  pos?: [number, number] | [number, number, number];
  tags?: string[];
  props?: Record<string, unknown>;
  player?: boolean;
}

/**
 * One tree's publications: built at most once per frame (a request in the same frame gets the
 * same snapshot), swapped in whole. `frameSequence` counts publications; `revision` grows only
 * when the serialized content differs from the previous publication's.
 */
export class TreePublisher {
  private frame = -1;
  private body: Record<string, unknown> = {};
  private content = '';
  private revision = 0;
  private sequence = 0;

  constructor(private readonly build: () => Record<string, unknown>) {}

  publish(frame: number, sessionEpoch: number | null): Record<string, unknown> {
    if (frame === this.frame && this.sequence > 0) return this.body;
    const content = this.build();
    const text = JSON.stringify(content);
    if (text !== this.content) {
      this.content = text;
      this.revision += 1;
    }
    this.sequence += 1;
    this.frame = frame;
    this.body = {
      ...(sessionEpoch !== null ? { sessionEpoch } : {}),
      frameSequence: this.sequence,
      revision: this.revision,
      ...content,
    };
    return this.body;
  }
}

/** The /ui content: the screen and the nodes without their handlers or default fields. */
export function uiContent(tree: UiTree): Record<string, unknown> {
  return { ...(tree.screen !== undefined ? { screen: tree.screen } : {}), nodes: (tree.nodes ?? []).map(plainNode) };
}

/** The /world content. */
export function worldContent(objects: WorldObject[]): Record<string, unknown> {
  return {
    objects: objects.map((o) => {
      const { player, ...rest } = o;
      return player ? { ...rest, player: true } : rest;
    }),
  };
}

function plainNode(node: UiNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined || typeof value === 'function') continue;
    if ((key === 'visible' || key === 'enabled') && value === true) continue;
    if (key === 'children') {
      if (Array.isArray(value) && value.length) out.children = value.map(plainNode);
      continue;
    }
    out[key] = value;
  }
  return out;
}

/** The reserved ui.* commands, each re-checking its node on the tick through `ui()`. */
export function uiCommands(ui: () => UiTree): Map<string, CommandHandler> {
  const usable = (a: CommandArgs): UiNode => usableNode(ui().nodes ?? [], a.string('id'));
  // ui.activate and ui.focus call the node's own action of that name, on the node as it is then.
  const action = (name: 'activate' | 'focus', cannot: string): CommandHandler => ({
    validate: (a) => void a.string('id'),
    apply: (a) => {
      const node = usable(a);
      const act = node[name];
      if (!act) throw new Error(`'${label(node)}' (${node.role}) ${cannot}`);
      act.call(node);
    },
  });
  return new Map<string, CommandHandler>([
    ['ui.activate', action('activate', 'cannot be activated')],
    [
      'ui.setValue',
      {
        validate: (a) => {
          a.string('id');
          a.string('value');
        },
        apply: (a) => {
          const node = usable(a);
          const value = parseValue(node, a.string('value'));
          if (!node.setValue) throw new Error(`'${label(node)}' (${node.role}) takes no value`);
          node.setValue(value);
        },
      },
    ],
    ['ui.focus', action('focus', 'cannot take focus')],
  ]);
}

const label = (node: UiNode) => node.name || node.id;

/** The node as it is now; a node under a hidden or disabled parent is hidden or disabled too. */
function usableNode(nodes: UiNode[], id: string): UiNode {
  const path = findPath(nodes, id);
  if (!path) throw new Error(`no UI node '${id}'`);
  const node = path[path.length - 1];
  if (path.some((n) => n.visible === false)) throw new Error(`'${label(node)}' is hidden`);
  if (path.some((n) => n.enabled === false)) throw new Error(`'${label(node)}' is disabled`);
  return node;
}

function findPath(nodes: UiNode[], id: string): UiNode[] | null {
  for (const n of nodes) {
    if (n.id === id) return [n];
    const below = n.children ? findPath(n.children, id) : null;
    if (below) return [n, ...below];
  }
  return null;
}

const NUMERIC_ROLES = new Set(['slider', 'spinbutton', 'scrollbar', 'progressbar']);
const CHECKABLE_ROLES = new Set(['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio']);
const CHOICE_ROLES = new Set(['combobox', 'listbox', 'radiogroup', 'tablist']);

/** The value as the node's role takes it; out of range or not one of its options is a failure. */
function parseValue(node: UiNode, text: string): string | number | boolean {
  const name = label(node);
  if (NUMERIC_ROLES.has(node.role)) {
    const n = text.trim() === '' ? NaN : Number(text);
    if (!Number.isFinite(n)) throw new Error(`'${name}' takes a number, got '${text.slice(0, 40)}'`);
    const { min, max } = node;
    if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
      throw new Error(`'${name}' takes ${min ?? '-∞'} to ${max ?? '∞'}, got ${n}`);
    }
    return n;
  }
  if (CHECKABLE_ROLES.has(node.role)) {
    if (text === 'true' || text === 'false') return text === 'true';
    throw new Error(`'${name}' takes true or false, got '${text.slice(0, 40)}'`);
  }
  if (CHOICE_ROLES.has(node.role) && node.children?.length) {
    const options = node.children.map((c) => c.name);
    if (!options.includes(text)) {
      throw new Error(`'${name}' has no option '${text.slice(0, 40)}' (options: ${options.join(', ')})`);
    }
  }
  return text;
}
