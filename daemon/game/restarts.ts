/**
 * Has a new process taken over a port? The game contract's `frame` only grows during one
 * process's life, but the daemon reads one port from many sessions at once, and their replies
 * arrive in any order: a slow reply carrying frame 56 after a fast one carrying 57 proves
 * nothing. A lower frame proves a new process only when its request left AFTER the higher
 * frame's reply had arrived (the game then answered it later, so the same process would have
 * shown at least that frame). That is the one rule applied here, to every reading of a port.
 *
 * A proven restart drops what was known of the old process (the manifest cache listens).
 * It does not fail other calls: each call judges the frames it saw itself, in order
 * (daemon/sync), plus the port's `generation`, which changes only when the process is known to
 * have changed by identity: a different pid in the registry, or the launcher starting or
 * losing the game on that port.
 */

/** One reply that carried a frame, with when its request left and when its answer was complete
 *  (performance.now() milliseconds). */
export interface FrameReading {
  frame: number;
  sentAt: number;
  receivedAt: number;
}

/** Readings kept per port: enough to judge any request still in flight. */
const MAX_STEPS = 64;

/** The highest frames seen, as a staircase: along it, both arrival time and frame rise. */
class FrameStairs {
  private steps: Array<{ at: number; frame: number }> = [];

  /** The highest frame among replies complete before `t`. */
  highestBefore(t: number): number | undefined {
    for (let i = this.steps.length - 1; i >= 0; i--) if (this.steps[i].at < t) return this.steps[i].frame;
    return undefined;
  }

  add(at: number, frame: number): void {
    const s = this.steps;
    let i = s.length;
    while (i > 0 && s[i - 1].at > at) i--;
    if (i > 0 && s[i - 1].frame >= frame) return; // an earlier reply already showed as much
    let j = i;
    while (j < s.length && s[j].frame <= frame) j++; // later steps this one now dominates
    s.splice(i, j - i, { at, frame });
    if (s.length > MAX_STEPS) s.shift();
  }
}

interface PortLife {
  stairs: FrameStairs;
  /** readings whose request left before this may come from the process before the last change */
  floor: number;
  pid?: number;
}

export class RestartWatch {
  private ports = new Map<number, PortLife>();
  /** per port; never reset, so a value taken before a change never equals one taken after */
  private generations = new Map<number, number>();
  private counter = 0;
  private readonly listeners = new Set<(port: number) => void>();

  /** Called with the port whenever a new process is proven there (any rule). */
  onRestart(listener: (port: number) => void): void {
    this.listeners.add(listener);
  }

  private life(port: number): PortLife {
    let l = this.ports.get(port);
    if (!l) this.ports.set(port, (l = { stairs: new FrameStairs(), floor: -Infinity }));
    return l;
  }

  /** One reading of `port`. True when it proves a new process (see the file comment). */
  note(port: number, r: FrameReading): boolean {
    if (!Number.isFinite(r.frame)) return false;
    const l = this.life(port);
    if (r.sentAt < l.floor) return false;
    const high = l.stairs.highestBefore(r.sentAt);
    if (high !== undefined && r.frame < high) {
      l.stairs = new FrameStairs();
      l.stairs.add(r.receivedAt, r.frame);
      // Requests sent before this reply was complete may still be answered by the old process.
      l.floor = r.receivedAt;
      this.tell(port);
      return true;
    }
    l.stairs.add(r.receivedAt, r.frame);
    return false;
  }

  /** The pid the registry names for `port`; a different one than before is a new process. */
  notePid(port: number, pid: unknown): boolean {
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
    const l = this.life(port);
    const changed = l.pid !== undefined && l.pid !== pid;
    l.pid = pid;
    if (changed) this.changed(port);
    return changed;
  }

  /** The launcher started or lost the game on `port`: whatever answers there now is another process. */
  changed(port: number): void {
    const pid = this.ports.get(port)?.pid;
    this.ports.set(port, { stairs: new FrameStairs(), floor: performance.now(), pid });
    this.generations.set(port, ++this.counter);
    this.tell(port);
  }

  /** Changes when the port's process is known to have changed by identity (pid, launcher). */
  generation(port: number): number {
    return this.generations.get(port) ?? 0;
  }

  /** The highest frame seen on `port` so far (for tests and status). */
  highest(port: number): number | undefined {
    return this.ports.get(port)?.stairs.highestBefore(Infinity);
  }

  private tell(port: number): void {
    for (const l of this.listeners) l(port);
  }
}
