/** Send one command, wait until applied, and shape the answer (without the whole state). */
import { commandAndSync } from '../sync/command.js';
import type { ToolContext } from './context.js';
import type { ToolCallExtra } from './types.js';

export async function syncAnswer(
  ctx: ToolContext,
  port: number,
  command: string,
  args: Record<string, unknown>,
  extra: ToolCallExtra,
  sync = true,
): Promise<Record<string, unknown>> {
  const r = await commandAndSync(ctx.client(port), command, args, {
    timeoutMs: ctx.config.timeoutMs,
    signal: extra.signal,
    onFrame: (frame) => ctx.noteFrame(port, frame),
    epoch: () => ctx.cache.epoch(port),
    sync,
  });
  return {
    command: r.command,
    applied: r.applied,
    ...(r.commandId !== undefined ? { commandId: r.commandId } : {}),
    confirmation: r.confirmation,
    ...(r.frame !== undefined ? { frame: r.frame } : {}),
    ...(r.screen !== undefined ? { screen: r.screen } : {}),
    ...(r.game !== undefined ? { game: r.game } : {}),
    events: r.events,
  };
}
