/**
 * The reserved commands of the playing-in-time extension: `input.hold`, `input.release`,
 * `input.releaseAll` (owned, leased inputs) and `clock.pause`, `clock.resume`, `clock.step`.
 * They travel as ordinary /command calls, so command sync confirms them like any other.
 */
import { ArgError, type CommandArgs } from './args.js';
import type { GameClock } from './clock.js';
import type { PlayerDevices } from './devices.js';
import type { HeldInputs } from './input.js';
import type { CommandHandler } from './types.js';

/** Longest lease a hold may ask for: an hour. A hold is meant to end; the bridge re-holds. */
export const MAX_LEASE_MS = 3_600_000;
/** Most frames one `clock.step` may ask for; later commands wait behind a step, so keep it bounded. */
export const MAX_STEP_FRAMES = 10_000;

export const RESERVED_PREFIXES = ['input.', 'clock.', 'ui.'];

/** The reserved handlers for the capabilities the game enabled. */
export function builtinCommands(
  inputs: HeldInputs | null,
  clock: GameClock | null,
  devices: PlayerDevices | null,
): Map<string, CommandHandler> {
  const out = new Map<string, CommandHandler>();
  const isAxis = (a: CommandArgs) => devices?.isAxis(a.string('input')) === true;
  if (inputs) {
    out.set('input.hold', {
      validate: (a) => {
        owner(a);
        lease(a);
        return inputs.refuse(a.string('input'));
      },
      apply: (a) => inputs.hold(a.string('input'), owner(a), lease(a)),
    });
  }
  if (inputs || devices) {
    // An axis rests when released; any other name is a held input.
    out.set('input.release', {
      validate: (a) => {
        owner(a);
        if (isAxis(a)) return undefined;
        return inputs ? inputs.refuse(a.string('input')) : devices!.validate('input.axis', a);
      },
      apply: (a) =>
        isAxis(a) ? devices!.releaseAxis(a.string('input'), owner(a)) : inputs?.release(a.string('input'), owner(a)),
    });
    out.set('input.releaseAll', {
      validate: (a) => void owner(a),
      apply: (a) => {
        inputs?.releaseAll(owner(a));
        devices?.releaseAll(owner(a));
      },
    });
  }
  const declared: Record<string, boolean> = {
    'input.pointer': devices?.options.pointer === true,
    'input.click': devices?.options.pointer === true,
    'input.wheel': devices?.options.pointer === true,
    'input.touch': devices?.options.touch === true,
    'input.axis': (devices?.options.axes?.length ?? 0) > 0,
    'input.text': devices?.options.text === true,
  };
  for (const [cmd, on] of Object.entries(declared)) {
    if (!on) continue;
    out.set(cmd, {
      validate: (a) => {
        owner(a);
        return devices!.validate(cmd, a);
      },
      apply: (a, info) =>
        cmd === 'input.click' ? devices!.startClick(info.commandId, a, owner(a)) : devices!.apply(cmd, a, owner(a)),
    });
  }
  if (clock) {
    out.set('clock.pause', { apply: () => clock.pause() });
    out.set('clock.resume', { apply: () => clock.resume() });
    // Completes only once its frames ran: the surface sees `clock.stepping` and holds the queue.
    out.set('clock.step', {
      validate: (a) => void frames(a),
      apply: (a, info) => clock.startStep(info.commandId, frames(a)),
    });
  }
  return out;
}

function owner(a: CommandArgs): string {
  const o = a.string('owner');
  if (o.trim() === '') throw new ArgError("argument 'owner' must not be empty (whoever holds the input)");
  return o;
}

function lease(a: CommandArgs): number {
  const ms = a.number('leaseMs');
  if (!(ms > 0 && ms <= MAX_LEASE_MS))
    throw new ArgError(`argument 'leaseMs' must be > 0 and <= ${MAX_LEASE_MS}, got ${ms}`);
  return ms;
}

function frames(a: CommandArgs): number {
  const n = a.number('frames');
  if (!Number.isInteger(n) || n < 1 || n > MAX_STEP_FRAMES)
    throw new ArgError(`argument 'frames' must be a whole number from 1 to ${MAX_STEP_FRAMES}, got ${n}`);
  return n;
}
