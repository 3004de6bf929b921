/**
 * Frame times (docs/CONTRACT.md, "GET /frames"): the wall time of each recent frame, from one
 * tick's start to the next one's, in a bounded ring the bridge reads with `GET /frames?since=N`.
 * A page's kit adds what the browser says ran in a long frame (Long Animation Frames).
 *
 * `frames.stall {ms, frame}` holds the game's thread for `ms` on frame `frame` (default: the
 * frame that applies it), so a user can see a slow frame reach frame_stats end to end.
 */
import { ArgError, type CommandArgs } from './args.js';
import type { CommandHandler } from './types.js';

/** How many frames the ring keeps: a minute at 60 frames a second. */
export const FRAMES_KEPT = 3600;
/** The longest stall one command may ask for. */
export const MAX_STALL_MS = 1000;

export interface FrameTime {
  frame: number;
  simFrame: number;
  /** wall time from this frame's tick to the next one's, in ms */
  ms: number;
  /** what the browser says ran in it (pages only) */
  ran?: string[];
}

export class FrameTimes {
  private readonly frame = new Float64Array(FRAMES_KEPT);
  private readonly sim = new Float64Array(FRAMES_KEPT);
  private readonly ms = new Float64Array(FRAMES_KEPT);
  private readonly start = new Float64Array(FRAMES_KEPT);
  private readonly ran = new Map<number, string[]>();
  private count = 0;
  private lastFrame = -1;
  private lastStart = 0;
  private stallAt = -1;
  private stallMs = 0;

  constructor(private readonly now: () => number) {}

  /** A tick starts: the previous frame's time is known now, and `simFrame`, where its simulation ended. Holds the thread when a stall is due. */
  tick(frame: number, simFrame: number): void {
    const t = this.now();
    if (this.lastFrame >= 0) {
      const i = this.count++ % FRAMES_KEPT;
      this.frame[i] = this.lastFrame;
      this.sim[i] = simFrame;
      this.ms[i] = t - this.lastStart;
      this.start[i] = this.lastStart;
    }
    this.lastFrame = frame;
    this.lastStart = t;
    if (frame === this.stallAt) this.hold();
  }

  private hold(): void {
    this.stallAt = -1;
    const until = this.now() + this.stallMs;
    while (this.now() < until); // a busy wait: a page's thread cannot sleep
  }

  /** The kept frames after `since`, oldest first. */
  since(since: number): FrameTime[] {
    const out: FrameTime[] = [];
    const n = Math.min(this.count, FRAMES_KEPT);
    for (let k = this.count - n; k < this.count; k++) {
      const i = k % FRAMES_KEPT;
      if (this.frame[i] <= since) continue;
      const f: FrameTime = { frame: this.frame[i], simFrame: this.sim[i], ms: Math.round(this.ms[i] * 1000) / 1000 };
      const ran = this.ran.get(this.frame[i]);
      if (ran) f.ran = ran;
      out.push(f);
    }
    return out;
  }

  /** What ran between `from` and `to` (ms on this clock), told of each frame that overlaps it. */
  attribute(from: number, to: number, ran: string[]): void {
    const n = Math.min(this.count, FRAMES_KEPT);
    for (let k = this.count - n; k < this.count; k++) {
      const i = k % FRAMES_KEPT;
      if (this.start[i] < to && this.start[i] + this.ms[i] > from) this.ran.set(this.frame[i], ran);
    }
    if (this.lastStart < to) this.ran.set(this.lastFrame, ran);
    const oldest = this.frame[(Math.max(0, this.count - n) % FRAMES_KEPT) | 0];
    for (const f of this.ran.keys()) if (f < oldest) this.ran.delete(f);
  }

  /** `frames.stall`, accepted by every kit. */
  stallCommand(current: () => number): CommandHandler {
    const ms = (a: CommandArgs) => {
      const v = a.number('ms');
      if (!(v >= 1 && v <= MAX_STALL_MS))
        throw new ArgError(`argument 'ms' must be from 1 to ${MAX_STALL_MS}, got ${v}`);
      return v;
    };
    return {
      validate: (a) => void ms(a),
      apply: (a) => {
        const at = a.has('frame') ? a.number('frame') : current();
        if (at < current()) throw new Error(`frame ${at} has passed (the game is at frame ${current()})`);
        this.stallMs = ms(a);
        this.stallAt = at;
        if (at === current()) this.hold();
      },
    };
  }
}

/** GET /frames?since=N: the kept frames after N (all of them without `since`). */
export function framesAnswer(times: FrameTimes, query: URLSearchParams): { status: number; body: unknown } {
  const raw = query.get('since');
  const since = raw === null ? -1 : Number(raw);
  if (!Number.isFinite(since)) return { status: 400, body: { error: `'since' must be a frame number, got '${raw}'` } };
  return { status: 200, body: { frames: times.since(since), kept: FRAMES_KEPT } };
}
