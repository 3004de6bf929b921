/**
 * Game surfaces this process serves itself: a browser game's page carrier answers the contract
 * on its port for everyone, and the daemon's own calls to that port take this shortcut instead
 * of a loopback HTTP request to itself. The daemon's own probe of a browser game it carries must
 * answer even while another local user floods the carrier's port with connections, and every poll
 * of a command sync is spared a loopback round trip (docs/DECISIONS.md, "Boot and standby").
 * The answers are the carrier's, status and body as it would send them over HTTP, and "no page"
 * as a value (wire.ts InProcessWire asks it).
 *
 *   const surfaces = new LocalSurfaces();             the daemon state's, handed to its launcher
 *   const end = surfaces.serve(port, (target) => carrier.answer(target));
 *   new GameClient(port, { local: surfaces })         asks surfaces.get(port) before any HTTP
 */
import type { LocalSurface } from './wire.js';

export type { LocalSurface };

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
