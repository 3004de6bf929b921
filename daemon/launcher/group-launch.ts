/**
 * launch_instance {profile, count}: `count` instances of one profile started concurrently,
 * each on its own port with its own {index}. All or nothing: the first failure cancels the
 * launches still starting, stops the ones that came up, and is what the caller sees, with
 * a line saying what was reaped.
 */
import { launchFailed, toBridgeError, usageError, type BridgeError, type LaunchFacts } from '../../shared/errors.js';
import type { Launcher } from './launcher.js';
import type { LaunchedInstance, LaunchOptions } from './types.js';

/** A launch of more than this many at once is refused (a typo should not fork-bomb the machine). */
export const MAX_COUNT = 32;

export async function launchMany(
  launcher: Launcher,
  opts: Omit<LaunchOptions, 'index'>,
  count: number,
): Promise<LaunchedInstance[]> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
    throw usageError(
      `launch_instance: count must be a whole number from 1 to ${MAX_COUNT}; got ${JSON.stringify(count)}.`,
      { field: 'count' },
    );
  }
  const cancel = new AbortController();
  const onAbort = () => cancel.abort();
  opts.signal?.addEventListener('abort', onAbort);
  let first: { error: BridgeError; index: number } | undefined;
  try {
    const settled = await Promise.allSettled(
      Array.from({ length: count }, (_, index) =>
        launcher.launch({ ...opts, index, signal: cancel.signal }).catch((e: unknown) => {
          // The first failure is the story; the siblings it cancels only echo it.
          first ??= { error: toBridgeError(e), index };
          cancel.abort();
          throw e;
        }),
      ),
    );
    const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    if (!first) return started;
    const stopped = await Promise.all(
      started.map((i) =>
        launcher.stop(i.port).then(
          (r) => `${i.port} (${r.how})`,
          () => `${i.port} (stop failed)`,
        ),
      ),
    );
    throw reapedError(first.error, first.index, count, stopped);
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** The first failure: its first line, then what became of the siblings, then its command, log and output. */
function reapedError(e: BridgeError, index: number, count: number, stopped: string[]): BridgeError {
  const [head, ...rest] = e.message.split('\n');
  const siblings = stopped.length
    ? `The launch of ${count} failed as a whole: instance ${index} failed; ${stopped.length === 1 ? 'the one that had started was' : `the ${stopped.length} that had started were`} stopped: ${stopped.join(', ')}.`
    : `The launch of ${count} failed as a whole: instance ${index} failed; none of the others had started, and none is left running.`;
  const message = [head, siblings, ...rest].join('\n');
  return launchFailed(message, { ...launchFactsOf(e), failedIndex: index, count, reaped: stopped }, e);
}

/** What a failure says of the launch: all of a LaunchFailed's facts, the port of anything else. */
function launchFactsOf(e: BridgeError): LaunchFacts {
  if (e.data.kind === 'LaunchFailed') {
    const { kind: _kind, ...facts } = e.data;
    return facts;
  }
  const port = (e.data as { port?: unknown }).port;
  return typeof port === 'number' ? { port } : {};
}
