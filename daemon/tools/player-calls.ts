/**
 * What a player-view session may call (docs/TOOLS.md, "The player view"): the game's tools marked
 * `"player": true` and the bridge tools declared `player: true` (bridge/declare.ts), nothing a
 * composite, a skill or a raw command could send. The refusal names what is left.
 */
import { usageError } from '../../shared/errors.js';
import type { GameTool } from '../game/manifest.js';
import { BRIDGE_TOOLS } from '../bridge/index.js';
import type { ToolContext } from '../tool-framework/context.js';
import { inPlayerView } from '../tool-framework/view.js';

const ALLOWED = `It can use the game's tools marked "player": true and ${BRIDGE_TOOLS.filter((t) => t.player)
  .map((t) => t.name)
  .join(', ')}.`;

/** A refusal that says why and what is left. */
export function notForPlayers(what: string): Error {
  return usageError(
    `${what} is not available in the player view: this session sees and does only what a player could. ${ALLOWED} ` +
      'A debug session (the default, without --view player) has the rest.',
  );
}

/**
 * call_tool in the player view: `kind` says what the name resolved to. A composite or a
 * passthrough could send anything, so only tools marked or declared for a player pass.
 */
export function checkPlayerCall(
  ctx: ToolContext,
  name: string,
  kind: 'composite' | 'skill' | 'bridge' | 'manifest' | 'passthrough',
  tool?: Pick<GameTool, 'name'> & { player?: boolean },
): void {
  if (!inPlayerView(ctx)) return;
  if ((kind === 'bridge' || kind === 'manifest') && tool?.player === true) return;
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
