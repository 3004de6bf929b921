/**
 * A launch's port taken before its game binds it. The port was free when it was chosen, but
 * another daemon or another user may take it before the game listens there (another process
 * then answers /health, or the game exits while another process listens). The launch then moves
 * on to another free port, a bounded number of times, and a final failure names every port tried.
 */
import { isBridgeError, launchFailed } from '../../shared/errors.js';
import type { LaunchedInstance, LaunchOptions } from './types.js';

/** Launches again on another port this many times when the chosen one was taken before the game bound it. */
export const PORT_TAKEN_RETRIES = 2;

export interface PortTries {
  /** a free port, reserved until `release` */
  allocate(): Promise<number>;
  /** a port tried is let go (the caller keeps the one its game holds) */
  release(port: number): void;
  start(port: number): Promise<LaunchedInstance>;
  warn(text: string): void;
}

/** Start on allocated ports until one is not taken by another process first (tries stay reserved meanwhile). */
export async function startOnFreePort(
  tries: PortTries,
  opts: Pick<LaunchOptions, 'signal' | 'onProgress'>,
): Promise<LaunchedInstance> {
  const tried: number[] = [];
  const taken: number[] = [];
  try {
    for (;;) {
      const port = await tries.allocate();
      tried.push(port);
      try {
        const inst = await tries.start(port);
        if (taken.length) inst.portsTaken = taken;
        return inst;
      } catch (e) {
        const held = takenPort(e, port);
        if (held !== undefined) taken.push(held);
        if (held === undefined || tried.length > PORT_TAKEN_RETRIES || opts.signal?.aborted)
          throw withPortsTried(e, tried, taken);
        const note = `Port ${taken.at(-1)} was taken by another process before the game bound it; launching again on another port (retry ${tried.length} of ${PORT_TAKEN_RETRIES}).`;
        opts.onProgress?.({ elapsedMs: 0, message: note });
        tries.warn(`launch: ${note}`);
      }
    }
  } finally {
    for (const p of tried) tries.release(p);
  }
}

/**
 * The port another process held when the launch failed for that (readiness.ts), or its page
 * server's {webPort} (web-start.ts, `heldPort`); undefined for any other failure. Another port may do.
 */
function takenPort(e: unknown, port: number): number | undefined {
  if (!isBridgeError(e) || e.data.kind !== 'LaunchFailed' || e.data.heldBy === undefined) return undefined;
  return e.data.heldPort ?? port;
}

/** The last failure, naming every port tried, and those taken, when there were several. */
function withPortsTried(e: unknown, tried: number[], taken: number[]): unknown {
  if (tried.length < 2 || !isBridgeError(e) || e.data.kind !== 'LaunchFailed') return e;
  const [first, ...rest] = e.message.split('\n');
  const line = `${first} Ports tried: ${tried.join(', ')}; another process took ${taken.join(', ')} before the game bound it.`;
  return launchFailed([line, ...rest].join('\n'), { ...e.data, portsTried: tried }, e);
}
