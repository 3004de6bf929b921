/**
 * Who owns each launched instance. An instance belongs to the session that launched it; when
 * that session ends it becomes detached and keeps running; any session that uses it adopts it;
 * a detached instance is reaped after detachedTtlMs (0 = never). It lives beside the launcher
 * because the owner is a field of the launched-instance table; sessions are known to it only
 * through the `isLive` question it is given.
 */
import type { Launcher } from './launcher.js';
import type { LaunchedInstance } from './types.js';

export type OwnerLabel = 'you' | 'another session' | 'detached';

export class Owners {
  private detachedSince = new Map<number, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private launcher: Launcher,
    /** is this session id connected? */
    private isLive: (sessionId: string) => boolean,
    private detachedTtlMs: number,
    private reap: (port: number) => Promise<unknown>,
  ) {
    if (detachedTtlMs > 0) {
      this.timer = setInterval(() => void this.sweep(), Math.min(30000, Math.max(100, detachedTtlMs / 4)));
      this.timer.unref();
    }
  }

  /** Launched by another session that is still connected (so `sessionId` may not stop it unasked). */
  ownedByAnotherLiveSession(inst: Pick<LaunchedInstance, 'owner'>, sessionId: string): boolean {
    return !!inst.owner && inst.owner !== sessionId && this.isLive(inst.owner);
  }

  /** The owner as `sessionId` reads it in list_instances (display only: logic asks the methods above). */
  label(inst: Pick<LaunchedInstance, 'owner'>, sessionId: string): OwnerLabel {
    if (inst.owner === sessionId) return 'you';
    if (this.ownedByAnotherLiveSession(inst, sessionId)) return 'another session';
    return 'detached';
  }

  /** A session used this instance: a detached one becomes its own. */
  adoptIfDetached(port: number, sessionId: string): void {
    const inst = this.launcher.get(port);
    if (!inst) return;
    if (!inst.owner || !this.isLive(inst.owner)) {
      this.launcher.setOwner(port, sessionId);
      this.detachedSince.delete(port);
    }
  }

  /** A session ended: its instances keep running, detached. */
  sessionEnded(sessionId: string): void {
    for (const inst of this.launcher.list()) {
      if (inst.owner === sessionId) {
        this.launcher.setOwner(inst.port, undefined);
        this.detachedSince.set(inst.port, Date.now());
      }
    }
  }

  /** The instance is gone: nothing to time any more. */
  forget(port: number): void {
    this.detachedSince.delete(port);
  }

  /** Instances re-adopted after a restart have no live owner: start their detached clock. */
  markDetached(port: number): void {
    if (!this.detachedSince.has(port)) this.detachedSince.set(port, Date.now());
  }

  async sweep(now = Date.now()): Promise<void> {
    if (this.detachedTtlMs <= 0) return;
    for (const inst of this.launcher.list()) {
      if (inst.owner && this.isLive(inst.owner)) {
        this.detachedSince.delete(inst.port);
        continue;
      }
      const since = this.detachedSince.get(inst.port);
      if (since === undefined) this.detachedSince.set(inst.port, now);
      else if (now - since >= this.detachedTtlMs) {
        this.detachedSince.delete(inst.port);
        await this.reap(inst.port).catch(() => undefined);
      }
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
