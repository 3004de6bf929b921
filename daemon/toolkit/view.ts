/**
 * The player view (docs/TOOLS.md, "The player view"): a session that sees and does only what
 * a player could. It reaches the game's tools marked `"player": true` and the bridge tools a
 * player has (the UI and world as shown, input, the clock, screenshots); its state reads hold
 * only `ui` and the game's `player` section. Nothing in a session changes its view.
 */
import { usageError } from '../../shared/errors.js';
import type { State } from '../game/client.js';
import type { GameTool } from '../game/manifest.js';
import type { ToolContext } from './context.js';

/** The bridge tools a player view may call. */
export const PLAYER_BRIDGE_TOOLS: ReadonlySet<string> = new Set([
  'get_state',
  'snapshot',
  'click',
  'activate',
  'set_value',
  'wait_for_node',
  'find_objects',
  'wait_for_object',
  'screenshot',
  'press',
  'hold',
  'release',
  'pointer',
  'wheel',
  'tap',
  'swipe',
  'pinch',
  'set_axis',
  'type',
  'input_sequence',
  'pause',
  'resume',
  'step',
]);

const ALLOWED = `It can use the game's tools marked "player": true and ${[...PLAYER_BRIDGE_TOOLS].join(', ')}.`;

export const inPlayerView = (ctx: ToolContext): boolean => ctx.config.view === 'player';

/** A refusal that says why and what is left. */
export function notForPlayers(what: string): Error {
  return usageError(
    `${what} is not available in the player view: this session sees and does only what a player could. ${ALLOWED} ` +
      'A debug session (the default, without --view player) has the rest.',
  );
}

/**
 * call_tool in the player view: `kind` says what the name resolved to. A composite or a
 * passthrough could send anything, so only marked tools and the player's bridge tools pass.
 */
export function checkPlayerCall(
  ctx: ToolContext,
  name: string,
  kind: 'composite' | 'skill' | 'bridge' | 'manifest' | 'passthrough',
  tool?: Pick<GameTool, 'name' | 'player'>,
): void {
  if (!inPlayerView(ctx)) return;
  if (kind === 'bridge' && tool && PLAYER_BRIDGE_TOOLS.has(tool.name)) return;
  if (kind === 'manifest' && tool?.player === true) return;
  const why =
    kind === 'composite' || kind === 'skill'
      ? `The ${kind} '${name}'`
      : kind === 'passthrough'
        ? `'${name}' (not in the game's manifest, so a raw command)`
        : kind === 'manifest'
          ? `The game's tool '${name}' (not marked "player": true in its manifest)`
          : `The bridge tool '${name}'`;
  throw notForPlayers(why);
}

/** What a player's state read holds: the frame and run counters, `ui`, and the game's `player` section. */
export function playerState(state: State): State {
  const out: State = {};
  for (const k of ['frame', 'simFrame', 'sessionEpoch', 'ui', 'player']) if (state[k] !== undefined) out[k] = state[k];
  return out;
}
