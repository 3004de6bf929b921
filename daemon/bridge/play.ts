/** What the playing-in-time tools (input.ts, clock.ts) share: the simulation's frame, a paused clock's note, an input's name. */
import { usageError } from '../../shared/errors.js';
import type { State } from '../game/client.js';

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
