/**
 * DaemonState: what one daemon (or one in-process server) holds for every session: game
 * clients with their keep-alive agents, the manifest cache, the launcher and its launched
 * instances, who owns them, and the live sessions. It knows nothing of MCP or of tools.
 */
import { homePaths } from '../../shared/paths.js';
import { GameClient } from '../game/client.js';
import type { LocalSurfaces } from '../game/local-surfaces.js';
import { ManifestCache } from '../game/cache.js';
import { exitHow, Launcher } from '../launcher/index.js';
import { Owners } from '../launcher/owners.js';
import { numberSetting, SETTINGS } from '../../shared/settings.js';
import { CallFeed } from '../feed/calls.js';
import { HeldInputs } from '../play/held.js';
import { Recordings } from '../recording/recordings.js';
import type { DaemonStateFacts } from '../../shared/answers/status.js';

/** A release is one short GET; a game that does not answer in this long releases by its own lease. */
const RELEASE_TIMEOUT_MS = 2000;

export interface DaemonStateOptions {
  home: string;
  mode: 'daemon' | 'in-process';
  detachedTtlMs?: number;
  log?: (line: string) => void;
  /** false once the daemon lost the home's lock: shared files are then not written */
  mayWrite?: () => boolean;
}

export interface SessionInfo {
  id: string;
  cwd: string;
  pid?: number;
  startedAt: string;
  /** the MCP client's name and version, from its initialize */
  client?: { name: string; version: string };
  /** what it may see and do: `debug`, or `player` (only what a player could) */
  view?: 'debug' | 'player';
}

/** Game clients kept at once (ports × timeouts × hints), least recently used dropped first. */
const MAX_CLIENTS = 256;
/** An evicted client may still carry a wait_for: its sockets are closed only after this. */
const EVICTED_CLOSE_MS = 10 * 60_000;

/** A launched game came or went on `port`. */
export interface InstanceChange {
  port: number;
  how: 'launched' | 'gone';
}

/** Told when the set of live instances may have changed. */
export type InstancesChanged = (change: InstanceChange) => void;

/** The one way to hear that games came or went: eager tools, resource lists and the dashboard all listen here. */
export interface InstanceEvents {
  /** `listener` is told of every launch and every game gone from then on; answers the unsubscribe. */
  onInstancesChanged(listener: InstancesChanged): () => void;
}

export class DaemonState implements InstanceEvents {
  readonly cache = new ManifestCache();
  readonly launcher: Launcher;
  readonly owners: Owners;
  readonly sessions = new Map<string, SessionInfo>();
  readonly startedAt = new Date();
  /** every session's last tool calls (the dashboard's feed) */
  readonly feed = new CallFeed();
  /** the inputs each session holds on each game, released when it ends (play/held.ts) */
  readonly held = new HeldInputs();
  /** what each session did to each game, for save_test (recording/recordings.ts) */
  readonly recordings = new Recordings();
  private clients = new Map<string, GameClient>();

  /** the browser games this process carries, answered in-process for its own calls (the launcher owns them) */
  get surfaces(): LocalSurfaces {
    return this.launcher.surfaces;
  }
  private readonly instanceListeners = new Set<InstancesChanged>();

  constructor(readonly opts: DaemonStateOptions) {
    this.launcher = new Launcher({ home: opts.home, persist: opts.mode === 'daemon', mayWrite: opts.mayWrite });
    this.launcher.on('warning', (w: string) => this.log(w));
    const ttl = opts.detachedTtlMs ?? numberSetting(SETTINGS.detachedTtlMs);
    this.owners = new Owners(
      this.launcher,
      (id) => this.sessions.has(id),
      ttl,
      (port) => this.launcher.stop(port),
    );
    // A launched game that came or went (launched, stopped, exited, reaped after its TTL): what we
    // knew of its port belongs to another process now.
    const portChanged = (change: InstanceChange) => {
      const { port } = change;
      this.cache.forget(port);
      this.owners.forget(port);
      this.held.forget(port);
      this.forgetClients(port);
      for (const l of this.instanceListeners) l(change);
    };
    this.launcher.on('launched', (inst) => portChanged({ port: inst.port, how: 'launched' }));
    this.launcher.on('gone', (port) => portChanged({ port, how: 'gone' }));
  }

  get paths() {
    return homePaths(this.opts.home);
  }

  log(line: string): void {
    this.opts.log?.(line);
  }

  /**
   * One client per (port, timeout, hint); clients for the same port share nothing but the port.
   * Kept most-recently-used first and at most MAX_CLIENTS (every port ever scanned or called
   * used to keep its client, and its keep-alive agent, for the daemon's life); a launched
   * game's clients go with it.
   */
  client(port: number, timeoutMs: number, launchHint?: string): GameClient {
    const key = `${port}|${timeoutMs}|${launchHint ?? ''}`;
    let c = this.clients.get(key);
    if (c) {
      this.clients.delete(key); // to the young end
    } else {
      c = new GameClient(port, {
        timeoutMs,
        launchHint,
        onReading: (r) => this.cache.restarts.note(port, r),
        local: this.surfaces,
      });
      if (this.clients.size >= MAX_CLIENTS)
        this.dropClient(this.clients.keys().next().value as string, EVICTED_CLOSE_MS);
    }
    this.clients.set(key, c);
    return c;
  }

  /** How many game clients are kept (bounded by MAX_CLIENTS). */
  clientCount(): number {
    return this.clients.size;
  }

  /** Forget a client and close it, at once or (evicted while maybe in use) once its requests are long over. */
  private dropClient(key: string, afterMs = 0): void {
    const c = this.clients.get(key);
    this.clients.delete(key);
    if (!c) return;
    if (afterMs) setTimeout(() => c.close(), afterMs).unref();
    else c.close();
  }

  private forgetClients(port: number): void {
    for (const key of [...this.clients.keys()]) if (key.startsWith(`${port}|`)) this.dropClient(key);
  }

  async readopt(): Promise<void> {
    const { adopted, gone } = await this.launcher.readopt();
    for (const inst of adopted) this.owners.markDetached(inst.port);
    if (adopted.length || gone.length) {
      this.log(
        `re-adopted ${adopted.length} launched game(s) [${adopted.map((i) => i.port).join(', ')}]; gone: [${gone.map((i) => i.port).join(', ')}]`,
      );
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
    this.recordings.sessionEnded(info.id);
    void this.held.releaseOwner(info.id, (port) => this.client(port, RELEASE_TIMEOUT_MS));
    for (const inst of this.launcher.list())
      void this.launcher
        .webGame(inst.port)
        ?.hands.release(info.id)
        .catch(() => undefined);
  }

  sessionCount(): number {
    return this.sessions.size;
  }

  hasInstances(): boolean {
    return this.launcher.list().length > 0;
  }

  onInstancesChanged(listener: InstancesChanged): () => void {
    this.instanceListeners.add(listener);
    return () => this.instanceListeners.delete(listener);
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

  status(): DaemonStateFacts {
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
