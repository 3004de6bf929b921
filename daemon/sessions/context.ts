/**
 * What every tool handler sees: this client's settings, the shared Bridge, and the helpers
 * that depend on both (port resolution, the game client for a port, its manifest).
 */
import { DEFAULT_PORT, parsePort, type SessionConfig } from '../../shared/config.js';
import type { Bridge } from '../bridge.js';
import type { GameClient } from '../game/client.js';
import type { Manifest } from '../game/manifest.js';
import type { CompositeRegistry } from '../composites/registry.js';

export class SessionContext {
  constructor(
    readonly bridge: Bridge,
    readonly config: SessionConfig,
    readonly sessionId: string,
    readonly composites: CompositeRegistry,
    /** an observer (the dashboard) looks and calls without adopting anything */
    readonly observer = false,
  ) {}

  /**
   * Port resolution (SPEC §5): `port` in the call (top level or inside `arguments`) → the
   * client's --port → its GAME_BRIDGE_PORT → the one instance this session launched, if it
   * launched exactly one → 7777.
   */
  resolvePort(args: Record<string, unknown>): number {
    const inner = args.arguments as Record<string, unknown> | undefined;
    if (args.port !== undefined && args.port !== null) return parsePort(args.port);
    if (inner && typeof inner === 'object' && inner.port !== undefined && inner.port !== null) return parsePort(inner.port);
    if (this.config.port !== undefined) return this.config.port;
    const mine = this.bridge.launcher.list().filter((i) => i.owner === this.sessionId);
    if (mine.length === 1) return mine[0].port;
    return DEFAULT_PORT;
  }

  client(port: number): GameClient {
    return this.bridge.client(port, this.config.timeoutMs, this.config.launchHint);
  }

  /** A session that uses a detached instance adopts it (SPEC §6.4). */
  touch(port: number): void {
    if (this.observer) return;
    this.bridge.owners.touch(port, this.sessionId);
  }

  async manifest(port: number): Promise<Manifest> {
    return this.bridge.cache.get(this.client(port), { manifestPath: this.config.manifestPath });
  }

  /** The manifest already fetched for `port`, without fetching (for replay verdicts). */
  knownManifest(port: number): Manifest | undefined {
    return this.bridge.cache.settled(port, { manifestPath: this.config.manifestPath });
  }

  onFrame(port: number): (frame: number) => void {
    return (frame) => this.bridge.cache.noteFrame(port, frame);
  }
}
