/**
 * What each session did to each game, kept so `save_test` can turn it into a saved test
 * (docs/TESTS.md, "Recording and saving"): the launch, every game-affecting call with its
 * arguments and the simFrame/frame/sessionEpoch it was applied at, and every check with its
 * condition and outcome. Bounded: the last MAX_STEPS steps per session and game, a bounded
 * number of recordings per daemon. Recording sits on every call's path, so it only stores
 * references it is handed: no request, no copy, no serialisation until a test is saved.
 */

/** Steps kept per session and game: older ones are dropped first. */
export const MAX_STEPS = 2000;
/** The newest steps keep the state after them, for a trace (save_trace); older ones keep their call and answer. */
export const STATE_STEPS = 200;
/** Recordings kept per daemon (sessions × games); the least recently used is dropped first. */
const MAX_RECORDINGS = 256;

/** The game's clocks when a call was applied (from the last state command sync read). */
export interface Clocks {
  simFrame?: number;
  frame?: number;
  sessionEpoch?: number;
}

export interface RecordedLaunch {
  /** the gamebridge.json it was launched from (absolute) */
  config: string;
  profile?: string;
  /** a browser game's seed */
  seed?: string;
  name: string;
  version: string;
  at: number;
  /** the game's code on disk when it was launched (launcher/code-print.ts): a later print tells whether it changed */
  codePrint?: string;
}

export type RecordedStep =
  | ({
      kind: 'do';
      name: string;
      arguments: Record<string, unknown>;
      at: number;
      /** the call's answer, as the agent saw it */
      answer?: Record<string, unknown>;
      /** the simFrame once it was done (a press or a step ran frames of its own) */
      endFrame?: number;
      /** the state command sync read after it (a reference; the newest STATE_STEPS steps only) */
      state?: Record<string, unknown>;
    } & Clocks)
  | ({
      kind: 'check';
      /** wait_for, step, assert (wait_for_node and wait_for_object alike) */
      tool: string;
      condition: Record<string, unknown>;
      held: boolean;
      /** why it did not hold (the error's text) */
      detail?: string;
      at: number;
      /** the state the check read (a reference; the newest STATE_STEPS steps only) */
      state?: Record<string, unknown>;
    } & Clocks);

/** A bounded list that drops its oldest item when full. */
class Ring<T> {
  private items: T[] = [];
  private start = 0;
  dropped = 0;
  constructor(private readonly cap: number) {}
  push(x: T): void {
    if (this.items.length < this.cap) {
      this.items.push(x);
      return;
    }
    this.items[this.start] = x;
    this.start = (this.start + 1) % this.cap;
    this.dropped++;
  }
  list(): T[] {
    return [...this.items.slice(this.start), ...this.items.slice(0, this.start)];
  }
  get size(): number {
    return this.items.length;
  }
}

/** One session's recording on one game. */
export class Recording {
  launch?: RecordedLaunch;
  readonly steps = new Ring<RecordedStep>(MAX_STEPS);
  /** the last state command sync read for this session and game (clocks are read from it lazily) */
  last?: Record<string, unknown>;
  /** when recording began: the launch, or this session's first call on the game */
  readonly startedAt = Date.now();
  /** the steps that still hold a state, oldest first */
  private withState: RecordedStep[] = [];

  /** Keep a step; past STATE_STEPS steps with a state, the oldest lets its state go (it stays referenced nowhere else). */
  keep(step: RecordedStep): void {
    this.steps.push(step);
    if (!step.state) return;
    this.withState.push(step);
    if (this.withState.length > STATE_STEPS) delete this.withState.shift()!.state;
  }

  clocks(): Clocks {
    const s = this.last;
    if (!s) return {};
    const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
    const simFrame = num(s.simFrame) ?? num(s.frame);
    return { simFrame, frame: num(s.frame), sessionEpoch: num(s.sessionEpoch) };
  }
}

/** Every session's recordings, daemon-wide (DaemonState holds one). */
export class Recordings {
  private byKey = new Map<string, Recording>();

  private key = (session: string, port: number) => `${session}\u0000${port}`;

  /** The recording of `session` on `port`, created on first use. */
  of(session: string, port: number): Recording {
    const k = this.key(session, port);
    let r = this.byKey.get(k);
    if (r) {
      // least recently used last
      this.byKey.delete(k);
      this.byKey.set(k, r);
      return r;
    }
    r = new Recording();
    this.byKey.set(k, r);
    if (this.byKey.size > MAX_RECORDINGS) this.byKey.delete(this.byKey.keys().next().value!);
    return r;
  }

  /** The recording if there is one, without making one. */
  peek(session: string, port: number): Recording | undefined {
    return this.byKey.get(this.key(session, port));
  }

  /** A launch starts the session's recording on that port afresh. */
  launched(session: string, port: number, launch: RecordedLaunch): Recording {
    this.byKey.delete(this.key(session, port));
    const r = this.of(session, port);
    r.launch = launch;
    return r;
  }

  /** The ports `session` has a recording on, in the order it last used them. */
  portsOf(session: string): number[] {
    const prefix = `${session}\u0000`;
    return [...this.byKey.keys()].filter((k) => k.startsWith(prefix)).map((k) => Number(k.slice(prefix.length)));
  }

  /** A session that ended can save nothing: its recordings go. */
  sessionEnded(session: string): void {
    for (const k of [...this.byKey.keys()]) if (k.startsWith(`${session}\u0000`)) this.byKey.delete(k);
  }
}
