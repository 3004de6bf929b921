/**
 * Port scan: GET /health on many loopback ports at once (SPEC §3).
 *
 * Each probe has its own socket (no keep-alive agent: a scan must leave nothing open behind
 * it), a short timeout, and a small body cap. Connection refused is instant on loopback, so a
 * thousand mostly-closed ports finish in well under 150 ms with bounded concurrency.
 */
import http from 'node:http';
import { HOST } from '../game/client.js';

export const PROBE_TIMEOUT_CAP_MS = 300;
export const PROBE_CONCURRENCY = 256;
const MAX_HEALTH_BYTES = 64 * 1024;

export type Probe =
  | { port: number; kind: 'live'; health: { ok: true; frame?: number; [k: string]: unknown } }
  | { port: number; kind: 'notAGame'; detail: string }
  | { port: number; kind: 'free' };

export interface ScanOptions {
  /** per-probe timeout; capped at PROBE_TIMEOUT_CAP_MS (a game answers /health cheaply) */
  timeoutMs?: number;
  concurrency?: number;
}

/** Probe one port. Never throws. */
export function probePort(port: number, timeoutMs = PROBE_TIMEOUT_CAP_MS): Promise<Probe> {
  return new Promise<Probe>((resolve) => {
    let done = false;
    let connected = false;
    const finish = (p: Probe) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(p);
    };
    const notAGame = (detail: string) => finish({ port, kind: 'notAGame', detail });
    const req = http.get({ host: HOST, port, path: '/health', agent: false, headers: { accept: 'application/json', connection: 'close' } }, (res) => {
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
    req.on('socket', (s) => s.once('connect', () => (connected = true)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (connected || err.code === 'ECONNRESET' || err.code === 'EPIPE' || err.code === 'HPE_INVALID_CONSTANT') {
        notAGame(`GET /health ${err.code?.startsWith('HPE_') ? 'got an answer that is not HTTP' : 'closed the connection without answering'}`);
      } else finish({ port, kind: 'free' });
    });
    // Something accepted the connection but did not answer in time: it is listening, so not free.
    const timer = setTimeout(() => (connected ? notAGame(`GET /health did not answer within ${timeoutMs}ms`) : finish({ port, kind: 'free' })), timeoutMs);
  });
}

/** Probe every port, at most `concurrency` at once. Results come back in the order given. */
export async function scanPorts(ports: number[], opts: ScanOptions = {}): Promise<Probe[]> {
  const timeoutMs = Math.min(opts.timeoutMs ?? PROBE_TIMEOUT_CAP_MS, PROBE_TIMEOUT_CAP_MS);
  const concurrency = Math.max(1, opts.concurrency ?? PROBE_CONCURRENCY);
  const out: Probe[] = new Array(ports.length);
  let next = 0;
  const worker = async () => {
    while (next < ports.length) {
      const i = next++;
      out[i] = await probePort(ports[i], timeoutMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, ports.length) }, worker));
  return out;
}
