/** Send one command, wait until applied, and shape the answer (without the whole state). */
import { commandAndSync, type SyncResult } from '../sync/command.js';
import type { ToolContext } from './context.js';
import type { ToolCallExtra } from './types.js';
import { commandFailed, isBridgeError } from '../../shared/errors.js';
import { inPlayerView, playerState } from './view.js';
import type { SyncAnswer } from '../../shared/answers/fields.js';
import { errorMark, errorsSince } from './game-errors.js';
import { withErrors } from '../../shared/game-errors.js';

/** A result as a player sees it: no game state or events, the game's `player` section instead. */
function asPlayerSees(r: SyncResult): SyncResult {
  const state = r.state ? playerState(r.state) : undefined;
  return { ...r, game: undefined, events: [], state, ...(state?.player !== undefined ? { player: state.player } : {}) };
}

/** One command through command sync, the full result (with the state after it). */
export async function syncCommand(
  ctx: ToolContext,
  port: number,
  command: string,
  args: Record<string, unknown>,
  extra: ToolCallExtra,
  sync = true,
): Promise<SyncResult> {
  let r: SyncResult;
  const mark = errorMark(ctx, port);
  let lastFrame: number | null = null;
  try {
    r = await commandAndSync(ctx.client(port), command, args, {
      timeoutMs: ctx.config.timeoutMs,
      signal: extra.signal,
      generation: ctx.generation(port),
      sync,
      onFrame: (f) => (lastFrame = f),
    });
  } catch (e) {
    if (isBridgeError(e)) {
      // what the game threw while the call waited, the command's own failure included
      // an error from the game's output gets the last frame the call saw, the nearest it knows
      const failed = e.data.kind === 'CommandFailed';
      withErrors(e, await errorsSince(ctx, port, mark, lastFrame, failed));
    }
    // the game's words stay; its debug state does not reach a player
    if (inPlayerView(ctx) && isBridgeError(e) && e.data.kind === 'CommandFailed') {
      const { kind: _kind, applied: _applied, game: _game, ...facts } = e.data;
      throw commandFailed({ ...facts, events: [] });
    }
    throw e;
  }
  // The clocks a call was applied at, for the session's recording (a reference, nothing read).
  if (r.state) ctx.recordings.of(ctx.sessionId, port).last = r.state;
  const errors = await errorsSince(ctx, port, mark, r.frame ?? null, false);
  if (errors.length) r.errors = errors;
  if (inPlayerView(ctx)) r = asPlayerSees(r);
  // The last command a launched game confirmed is part of the facts if it later exits.
  if (r.applied)
    ctx.launcher.noteCommand(port, {
      ...(r.commandId !== undefined ? { id: r.commandId } : {}),
      command: r.command,
      at: new Date().toISOString(),
    });
  return r;
}

/**
 * What an answer carries of a sync result: never the whole state, and the game's sessionEpoch
 * when it publishes one. Its shape is declared once, as `syncAnswerShape` (shared/answers/).
 */
export function shapeSync(r: SyncResult): SyncAnswer {
  const epoch = r.state?.sessionEpoch;
  return {
    command: r.command,
    applied: r.applied,
    ...(r.commandId !== undefined ? { commandId: r.commandId } : {}),
    confirmation: r.confirmation,
    ...(r.frame !== undefined ? { frame: r.frame } : {}),
    ...(typeof epoch === 'number' ? { sessionEpoch: epoch } : {}),
    ...(r.screen !== undefined ? { screen: r.screen } : {}),
    ...(r.game !== undefined ? { game: r.game } : {}),
    ...(r.player !== undefined ? { player: r.player } : {}),
    events: r.events,
    ...(r.errors?.length ? { errors: r.errors } : {}),
  };
}

/** One command through command sync, answered as shapeSync shapes it. */
export async function syncAnswer(...call: Parameters<typeof syncCommand>): Promise<SyncAnswer> {
  return shapeSync(await syncCommand(...call));
}
