/**
 * The errors a call raised: the game's book is marked when the call starts and read when it
 * ends (its output; its kit's /errors when a command failed there), and the errors seen after
 * the mark are the call's. A failure of the call carries them too, and says the first.
 */
import type { GameError } from '../../shared/game-errors.js';
import type { ToolContext } from './context.js';

/** Where the game's book stands before a call (its output read first, so older errors are not the call's). */
export function errorMark(ctx: ToolContext, port: number): number {
  return ctx.launcher.errors.readOutput(port, null).seq;
}

/** The errors seen since `mark`, read now at `frame`; `kit`: ask the kit's /errors too. */
export async function errorsSince(
  ctx: ToolContext,
  port: number,
  mark: number,
  frame: number | null,
  kit: boolean,
  signal?: AbortSignal,
): Promise<GameError[]> {
  const errors = ctx.launcher.errors;
  errors.readOutput(port, frame);
  if (kit) await errors.readKit(port, ctx.client(port), signal);
  return errors.since(port, mark);
}
