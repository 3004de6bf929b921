/**
 * Port scan: GET /health on many loopback ports at once (docs/CONTRACT.md, "Being found").
 *
 * Each probe (game/probe.ts) has its own socket, a short timeout, and a small body cap.
 * Connection refused is instant on loopback, so a thousand mostly-closed ports finish in well
 * under 150 ms with bounded concurrency.
 */
import type { LocalSurfaceLookup } from '../game/local-surfaces.js';
import { PATIENT_LOOK_MS, probePort, QUICK_LOOK_MS, type Probe } from '../game/probe.js';

export type { Probe };

/** A scan's per-probe timeout never exceeds the quick look, however long the session's --timeout. */
export const PROBE_TIMEOUT_CAP_MS = QUICK_LOOK_MS;
export const PROBE_CONCURRENCY = 256;

export interface ScanOptions {
  /** per-probe timeout; capped at PROBE_TIMEOUT_CAP_MS (a game answers /health cheaply) */
  timeoutMs?: number;
  concurrency?: number;
  /**
   * A port that accepted a connection but did not answer within the short timeout, or neither
   * accepted nor refused one in time, is probed once more with this longer one (a game busy
   * loading, or a loaded machine), so a slow game is not reported as "not a game" or free.
   * Default PATIENT_LOOK_MS.
   */
  retryTimeoutMs?: number;
  /** the surfaces this process serves itself: their ports are asked in-process */
  local?: LocalSurfaceLookup;
}

/** Probe every port, at most `concurrency` at once. Results come back in the order given. */
export async function scanPorts(ports: number[], opts: ScanOptions = {}): Promise<Probe[]> {
  const timeoutMs = Math.min(opts.timeoutMs ?? PROBE_TIMEOUT_CAP_MS, PROBE_TIMEOUT_CAP_MS);
  const concurrency = Math.max(1, opts.concurrency ?? PROBE_CONCURRENCY);
  const out: Probe[] = new Array(ports.length);
  await inPool(
    ports.map((_, i) => i),
    concurrency,
    async (i) => void (out[i] = await probePort(ports[i], timeoutMs, opts.local)),
  );
  const retry = opts.retryTimeoutMs ?? PATIENT_LOOK_MS;
  // Neither answered nor refused in time: on loopback that is a busy game or our own event loop
  // stalled past the timer (a loaded machine), so ask once more, with time to spare.
  const again = out.flatMap((p, i) => (p.kind !== 'live' && p.timedOut && retry > timeoutMs ? [i] : []));
  await inPool(again, concurrency, async (i) => void (out[i] = await probePort(out[i].port, retry, opts.local)));
  return out;
}

/** Run `fn` over `items`, at most `concurrency` at once. */
async function inPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
