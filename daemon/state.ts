/**
 * DaemonState: what one daemon (or one in-process server) holds for every session: game
 * clients with their keep-alive agents, the manifest cache, the launcher and its launched
 * instances, who owns them, and the live sessions. It knows nothing of MCP or of tools.
 */
import { homePaths } from '../shared/paths.js';
import { GameClient } from './game/client.js';
import { ManifestCache } from './game/cache.js';
import { exitHow, Launcher } from './launcher/index.js';
import { DEFAULT_DETACHED_TTL_MS, Owners } from './launcher/owners.js';
import { CallFeed } from './feed/calls.js';
import { HeldInputs } from './play/held.js';

/** A release is one short GET; a game that does not answer in this long releases by its own lease. */
const RELEASE_TIMEOUT_MS = 2000;

export interface DaemonStateOptions {
  home: string;
  mode: 'daemon' | 'in-process';
  detachedTtlMs?: number;
  log?: (line: string) => void;
}

export interface SessionInfo {
  id: string;
  cwd: string;
  pid?: number;
  startedAt: string;
  /** the MCP client's name and version, from its initialize */
  client?: { name: string; version: string };
}

export class DaemonState {
  readonly cache = new ManifestCache();
  readonly launcher: Launcher;
  readonly owners: Owners;
  readonly sessions = new Map<string, SessionInfo>();
  readonly startedAt = new Date();
  /** every session's last tool calls (the dashboard's feed) */
  readonly feed = new CallFeed();
  /** the inputs each session holds on each game, released when it ends (play/held.ts) */
  readonly held = new HeldInputs();
  private clients = new Map<string, GameClient>();
  /** listeners told when the set of live instances may have changed (eager mode) */
  readonly instanceListeners = new Set<() => void>();

  constructor(readonly opts: DaemonStateOptions) {
    this.launcher = new Launcher({ home: opts.home, persist: opts.mode === 'daemon' });
    const envTtl = Number(process.env.GAME_BRIDGE_DETACHED_TTL_MS);
    const ttl = opts.detachedTtlMs ?? (Number.isFinite(envTtl) && process.env.GAME_BRIDGE_DETACHED_TTL_MS ? envTtl : DEFAULT_DETACHED_TTL_MS);
    this.owners = new Owners(this.launcher, (id) => this.sessions.has(id), ttl, (port) => this.launcher.stop(port));
    // A launched game that came or went (launched, stopped, exited, reaped after its TTL): what we
    // knew of its port belongs to another process now.
    const portChanged = (port: number) => {
      this.cache.forget(port);
      this.owners.forget(port);
      this.held.forget(port);
      this.notifyInstancesChanged();
    };
    this.launcher.on('launched', (inst: { port: number }) => portChanged(inst.port));
    this.launcher.on('gone', portChanged);
  }

  get paths() {
    return homePaths(this.opts.home);
  }

  log(line: string): void {
    this.opts.log?.(line);
  }

  /** One client per (port, timeout, hint); clients for the same port share nothing but the port. */
  client(port: number, timeoutMs: number, launchHint?: string): GameClient {
    const key = `${port}|${timeoutMs}|${launchHint ?? ''}`;
    let c = this.clients.get(key);
    if (!c) {
      c = new GameClient(port, { timeoutMs, launchHint, onReading: (r) => this.cache.restarts.note(port, r) });
      this.clients.set(key, c);
    }
    return c;
  }

  async readopt(): Promise<void> {
    const { adopted, gone } = await this.launcher.readopt();
    for (const inst of adopted) this.owners.markDetached(inst.port);
    if (adopted.length || gone.length) {
      this.log(`re-adopted ${adopted.length} launched game(s) [${adopted.map((i) => i.port).join(', ')}]; gone: [${gone.map((i) => i.port).join(', ')}]`);
    }
  }

  addSession(info: SessionInfo): void {
    this.sessions.set(info.id, info);
  }

  /**
   * A session's connection closed. A proxy that reconnected says hello again with the same id
   * before its old connection is closed: only the registration being ended counts, so the
   * live one keeps its games.
   */
  endSession(info: SessionInfo): void {
    if (this.sessions.get(info.id) !== info) return;
    this.sessions.delete(info.id);
    this.owners.sessionEnded(info.id);
    void this.held.releaseOwner(info.id, (port) => this.client(port, RELEASE_TIMEOUT_MS));
  }

  sessionCount(): number {
    return this.sessions.size;
  }

  hasInstances(): boolean {
    return this.launcher.list().length > 0;
  }

  notifyInstancesChanged(): void {
    for (const l of this.instanceListeners) l();
  }

  async reapAll(): Promise<void> {
    // First, so a game this daemon did not launch (it outlives us) is not left with our inputs down.
    await this.held.releaseEverything((port) => this.client(port, RELEASE_TIMEOUT_MS));
    await this.launcher.reapAll();
  }

  /** Version handover: save the games for the next daemon and let go of them without reaping. */
  handover(): void {
    this.launcher.saveAll();
    this.launcher.dispose();
  }

  status(): Record<string, unknown> {
    return {
      mode: this.opts.mode,
      startedAt: this.startedAt.toISOString(),
      uptimeMs: Date.now() - this.startedAt.getTime(),
      sessions: [...this.sessions.values()],
      instances: this.launcher.list().map((i) => ({
        port: i.port,
        pid: i.pid,
        name: i.name,
        cwd: i.cwd,
        logFile: i.logFile,
        owner: i.owner && this.sessions.has(i.owner) ? i.owner : 'detached',
        ...(i.profile !== undefined ? { profile: i.profile, index: i.index ?? 0 } : {}),
        startedAt: i.startedAt,
      })),
      exited: this.launcher.exitedList().map((r) => ({
        port: r.port,
        pid: r.pid,
        name: r.name,
        how: exitHow(r),
        exitedAt: r.exitedAt,
        uptimeMs: r.uptimeMs,
        logFile: r.logFile,
      })),
    };
  }

  close(): void {
    this.owners.stop();
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
