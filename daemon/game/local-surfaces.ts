/**
 * Game surfaces this process serves itself: a browser game's page carrier answers the contract
 * on its port for everyone, and the daemon's own calls to that port take this shortcut instead
 * of a loopback HTTP request to itself. The daemon's own probe of a browser game it carries must
 * answer even while another local user floods the carrier's port with connections, and every poll
 * of a command sync is spared a loopback round trip (docs/DECISIONS.md, "Boot and standby").
 * The answers are the carrier's, status and body, exactly as it would send them over HTTP.
 *
 *   const surfaces = new LocalSurfaces();             the daemon state's, handed to its launcher
 *   const end = surfaces.serve(port, (target) => carrier.answer(target));
 *   new GameClient(port, { local: surfaces })         asks surfaces.get(port) before any HTTP
 */
import { gameOffline, notAGameSurface, usageError } from '../../shared/errors.js';

/** A contract request (path and query, GET) → the status and JSON body the port would answer. */
export type LocalSurface = (target: string) => Promise<{ status: number; body: unknown }>;

/**
 * The surfaces this process serves, by port: the daemon state owns one, the launcher registers
 * each browser game's carrier in it, and the game clients and port probes it is handed ask it
 * first. A client or probe given none always goes over HTTP.
 */
export class LocalSurfaces {
  private readonly byPort = new Map<number, LocalSurface>();

  /** Serve `port`'s contract in-process from now on; the returned function ends it (only if still this surface). */
  serve(port: number, surface: LocalSurface): () => void {
    this.byPort.set(port, surface);
    return () => {
      if (this.byPort.get(port) === surface) this.byPort.delete(port);
    };
  }

  /** The surface this process serves on `port`, if any. */
  get(port: number): LocalSurface | undefined {
    return this.byPort.get(port);
  }
}

/** What a client or a probe asks of the surfaces: only which one serves a port. */
export type LocalSurfaceLookup = Pick<LocalSurfaces, 'get'>;

/** An answer as GameClient reads one off HTTP (client.ts RawAnswer). */
export interface LocalAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  sentAt: number;
  receivedAt: number;
}

/** GET `path` of a local surface with GameClient's bounds: its timeout, abort signal and body cap, the same errors. */
export function askLocally(
  surface: LocalSurface,
  game: { port: number; launchHint?: string; maxBytes: number },
  path: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<LocalAnswer> {
  const sentAt = performance.now();
  const route = path.split('?')[0];
  return new Promise<LocalAnswer>((resolve, reject) => {
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
      () => settle(() => reject(gameOffline(game.port, game.launchHint, timeoutMs, route))),
      timeoutMs,
    );
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    surface(path).then(
      ({ status, body }) =>
        settle(() => {
          const text = Buffer.from(JSON.stringify(body) ?? 'null');
          if (text.length > game.maxBytes)
            return reject(notAGameSurface(game.port, `GET ${route} sent more than ${game.maxBytes} bytes`));
          const contentType = 'application/json; charset=utf-8';
          resolve({ status, contentType, body: text, sentAt, receivedAt: performance.now() });
        }),
      () => settle(() => reject(gameOffline(game.port, game.launchHint))),
    );
  });
}
