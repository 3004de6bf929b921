/**
 * The player view (docs/TOOLS.md, "The player view"): a session that sees and does only what
 * a player could. It reaches the game's tools marked `"player": true` and the bridge tools
 * declared for a player (tools/player-calls.ts); its state reads hold only `ui` and the game's
 * `player` section. Nothing in a session changes its view.
 */
import type { State } from '../game/client.js';
import type { ToolContext } from './context.js';

export const inPlayerView = (ctx: ToolContext): boolean => ctx.config.view === 'player';

/** What a player's state read holds: the frame and run counters, `ui`, and the game's `player` section. */
export function playerState(state: State): State {
  const out: State = {};
  for (const k of ['frame', 'simFrame', 'sessionEpoch', 'ui', 'player']) if (state[k] !== undefined) out[k] = state[k];
  return out;
}
