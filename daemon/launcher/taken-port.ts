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
  try {
    for (;;) {
      const port = await tries.allocate();
      tried.push(port);
      try {
        const inst = await tries.start(port);
        if (tried.length > 1) inst.portsTaken = tried.slice(0, -1);
        return inst;
      } catch (e) {
        if (!portTaken(e) || tried.length > PORT_TAKEN_RETRIES || opts.signal?.aborted) throw withPortsTried(e, tried);
        const note = `Port ${port} was taken by another process before the game bound it; launching again on another port (retry ${tried.length} of ${PORT_TAKEN_RETRIES}).`;
        opts.onProgress?.({ elapsedMs: 0, message: note });
        tries.warn(`launch: ${note}`);
      }
    }
  } finally {
    for (const p of tried) tries.release(p);
  }
}

/** The launch failed because another process held its port (readiness.ts): another port may do. */
function portTaken(e: unknown): boolean {
  return isBridgeError(e) && e.data.kind === 'LaunchFailed' && e.data.heldBy !== undefined;
}

/** The last failure, naming every port tried when there were several. */
function withPortsTried(e: unknown, tried: number[]): unknown {
  if (tried.length < 2 || !isBridgeError(e) || e.data.kind !== 'LaunchFailed') return e;
  const [first, ...rest] = e.message.split('\n');
  const taken = portTaken(e) ? tried : tried.slice(0, -1);
  const line = `${first} Ports tried: ${tried.join(', ')}; another process took ${taken.join(', ')} before the game bound it.`;
  return launchFailed([line, ...rest].join('\n'), { ...e.data, portsTried: tried }, e);
}
