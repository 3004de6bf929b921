/**
 * What a bridge tool may need of its game beyond the contract, one rule per capability of the
 * table (shared/capabilities.ts, which says how /health declares each): the sentence that ends the description of a tool that needs it, whether a page this daemon opened
 * has it anyway (the browser supplies it), and what an agent reads when the game lacks it. The
 * check runs once, before the tool's handler (declare.ts), so a handler never asks.
 */
import { capabilityMissing, type BridgeError } from '../../shared/errors.js';
import type { ToolContext } from '../tool-framework/context.js';
import { isNoPage } from '../game/wire.js';
import { listedInHealth, type Capability } from '../../shared/capabilities.js';

export type { Capability };
/** What a tool needs: one capability, or any one of several (`release` frees a held input or an axis). */
export type Need = Capability | readonly Capability[];

const alternatives = (need: Need): readonly Capability[] => (typeof need === 'string' ? [need] : need);

/** Does a game that has what `has` says meet `need`? */
export const meets = (has: (cap: Capability) => boolean, need: Need): boolean => alternatives(need).some(has);

interface Rule {
  /** ends the description of every tool that needs it */
  says: string;
  /** a page this daemon opened has it, whatever its kit declares */
  onPage: boolean;
  /** what a game without it does not do, as "The game on port N …" goes on */
  lacks: string;
  /** the route that serves it, named beside the capability */
  route?: string;
  /** what to do instead; `has` tells which other needs the game meets, so the step named is one that works */
  instead: string | ((has: (cap: Capability) => boolean) => string);
}

/** Where to look instead of a tree: get_state always works; a screenshot only on a game that serves one. */
const readInstead = (has: (cap: Capability) => boolean): string =>
  has('screenshot') ? 'Read get_state or take a screenshot instead' : 'Read get_state instead';

const ownCommandsOrKit = (what: string) =>
  `Drive it with its own commands (list_toolsets), or give the game a kit's ${what} (docs/KITS.md).`;

const RULES: Record<Capability, Rule> = {
  input: {
    says: ` Needs the game's "input" capability.`,
    onPage: true,
    lacks: 'does not support held inputs',
    instead: ownCommandsOrKit('held inputs'),
  },
  pointer: {
    says: ' Needs the game\'s "pointer" capability, or a page this bridge opened.',
    onPage: true,
    lacks: 'takes no pointer',
    instead: ownCommandsOrKit('pointer'),
  },
  touch: {
    says: ' Needs the game\'s "touch" capability, or a page this bridge opened.',
    onPage: true,
    lacks: 'takes no touches',
    instead: "Use pointer if it declares one, or give the game a kit's touch input (docs/KITS.md).",
  },
  axis: {
    says: ' Needs the game\'s "axis" capability (the axes it declares).',
    onPage: false,
    lacks: 'has no analog axes',
    instead: 'Use press or hold on its digital inputs, or declare axes with a kit (docs/KITS.md).',
  },
  text: {
    says: ' Needs the game\'s "text" capability, or a page this bridge opened.',
    onPage: true,
    lacks: 'takes no typed text',
    instead: ownCommandsOrKit('text input'),
  },
  clock: {
    says: ` Needs the game's "clock" capability.`,
    onPage: false,
    lacks: 'does not support an agent-controlled clock',
    instead: "Use wait_for to let time pass, or give the game a kit's clock (docs/KITS.md).",
  },
  ui: {
    says: ' Needs the game\'s "ui" capability (GET /ui), or a page this bridge opened.',
    onPage: true,
    lacks: 'publishes no UI tree',
    route: 'GET /ui',
    instead: (has) => `${readInstead(has)}, or have the game publish a UI tree (docs/CONTRACT.md).`,
  },
  world: {
    says: ' Needs the game\'s "world" capability (GET /world).',
    onPage: false,
    lacks: 'publishes no WORLD tree',
    route: 'GET /world',
    instead: (has) => `${readInstead(has)}, or have the game publish a world tree (docs/CONTRACT.md).`,
  },
  screenshot: {
    says: ' Needs the game to implement GET /screenshot (an optional extension), or a page this bridge opened; says so when it does not.',
    onPage: true,
    lacks: 'does not implement GET /screenshot (an optional extension)',
    instead: 'Use get_state to read what is on screen.',
  },
  frames: {
    says: ' Needs the game to serve GET /frames (an optional extension every kit serves), or a page this bridge opened; says so when it does not.',
    onPage: true,
    lacks: 'does not serve GET /frames (an optional extension)',
    instead:
      "Copy its kit's newest file into the game (every kit times its frames), or serve GET /frames yourself (docs/CONTRACT.md); meanwhile get_state's frame over a wait_for gives its rate.",
  },
};

/**
 * What the game on `port` lacks and what to do instead. A declared capability names itself, its
 * route and what the game does declare (`declared`, already listed); one only the game's answer
 * tells (screenshot) has no declaration to name.
 */
function lacksText(cap: Capability, port: number, declared: string, has: (cap: Capability) => boolean): string {
  const rule = RULES[cap];
  const instead = typeof rule.instead === 'string' ? rule.instead : rule.instead(has);
  if (!listedInHealth(cap)) return `The game on port ${port} ${rule.lacks}. ${instead}`;
  const route = rule.route ? `, ${rule.route}` : '';
  return `The game on port ${port} ${rule.lacks} (capability "${cap}"${route}; it declares ${declared}). ${instead}`;
}

/** The sentence a tool's description ends with when it needs `need`. */
export function needsSentence(need: Need): string {
  const caps = alternatives(need);
  if (caps.length === 1) return RULES[caps[0]].says;
  const page = caps.some((c) => RULES[c].onPage) ? ', or a page this bridge opened' : '';
  return ` Needs one of the game's capabilities ${caps.map((c) => `"${c}"`).join(', ')}${page}.`;
}

/** The capabilities the game on `port` declares in /health. */
export async function capabilitiesOf(ctx: ToolContext, port: number): Promise<string[]> {
  const h = await ctx.client(port).health();
  return Array.isArray(h.capabilities) ? h.capabilities.map(String) : [];
}

/**
 * The error for a game that lacks `cap`, naming what it declares (asked when not known: this is an
 * error path) and a next step the game serves.
 */
export async function lacking(
  ctx: ToolContext,
  port: number,
  cap: Capability,
  tool: string,
  known?: string[],
): Promise<BridgeError> {
  const declared = known ?? (await capabilitiesOf(ctx, port).catch(() => [] as string[]));
  const list = declared.length ? declared.map((c) => `"${c}"`).join(', ') : 'none';
  // A route's own refusal needs no second GET to know the game lacks it.
  const has = listedInHealth(cap) ? await metNeeds(ctx, port) : () => false;
  return capabilityMissing(port, tool, cap, declared, lacksText(cap, port, list, has));
}

/**
 * Fail before anything is sent when the game on `port` meets not one of `needs`: one /health read
 * for them all, none when a page this daemon opened has them anyway. A capability only the
 * game's answer tells (screenshot) is left to the tool's own read.
 */
export async function requireCapabilities(
  ctx: ToolContext,
  port: number,
  needs: readonly Need[],
  tool: string,
): Promise<void> {
  const onPage = ctx.launcher.webGame(port) !== undefined;
  const free = (c: Capability) => !listedInHealth(c) || (onPage && RULES[c].onPage);
  const asked = needs.filter((n) => !meets(free, n));
  if (!asked.length) return;
  const declared = await capabilitiesOf(ctx, port);
  const missing = asked.find((n) => !meets((c) => declared.includes(c), n));
  if (missing !== undefined) throw await lacking(ctx, port, alternatives(missing)[0], tool, declared);
}

/**
 * Which bridge tools' needs the game on `port` meets, asked all at once (call_tool's list of
 * what a game accepts, on an error path only): capabilities from /health, a screenshot by
 * asking for one.
 */
export async function metNeeds(ctx: ToolContext, port: number): Promise<(cap: Capability) => boolean> {
  const client = ctx.client(port);
  const onPage = ctx.launcher.webGame(port) !== undefined;
  const [declared, shots, frames] = await Promise.all([
    capabilitiesOf(ctx, port).catch(() => [] as string[]),
    onPage
      ? true
      : client.screenshot().then(
          (png) => png !== null,
          () => false,
        ),
    onPage ||
      client.get('/frames?since=1e15').then(
        (a) => !isNoPage(a) && a.status === 200,
        () => false,
      ),
  ]);
  const routes: Partial<Record<Capability, boolean>> = { screenshot: shots, frames };
  return (cap) => (onPage && RULES[cap].onPage) || (routes[cap] ?? declared.includes(cap));
}
