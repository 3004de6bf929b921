/**
 * The home's daemon lock: one daemon per GAME_BRIDGE_HOME. A directory made with mkdir (atomic)
 * holding owner.json {pid, pidStart, port}. A holder is alive while its pid runs with the same
 * start time, however long it has been silent: a daemon whose event loop stalled keeps its lock
 * (an mtime-based lock let a second daemon in, and the first then rewrote shared files from a
 * stale table).
 *
 * Taking over a dead holder's lock is atomic: only the process that creates the takeover
 * directory may remove the lock, and it re-reads the owner under it, so two takers never both
 * win and the loser never deletes what the winner wrote. The holder checks every second that the
 * lock still names it (`held`), so it never writes a shared file after losing it.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { lockDirOf, lockOwnerFileOf, processStart, sameProcess } from '../../shared/daemon-file.js';
import { writePrivateFile } from '../../shared/private-files.js';

export interface LockOwner {
  pid: number;
  pidStart?: number;
  port?: number;
}

/** An owner.json not written yet is a lock being taken: alive for this long after its mkdir. */
const BIRTH_GRACE_MS = 5000;
/** Errors of this process, not of the file: the lock is as it was. */
const RESOURCE_ERRORS = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'EAGAIN', 'EINTR']);
/** A takeover directory older than this belongs to a taker that died mid-takeover. */
const TAKEOVER_STALE_MS = 5000;

export class HomeLock {
  private readonly dir: string;
  private readonly takeoverDir: string;
  private readonly me: LockOwner;
  private ownedNow = false;

  constructor(daemonDir: string) {
    this.dir = lockDirOf(daemonDir);
    this.takeoverDir = join(daemonDir, 'daemon.lock.takeover');
    this.me = { pid: process.pid, pidStart: processStart(process.pid) };
  }

  /** Take the lock; false when a live daemon holds it. `log` hears about takeovers. */
  acquire(log: (line: string) => void): boolean {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.create()) return true;
      const holder = this.owner();
      if (holder === 'young' || holder === 'unreadable' || (holder && sameProcess(holder.pid, holder.pidStart)))
        return false;
      if (!this.takeOver(holder, log)) return false;
    }
    return false;
  }

  /**
   * Does the lock still name this process? (Cheap: one small file read.) A read that fails for
   * want of a descriptor or memory (EMFILE under a connection flood) says nothing about the
   * lock: it is still held. Only a lock that is gone, or that names another process, is lost.
   */
  held(): boolean {
    if (!this.ownedNow) return false;
    const o = this.owner();
    if (o === 'unreadable') return true;
    this.ownedNow = !!o && o !== 'young' && o.pid === this.me.pid && o.pidStart === this.me.pidStart;
    return this.ownedNow;
  }

  /** Record the port we listen on with the lock (the CLI and takers can check it). */
  publish(port: number): void {
    if (!this.held()) return;
    this.me.port = port;
    writePrivateFile(lockOwnerFileOf(this.dir), JSON.stringify(this.me) + '\n');
  }

  release(): void {
    if (this.held()) rmSync(this.dir, { recursive: true, force: true });
    this.ownedNow = false;
  }

  private create(): boolean {
    try {
      mkdirSync(this.dir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
    writePrivateFile(lockOwnerFileOf(this.dir), JSON.stringify(this.me) + '\n');
    this.ownedNow = true;
    return true;
  }

  /**
   * The holder, 'young' while a fresh lock has no owner.json yet, undefined when unknowable
   * (dead), 'unreadable' when the process could not read the file at all (out of descriptors).
   */
  private owner(): LockOwner | 'young' | 'unreadable' | undefined {
    try {
      const o = JSON.parse(readFileSync(lockOwnerFileOf(this.dir), 'utf8')) as LockOwner;
      if (Number.isInteger(o?.pid) && o.pid > 0) return o;
    } catch (e) {
      if (RESOURCE_ERRORS.has((e as NodeJS.ErrnoException).code ?? '')) return 'unreadable';
      /* missing or torn */
    }
    try {
      return Date.now() - statSync(this.dir).mtimeMs < BIRTH_GRACE_MS ? 'young' : undefined;
    } catch {
      return undefined; // the lock vanished: the next create() may take it
    }
  }

  /** Remove a dead holder's lock, alone: false when another taker is at it. */
  private takeOver(dead: LockOwner | undefined, log: (line: string) => void): boolean {
    try {
      mkdirSync(this.takeoverDir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (!this.stale(this.takeoverDir)) return false;
      rmSync(this.takeoverDir, { recursive: true, force: true }); // its taker died mid-takeover
      return true; // try again from the start
    }
    try {
      const now = this.owner();
      const same =
        now === undefined
          ? dead === undefined
          : typeof now === 'object' && dead !== undefined && now.pid === dead.pid && now.pidStart === dead.pidStart;
      if (!same) return true; // it changed under us: start over
      log(`daemon pid ${dead?.pid ?? '(unknown)'} is gone; taking over its lock`);
      const aside = `${this.dir}.dead-${randomBytes(4).toString('hex')}`;
      renameSync(this.dir, aside);
      rmSync(aside, { recursive: true, force: true });
      return true;
    } finally {
      rmSync(this.takeoverDir, { recursive: true, force: true });
    }
  }

  private stale(dir: string): boolean {
    try {
      return Date.now() - statSync(dir).mtimeMs > TAKEOVER_STALE_MS;
    } catch {
      return true;
    }
  }
}
