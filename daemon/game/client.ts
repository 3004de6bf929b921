/**
 * GameClient: the HTTP surface of docs/CONTRACT.md, for one port.
 *
 * One keep-alive agent per game (a poll loop reuses its socket instead of paying a TCP
 * handshake per /state). Every call has a timeout and a body-size cap, and every failure
 * maps onto the taxonomy: nothing listening → GameOffline; something that does not speak
 * the contract → NotAGameSurface; a refusal → CommandRejected.
 */
import http from 'node:http';
import {
  callInterrupted,
  commandRejected,
  gameOffline,
  notAGameSurface,
  usageError,
  type BridgeError,
} from '../../shared/errors.js';
import { askLocally, type LocalSurfaceLookup } from './local-surfaces.js';
import type { FrameReading } from './restarts.js';

export const HOST = '127.0.0.1';
/** A /state bigger than this is refused rather than buffered (a game may send 50 MB). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export type Health = { ok: boolean; frame?: number; [k: string]: unknown };

export interface CommandAnswer {
  accepted: true;
  commandId?: number;
  frame?: number;
  [k: string]: unknown;
}

export type State = Record<string, unknown>;

export interface GameClientOptions {
  timeoutMs?: number;
  /** shown in GameOffline ("make run PORT={port}") */
  launchHint?: string;
  /** told of every answer that carried a frame, with its timing (restart detection) */
  onReading?: (reading: FrameReading) => void;
  /** the surfaces this process serves itself (local-surfaces.ts): a port found there is asked in-process */
  local?: LocalSurfaceLookup;
}

interface RawAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  /** performance.now() when the request was made, and when its answer was complete */
  sentAt: number;
  receivedAt: number;
}

export class GameClient {
  readonly agent: http.Agent;
  timeoutMs: number;
  launchHint?: string;

  constructor(
    readonly port: number,
    private readonly opts: GameClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.launchHint = opts.launchHint;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 8, keepAliveMsecs: 1000 });
  }

  get baseUrl(): string {
    return `http://${HOST}:${this.port}`;
  }

  /** GET path → raw answer. Connection failures become GameOffline. */
  async get(path: string, timeoutMs = this.timeoutMs, signal?: AbortSignal): Promise<RawAnswer> {
    const local = this.opts.local?.get(this.port); // a browser game this daemon carries: no HTTP to itself
    if (local) {
      const bounds = { port: this.port, launchHint: this.launchHint, maxBytes: MAX_BODY_BYTES };
      return askLocally(local, bounds, path, timeoutMs, signal);
    }
    const sentAt = performance.now();
    return new Promise<RawAnswer>((resolve, reject) => {
      let settled = false;
      const fail = (e: BridgeError) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        reject(e);
      };
      // req.setTimeout below is an idle timeout: a game dripping a byte at a time (slowloris)
      // would hold the call forever. This one bounds the whole answer.
      const deadline = setTimeout(() => {
        req.destroy();
        fail(gameOffline(this.port, this.launchHint, timeoutMs, path.split('?')[0]));
      }, timeoutMs);
      const req = http.get(
        { host: HOST, port: this.port, path, agent: this.agent, headers: { accept: 'application/json' }, signal },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_BODY_BYTES) {
              res.destroy();
              fail(notAGameSurface(this.port, `GET ${path.split('?')[0]} sent more than ${MAX_BODY_BYTES} bytes`));
              return;
            }
            chunks.push(c);
          });
          res.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(deadline);
            const receivedAt = performance.now();
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              body: Buffer.concat(chunks),
              sentAt,
              receivedAt,
            });
          });
          res.on('error', () => fail(notAGameSurface(this.port, `GET ${path.split('?')[0]} broke off mid-answer`)));
          res.on('aborted', () => fail(notAGameSurface(this.port, `GET ${path.split('?')[0]} broke off mid-answer`)));
        },
      );
      req.setTimeout(timeoutMs, () => {
        req.destroy();
        fail(gameOffline(this.port, this.launchHint, timeoutMs, path.split('?')[0]));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (signal?.aborted) return fail(usageError('The request was cancelled.'));
        if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
          // A game killed mid-request resets its sockets too: a closed port is a game that went
          // away, a game answering there again is a new process (a relaunch on the same port),
          // and only something else listening is "not a game".
          const route = path.split('?')[0];
          void afterReset(this.port).then((now) =>
            fail(
              now === 'closed'
                ? gameOffline(this.port, this.launchHint, undefined, route, 'exited')
                : now === 'game'
                  ? callInterrupted(
                      `GET ${route} on port ${this.port}`,
                      'the connection was reset mid-request and a game answers there again: it restarted, or dropped the connection',
                    )
                  : notAGameSurface(this.port, `GET ${route} closed the connection without answering`),
            ),
          );
          return;
        }
        fail(gameOffline(this.port, this.launchHint));
      });
    });
  }

  private async getJson(
    path: string,
    timeoutMs?: number,
    signal?: AbortSignal,
  ): Promise<{ status: number; json: unknown }> {
    const ans = await this.get(path, timeoutMs, signal);
    const route = path.split('?')[0];
    if (ans.status === 404) return { status: 404, json: undefined };
    let json: unknown;
    try {
      json = JSON.parse(ans.body.toString('utf8'));
    } catch {
      throw notAGameSurface(this.port, `GET ${route} returned HTTP ${ans.status} that is not JSON`);
    }
    const frame = (json as { frame?: unknown } | null)?.frame;
    if (this.opts.onReading && typeof frame === 'number' && Number.isFinite(frame))
      this.opts.onReading({ frame, sentAt: ans.sentAt, receivedAt: ans.receivedAt });
    if (ans.status === 503 && isCarrierOffline(json)) {
      // A browser game's page carrier with no page behind it (docs/CONTRACT.md, "Browser games").
      if (json.interrupted && route === '/command')
        throw callInterrupted(
          `The command on port ${this.port}`,
          "the game's page went away while the command was in flight",
        );
      throw gameOffline(this.port, this.launchHint);
    }
    if (ans.status < 200 || ans.status >= 300) {
      // A page's own state seam that failed (web/stand-in.ts): the project's expression or the page's function.
      if (route === '/state' && typeof Object(json).stateError === 'string')
        throw usageError(String(Object(json).stateError).slice(0, 800));
      // A refusal from /command may come with a 4xx and a JSON body: let the caller read it.
      if (route === '/command' && json && typeof json === 'object') return { status: ans.status, json };
      throw notAGameSurface(this.port, `GET ${route} returned HTTP ${ans.status}`);
    }
    return { status: ans.status, json };
  }

  async health(timeoutMs?: number): Promise<Health> {
    const { status, json } = await this.getJson('/health', timeoutMs);
    if (status === 404) throw notAGameSurface(this.port, 'GET /health returned HTTP 404');
    const h = json as Health;
    if (!h || typeof h !== 'object' || h.ok !== true) {
      throw notAGameSurface(this.port, 'GET /health did not answer {"ok": true}');
    }
    return h;
  }

  /** The snapshot; `timeoutMs` lets a caller with its own deadline spend no more than what is left. */
  async state(signal?: AbortSignal, timeoutMs?: number): Promise<State> {
    const { status, json } = await this.getJson('/state', timeoutMs, signal);
    if (status === 404) throw notAGameSurface(this.port, 'GET /state returned HTTP 404');
    if (!json || typeof json !== 'object' || Array.isArray(json)) {
      throw notAGameSurface(this.port, 'GET /state did not return a JSON object');
    }
    return json as State;
  }

  /** Queue a command (fire and forget). Throws CommandRejected when the game says accepted: false. */
  async command(cmd: string, args: Record<string, unknown> = {}): Promise<CommandAnswer> {
    const q = new URLSearchParams();
    q.set('cmd', cmd);
    for (const [k, v] of Object.entries(args)) {
      if (v === undefined || k === 'cmd') continue;
      q.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    }
    const { status, json } = await this.getJson(`/command?${q.toString()}`);
    if (status === 404) throw notAGameSurface(this.port, 'GET /command returned HTTP 404');
    const a = json as Record<string, unknown>;
    if (!a || typeof a !== 'object') throw notAGameSurface(this.port, 'GET /command did not return a JSON object');
    if (a.accepted !== true) {
      const known = Array.isArray(a.known) ? a.known.map(String) : undefined;
      throw commandRejected(cmd, this.port, typeof a.error === 'string' ? a.error : '', known);
    }
    return a as CommandAnswer;
  }

  /** The manifest as served, or null when the game publishes none (404). */
  async tools(): Promise<unknown | null> {
    const { status, json } = await this.getJson('/tools');
    return status === 404 ? null : json;
  }

  /** `GET /ui` or `GET /world` as served (docs/CONTRACT.md, "The UI and world trees"), or null when the game serves none (404). */
  async tree(which: 'ui' | 'world', signal?: AbortSignal, timeoutMs?: number): Promise<unknown> {
    return this.getJson(`/${which}`, timeoutMs, signal).then(({ status, json }) => (status === 404 ? null : json));
  }

  /** PNG bytes, or null when the game does not implement the extension. */
  async screenshot(): Promise<Buffer | null> {
    const ans = await this.get('/screenshot');
    if (ans.status === 404 || ans.status === 501) return null;
    if (ans.status !== 200) throw notAGameSurface(this.port, `GET /screenshot returned HTTP ${ans.status}`);
    return ans.body;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The page carrier's answer when no page is joined, or the page left mid-request: `{ok: false, error: "GameOffline: …", interrupted?}`. */
function isCarrierOffline(json: unknown): json is { error: string; interrupted?: boolean } {
  return (
    !!json &&
    typeof json === 'object' &&
    typeof (json as { error?: unknown }).error === 'string' &&
    (json as { error: string }).error.startsWith('GameOffline:')
  );
}

/** Looks again while the port keeps resetting connections: a game killed and relaunched does so for a moment. */
const RESET_RETRIES = 4;
const RESET_RETRY_MS = 250;

/** After a reset: is the port closed (or silent), answered by a game (`/health` ok) again, or by something else? */
function afterReset(port: number, retries = RESET_RETRIES): Promise<'closed' | 'game' | 'other'> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (what: 'closed' | 'game' | 'other') => {
      if (settled) return;
      settled = true;
      req.destroy();
      resolve(what);
    };
    const req = http.get({ host: HOST, port, path: '/health', agent: false, timeout: 500 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => void (body.length < 4096 && (body += c)));
      res.on('end', () => done(/"ok"\s*:\s*true/.test(body) ? 'game' : 'other'));
      res.on('error', () => done('other'));
    });
    // Silence right after a reset is a game gone or still coming back, not another service.
    req.on('timeout', () => done('closed'));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNREFUSED') return done('closed');
      if ((e.code === 'ECONNRESET' || e.code === 'EPIPE') && retries > 0 && !settled) {
        settled = true;
        setTimeout(() => resolve(afterReset(port, retries - 1)), RESET_RETRY_MS);
        return;
      }
      done('other');
    });
  });
}
