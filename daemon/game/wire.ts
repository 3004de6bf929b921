/**
 * The wire a GameClient speaks the contract over, as the MCP SDK puts every wire behind its
 * `Transport`: one `get(path)` that answers with what the game said, or with a typed "no page".
 *
 *   HttpWire       GET over loopback HTTP to a game's port (one keep-alive agent per game)
 *   InProcessWire  a page this process carries itself (local-surfaces.ts): no HTTP to itself
 *
 * Both bound the call the same way (the timeout, the abort signal, the body cap) and fail with
 * the same errors. "No page" is a value, not an error text: the carrier has no page to ask, or
 * the page went away with the request. Over HTTP the carrier's door writes it as a 503 whose
 * error starts `GameOffline:` (docs/CONTRACT.md, "Browser games"); HttpWire reads that back into
 * the same value, so a client never parses an error text.
 */
import http from 'node:http';
import { callInterrupted, gameOffline, notAGameSurface, usageError, type BridgeError } from '../../shared/errors.js';

export const HOST = '127.0.0.1';

/** An answer as the game sent it: status, content type, bytes, and when it was asked and answered (performance.now()). */
export interface WireAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  sentAt: number;
  receivedAt: number;
}

/** A page carrier with no page to ask: `noPage` says why; `interrupted` when the page left with the request. */
export interface NoPage {
  noPage: string;
  interrupted?: true;
}

export const isNoPage = (a: object): a is NoPage => typeof (a as { noPage?: unknown }).noPage === 'string';

/**
 * A page this process carries, asked in-process (local-surfaces.ts): a contract request (path
 * and query, GET) → the status and JSON body its port would answer, or no page.
 */
export type LocalSurface = (target: string) => Promise<{ status: number; body: unknown } | NoPage>;

/** What a GameClient sends a game through. */
export interface GameWire {
  /** GET `path` (and query): the answer, or no page; connection failures are GameOffline, oversize NotAGameSurface. */
  get(path: string, timeoutMs: number, signal?: AbortSignal): Promise<WireAnswer | NoPage>;
  close(): void;
}

/** Who the wire talks to, for its errors: the port, the launch hint GameOffline shows, the body cap. */
export interface WireTarget {
  port: number;
  launchHint?: string;
  maxBytes: number;
}

const CARRIER_OFFLINE = 'GameOffline: ';

/** HTTP to a game's port on 127.0.0.1. */
export class HttpWire implements GameWire {
  readonly agent = new http.Agent({ keepAlive: true, maxSockets: 8, keepAliveMsecs: 1000 });

  constructor(private readonly target: WireTarget) {}

  async get(path: string, timeoutMs: number, signal?: AbortSignal): Promise<WireAnswer | NoPage> {
    const ans = await this.request(path, timeoutMs, signal);
    return ans.status === 503 ? (carrierNoPage(ans.body) ?? ans) : ans;
  }

  close(): void {
    this.agent.destroy();
  }

  private request(path: string, timeoutMs: number, signal?: AbortSignal): Promise<WireAnswer> {
    const { port, launchHint, maxBytes } = this.target;
    const route = path.split('?')[0];
    const sentAt = performance.now();
    return new Promise<WireAnswer>((resolve, reject) => {
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
        fail(gameOffline(port, launchHint, timeoutMs, route));
      }, timeoutMs);
      const req = http.get(
        { host: HOST, port, path, agent: this.agent, headers: { accept: 'application/json' }, signal },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > maxBytes) {
              res.destroy();
              fail(notAGameSurface(port, `GET ${route} sent more than ${maxBytes} bytes`));
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
          res.on('error', () => fail(notAGameSurface(port, `GET ${route} broke off mid-answer`)));
          res.on('aborted', () => fail(notAGameSurface(port, `GET ${route} broke off mid-answer`)));
        },
      );
      req.setTimeout(timeoutMs, () => {
        req.destroy();
        fail(gameOffline(port, launchHint, timeoutMs, route));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (signal?.aborted) return fail(usageError('The request was cancelled.'));
        if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
          // A game killed mid-request resets its sockets too: a closed port is a game that went
          // away, a game answering there again is a new process (a relaunch on the same port),
          // and only something else listening is "not a game".
          void afterReset(port).then((now) =>
            fail(
              now === 'closed'
                ? gameOffline(port, launchHint, undefined, route, 'exited')
                : now === 'game'
                  ? callInterrupted(
                      `GET ${route} on port ${port}`,
                      'the connection was reset mid-request and a game answers there again: it restarted, or dropped the connection',
                    )
                  : notAGameSurface(port, `GET ${route} closed the connection without answering`),
            ),
          );
          return;
        }
        fail(gameOffline(port, launchHint));
      });
    });
  }
}

/** A page carrier's 503 body, `{ok: false, error: "GameOffline: …", interrupted?}`, as the value it stands for. */
function carrierNoPage(body: Buffer): NoPage | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const { error, interrupted } = (json ?? {}) as { error?: unknown; interrupted?: unknown };
  if (typeof error !== 'string' || !error.startsWith(CARRIER_OFFLINE)) return undefined;
  return { noPage: error.slice(CARRIER_OFFLINE.length), ...(interrupted === true ? { interrupted: true } : {}) };
}

/** A page this process carries (local-surfaces.ts), asked in-process with HttpWire's bounds and errors. */
export class InProcessWire implements GameWire {
  constructor(
    private readonly surface: LocalSurface,
    private readonly target: WireTarget,
  ) {}

  get(path: string, timeoutMs: number, signal?: AbortSignal): Promise<WireAnswer | NoPage> {
    const { port, launchHint, maxBytes } = this.target;
    const sentAt = performance.now();
    const route = path.split('?')[0];
    return new Promise<WireAnswer | NoPage>((resolve, reject) => {
      let settled = false;
      const settle = (then: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        then();
      };
      const onAbort = () => settle(() => reject(usageError('The request was cancelled.')));
      const deadline = setTimeout(
        () => settle(() => reject(gameOffline(port, launchHint, timeoutMs, route))),
        timeoutMs,
      );
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.surface(path).then(
        (a) =>
          settle(() => {
            if (isNoPage(a)) return resolve(a);
            const text = Buffer.from(JSON.stringify(a.body) ?? 'null');
            if (text.length > maxBytes)
              return reject(notAGameSurface(port, `GET ${route} sent more than ${maxBytes} bytes`));
            const contentType = 'application/json; charset=utf-8';
            resolve({ status: a.status, contentType, body: text, sentAt, receivedAt: performance.now() });
          }),
        () => settle(() => reject(gameOffline(port, launchHint))),
      );
    });
  }

  close(): void {}
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
