/**
 * One look at GET /health on a loopback port, for deciding whether a game is there: never
 * throws, keeps no connection (no keep-alive agent: a scan must leave nothing open behind it),
 * and reads a small body at most. Tool calls use GameClient.health instead, which keeps its
 * connection and fails with a typed error the agent can act on.
 */
import http from 'node:http';
import net from 'node:net';
import { HOST } from './client.js';
import type { LocalSurfaceLookup } from './local-surfaces.js';
import { isNoPage, type LocalSurface } from './wire.js';

/** A scan's first look: an idle game answers /health in a few ms, a closed port refuses at once. */
export const QUICK_LOOK_MS = 300;
/** A second, patient look at a port that accepted but stayed silent: a game busy loading, or a loaded machine. */
export const PATIENT_LOOK_MS = 2000;
const MAX_HEALTH_BYTES = 64 * 1024;

export type Probe =
  | {
      port: number;
      kind: 'live';
      health: { ok: true; frame?: number; [k: string]: unknown };
      /** performance.now() of the request and of its answer */ sentAt: number;
      receivedAt: number;
    }
  | {
      port: number;
      kind: 'notAGame';
      detail: string;
      /** it accepted a connection but did not answer in time */ timedOut?: true;
    }
  | {
      port: number;
      kind: 'free';
      /** decided by the timer, not by a refusal: the connect may only have been slow */ timedOut?: true;
    };

/**
 * Probe one port. Never throws. A plain TCP connect comes first: on loopback a closed port
 * refuses at once, and that connect is much cheaper than a full HTTP request, which is only
 * made when something is listening.
 */
export function probePort(port: number, timeoutMs = QUICK_LOOK_MS, surfaces?: LocalSurfaceLookup): Promise<Probe> {
  // A browser game this daemon carries is asked in-process: its port is capped against floods,
  // and the daemon's own look must not queue behind them.
  const local = surfaces?.get(port);
  if (local) return probeLocally(port, local, timeoutMs);
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
    const decide = () =>
      connected
        ? finish({ port, kind: 'notAGame', detail: `GET /health did not answer within ${timeoutMs}ms`, timedOut: true })
        : finish({ port, kind: 'free', timedOut: true });
    // Decided after one more pass over I/O (setImmediate runs after the poll phase): when the event
    // loop stalled past the timer (a loaded machine), a connect or an answer that arrived meanwhile
    // is seen first, instead of a timer that is merely late calling a live game free.
    const timer = setTimeout(() => setImmediate(decide), timeoutMs);
    sock.once('error', () => {
      if (!connected) finish({ port, kind: 'free' });
    });
    sock.once('connect', () => {
      connected = true;
      sock.destroy();
      const sentAt = performance.now();
      req = http.get(
        {
          host: HOST,
          port,
          path: '/health',
          agent: false,
          headers: { accept: 'application/json', connection: 'close' },
        },
        (res) => {
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
            if (!j || typeof j !== 'object' || (j as { ok?: unknown }).ok !== true)
              return notAGame('GET /health did not answer {"ok": true}');
            finish({ port, kind: 'live', health: j as { ok: true }, sentAt, receivedAt: performance.now() });
          });
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) =>
        notAGame(
          `GET /health ${err.code?.startsWith('HPE_') ? 'got an answer that is not HTTP' : 'closed the connection without answering'}`,
        ),
      );
    });
  });
}

/** probePort's answer from a surface served in this process (local-surfaces.ts). */
async function probeLocally(port: number, surface: LocalSurface, timeoutMs: number): Promise<Probe> {
  const sentAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), timeoutMs)));
  const a = await Promise.race([surface('/health'), late]).finally(() => clearTimeout(timer));
  if (a === 'late')
    return { port, kind: 'notAGame', detail: `GET /health did not answer within ${timeoutMs}ms`, timedOut: true };
  // no page behind the carrier: what its port answers with a 503
  if (isNoPage(a)) return { port, kind: 'notAGame', detail: 'GET /health returned HTTP 503' };
  if (a.status < 200 || a.status >= 300)
    return { port, kind: 'notAGame', detail: `GET /health returned HTTP ${a.status}` };
  const body = a.body as { ok?: unknown } | null;
  if (!body || typeof body !== 'object' || body.ok !== true)
    return { port, kind: 'notAGame', detail: 'GET /health did not answer {"ok": true}' };
  return { port, kind: 'live', health: body as { ok: true }, sentAt, receivedAt: performance.now() };
}

/** Does a game answer /health on `port` within `timeoutMs`? */
export async function answersHealth(port: number, timeoutMs = PATIENT_LOOK_MS): Promise<boolean> {
  return (await probePort(port, timeoutMs)).kind === 'live';
}
