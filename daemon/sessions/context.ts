/**
 * The tools' context for one session: this client's settings over the daemon-wide state,
 * and the helpers that need both (port resolution, the game client for a port, its manifest).
 */
import { DEFAULT_PORT, parsePort, type SessionConfig } from '../../shared/config.js';
import { BridgeError, isBridgeError } from '../../shared/errors.js';
import type { DaemonState } from '../state/state.js';
import type { GameClient } from '../game/client.js';
import type { Manifest } from '../game/manifest.js';
import { withBridge } from '../bridge/index.js';
import { withPageTools } from '../bridge/webmcp-toolset.js';
import type { CompositeRegistry } from '../composites/registry.js';
import type { ToolContext } from '../tool-framework/context.js';

export class SessionContext implements ToolContext {
  constructor(
    readonly state: DaemonState,
    readonly config: SessionConfig,
    readonly sessionId: string,
    readonly composites: CompositeRegistry,
    /** an observer (the dashboard) looks and calls without adopting anything */
    readonly observer = false,
  ) {}

  get launcher() {
    return this.state.launcher;
  }

  get owners() {
    return this.state.owners;
  }

  get held() {
    return this.state.held;
  }

  get recordings() {
    return this.state.recordings;
  }

  get cache() {
    return this.state.cache;
  }

  get surfaces() {
    return this.state.surfaces;
  }

  /**
   * Port resolution (docs/TOOLS.md, "Using the tools"): `port` in the call (top level or inside `arguments`) →
   * the client's --port → its GAME_BRIDGE_PORT → the one instance this session launched, if it
   * launched exactly one (a game of its that exited counts until relaunched or pruned, so the
   * call meets GameExited with the facts, not GameOffline on 7777) → 7777.
   */
  resolvePort(args: Record<string, unknown>): number {
    const inner = args.arguments as Record<string, unknown> | undefined;
    if (args.port !== undefined && args.port !== null) return parsePort(args.port);
    if (inner && typeof inner === 'object' && inner.port !== undefined && inner.port !== null)
      return parsePort(inner.port);
    return this.portWhenNoneGiven() ?? DEFAULT_PORT;
  }

  /**
   * A GameOffline on the fallback port, for a call that gave no port and found none: that it was
   * the fallback, and where a port comes from, since the agent never asked for that port.
   */
  withFallbackPort(e: unknown, args: Record<string, unknown>): unknown {
    if (!isBridgeError(e) || e.data.kind !== 'GameOffline' || e.data.port !== DEFAULT_PORT) return e;
    const inner = args.arguments as Record<string, unknown> | undefined;
    const given = (v: unknown) => v !== undefined && v !== null;
    if (given(args.port) || (inner && typeof inner === 'object' && given(inner.port)) || this.portWhenNoneGiven())
      return e;
    return new BridgeError(
      e.data,
      `${e.message} No port was given, so the bridge tried ${DEFAULT_PORT}, its fallback: pass \`port\`, start the server with --port (or GAME_BRIDGE_PORT), or launch_instance a game (then this session's game is the default).`,
      { cause: e.cause },
    );
  }

  /** The client's port, else the one game this session launched; undefined when neither is there. */
  private portWhenNoneGiven(): number | undefined {
    if (this.config.port !== undefined) return this.config.port;
    const launcher = this.state.launcher;
    const mine = new Set(
      [...launcher.list(), ...launcher.exitedList()].filter((i) => i.owner === this.sessionId).map((i) => i.port),
    );
    return mine.size === 1 ? [...mine][0] : undefined;
  }

  client(port: number): GameClient {
    return this.state.client(port, this.config.timeoutMs, this.config.launchHint);
  }

  clientName(): string | undefined {
    const c = this.state.sessions.get(this.sessionId)?.client;
    return c ? `${c.name} ${c.version}` : undefined;
  }

  /** A session that uses a detached instance adopts it; an observer (the dashboard) never does. */
  adoptIfDetached(port: number): void {
    if (this.observer) return;
    this.state.owners.adoptIfDetached(port, this.sessionId);
  }

  /** The game's manifest as the agent is shown it, the bridge toolset included, and a page's WebMCP tools. */
  async manifest(port: number): Promise<Manifest> {
    const tools = this.state.launcher.webGame(port)?.browser.tools;
    const [m, own] = await Promise.all([
      this.state.cache.get(this.client(port), { manifestPath: this.config.manifestPath }),
      tools?.list() ?? [],
    ]);
    return withPageTools(withBridge(m), own);
  }

  knownManifest(port: number): Manifest | undefined {
    const m = this.state.cache.settled(port, { manifestPath: this.config.manifestPath });
    return m && withPageTools(withBridge(m), this.state.launcher.webGame(port)?.browser.tools.known() ?? []);
  }

  /** Changes when another process is known to answer on `port` (see game/restarts.ts). */
  generation(port: number): () => number {
    return () => this.state.cache.restarts.generation(port);
  }
}
