/** What the playing-in-time tools (input.ts, clock.ts) share: the capability a tool needs, and the simulation's frame. */
import { commandRejected, usageError } from '../../shared/errors.js';
import type { State } from '../game/client.js';
import type { ToolContext } from '../tools/context.js';

export type Capability = 'input' | 'clock';

const WHY: Record<Capability, string> = { input: 'held inputs', clock: 'an agent-controlled clock' };

/** The capabilities the game on `port` declares in /health. */
export async function capabilitiesOf(ctx: ToolContext, port: number): Promise<string[]> {
  const h = await ctx.client(port).health();
  return Array.isArray(h.capabilities) ? h.capabilities.map(String) : [];
}

/** Fail clearly, before sending anything, when the game does not declare the capability a tool needs. */
export async function requireCapability(ctx: ToolContext, port: number, cap: Capability, tool: string): Promise<void> {
  const caps = await capabilitiesOf(ctx, port);
  if (caps.includes(cap)) return;
  throw commandRejected(
    tool,
    port,
    `missing capability "${cap}"`,
    [],
    `The game on port ${port} does not support ${WHY[cap]} (capability "${cap}"; it declares ${caps.length ? caps.map((c) => `"${c}"`).join(', ') : 'none'}). ` +
      (cap === 'input'
        ? "Drive it with its own commands (list_toolsets), or give the game a kit's held inputs (docs/KITS.md)."
        : "Use wait_for to let time pass, or give the game a kit's clock (docs/KITS.md)."),
  );
}

/** The simulation's frame count and where it is read: simFrame when the game publishes one, else frame. */
export function simFrameOf(s: State | undefined): { path: 'simFrame' | 'frame'; value: number } | undefined {
  if (typeof s?.simFrame === 'number') return { path: 'simFrame', value: s.simFrame };
  if (typeof s?.frame === 'number') return { path: 'frame', value: s.frame };
  return undefined;
}

/** What a hold's answer adds when the game's clock is paused: the input is held, but nothing moves. */
export function pausedNote(s: State | undefined): Record<string, unknown> {
  if (s?.clock === undefined || (s.clock as { paused?: unknown }).paused !== true) return {};
  return {
    clockPaused: true,
    note: "The game's clock is paused: the input is held, but nothing moves until resume (or step, frame by frame).",
  };
}

/** A held input's name, trimmed; a blank one is refused with what to give instead. */
export function inputOf(tool: string, input: string): string {
  const name = input.trim();
  if (!name)
    throw usageError(
      `${tool} needs 'input', the input's name as the game declares it (describe_toolset shows game.inputs), e.g. {input: "left"}.`,
    );
  return name;
}
