/**
 * Port scan: GET /health on many loopback ports at once (SPEC §3).
 *
 * Each probe has its own socket (no keep-alive agent: a scan must leave nothing open behind
 * it), a short timeout, and a small body cap. Connection refused is instant on loopback, so a
 * thousand mostly-closed ports finish in well under 150 ms with bounded concurrency.
 */
import http from 'node:http';
import net from 'node:net';
import { HOST } from '../game/client.js';

export const PROBE_TIMEOUT_CAP_MS = 300;
export const PROBE_CONCURRENCY = 256;
const MAX_HEALTH_BYTES = 64 * 1024;

export type Probe =
  | { port: number; kind: 'live'; health: { ok: true; frame?: number; [k: string]: unknown } }
  | { port: number; kind: 'notAGame'; detail: string; /** it accepted a connection but did not answer in time */ timedOut?: true }
  | { port: number; kind: 'free'; /** decided by the timer, not by a refusal: the connect may only have been slow */ timedOut?: true };

export interface ScanOptions {
  /** per-probe timeout; capped at PROBE_TIMEOUT_CAP_MS (a game answers /health cheaply) */
  timeoutMs?: number;
  concurrency?: number;
  /**
   * A port that accepted a connection but did not answer within the short timeout, or neither
   * accepted nor refused one in time, is probed once more with this longer one (a game busy
   * loading, or a loaded machine), so a slow game is not reported as "not a game" or free.
   * Default 2000.
   */
  retryTimeoutMs?: number;
}

/**
 * Probe one port. Never throws. A plain TCP connect comes first: on loopback a closed port
 * refuses at once, and that connect is much cheaper than a full HTTP request, which is only
 * made when something is listening.
 */
export function probePort(port: number, timeoutMs = PROBE_TIMEOUT_CAP_MS): Promise<Probe> {
  return new Promise<Probe>((resolve) => {
    let done = false;
    let connected = false;
    let req: http.ClientRequest | undefined;
    const sock = net.connect({ host: HOST, port });
    const finish = (p: Probe) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req?.destroy();
      sock.destroy();
      resolve(p);
    };
    const notAGame = (detail: string) => finish({ port, kind: 'notAGame', detail });
    // Something accepted the connection but did not answer in time: it is listening, so not free.
    const timer = setTimeout(
      () => (connected ? finish({ port, kind: 'notAGame', detail: `GET /health did not answer within ${timeoutMs}ms`, timedOut: true }) : finish({ port, kind: 'free', timedOut: true })),
      timeoutMs,
    );
    sock.once('error', () => {
      if (!connected) finish({ port, kind: 'free' });
    });
    sock.once('connect', () => {
      connected = true;
      sock.destroy();
      req = http.get({ host: HOST, port, path: '/health', agent: false, headers: { accept: 'application/json', connection: 'close' } }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_HEALTH_BYTES) notAGame(`GET /health sent more than ${MAX_HEALTH_BYTES} bytes`);
          else chunks.push(c);
        });
        res.on('error', () => notAGame('GET /health broke off mid-answer'));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return notAGame(`GET /health returned HTTP ${status}`);
          let j: unknown;
          try {
            j = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            return notAGame(`GET /health returned HTTP ${status} that is not JSON`);
          }
          if (!j || typeof j !== 'object' || (j as { ok?: unknown }).ok !== true) return notAGame('GET /health did not answer {"ok": true}');
          finish({ port, kind: 'live', health: j as { ok: true } });
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) =>
        notAGame(`GET /health ${err.code?.startsWith('HPE_') ? 'got an answer that is not HTTP' : 'closed the connection without answering'}`),
      );
    });
  });
}

/** Probe every port, at most `concurrency` at once. Results come back in the order given. */
export async function scanPorts(ports: number[], opts: ScanOptions = {}): Promise<Probe[]> {
  const timeoutMs = Math.min(opts.timeoutMs ?? PROBE_TIMEOUT_CAP_MS, PROBE_TIMEOUT_CAP_MS);
  const concurrency = Math.max(1, opts.concurrency ?? PROBE_CONCURRENCY);
  const out: Probe[] = new Array(ports.length);
  await inPool(ports.map((_, i) => i), concurrency, async (i) => void (out[i] = await probePort(ports[i], timeoutMs)));
  const retry = opts.retryTimeoutMs ?? 2000;
  // Neither answered nor refused in time: on loopback that is a busy game or our own event loop
  // stalled past the timer (a loaded machine), so ask once more, with time to spare.
  const again = out.flatMap((p, i) => (p.kind !== 'live' && p.timedOut && retry > timeoutMs ? [i] : []));
  await inPool(again, concurrency, async (i) => void (out[i] = await probePort(out[i].port, retry)));
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
