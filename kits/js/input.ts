/**
 * Held inputs with leases (the "input" capability). Each hold belongs to an owner; an input is
 * down while any owner holds it. The game itself enforces the lease, on wall-clock time, so a
 * held key comes up even when whoever held it (the bridge, a session) is gone.
 */

export interface HeldInput {
  input: string;
  owner: string;
  leaseMsLeft: number;
}

interface Hold {
  input: string;
  owner: string;
  /** Wall-clock deadline (`now()` units, milliseconds). */
  until: number;
}

export class HeldInputs {
  private holds: Hold[] = [];

  constructor(
    /** The names the game reads; a hold or release of any other name is refused. */
    readonly names: readonly string[],
    private readonly now: () => number,
  ) {}

  /** Why `input` cannot be held or released, or undefined when it is a known name. */
  refuse(input: string): string | undefined {
    if (this.names.includes(input)) return undefined;
    return `unknown input '${input}' (this game reads: ${this.names.join(', ') || 'none'})`;
  }

  /** Holds (or re-holds, refreshing the lease of) `input` for `owner`. */
  hold(input: string, owner: string, leaseMs: number): void {
    this.release(input, owner);
    this.holds.push({ input, owner, until: this.now() + leaseMs });
  }

  /** Releases `owner`'s hold on `input`; other owners' holds on it stay. */
  release(input: string, owner: string): void {
    this.holds = this.holds.filter((h) => !(h.input === input && h.owner === owner));
  }

  /** Releases everything `owner` holds, and nothing anyone else holds. */
  releaseAll(owner: string): void {
    this.holds = this.holds.filter((h) => h.owner !== owner);
  }

  /** Drops the holds whose lease ran out; returns them (for a log line). */
  expire(): Hold[] {
    const t = this.now();
    const gone = this.holds.filter((h) => h.until <= t);
    if (gone.length) this.holds = this.holds.filter((h) => h.until > t);
    return gone;
  }

  /** Is `input` down right now (held by anyone, lease not run out)? */
  isHeld(input: string): boolean {
    const t = this.now();
    return this.holds.some((h) => h.input === input && h.until > t);
  }

  /** What /state publishes: live holds, oldest first. */
  list(): HeldInput[] {
    const t = this.now();
    return this.holds
      .filter((h) => h.until > t)
      .map((h) => ({ input: h.input, owner: h.owner, leaseMsLeft: Math.ceil(h.until - t) }));
  }
}
