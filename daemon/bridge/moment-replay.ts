/**
 * The replay under a restart to a moment (moment.ts): on a game relaunched paused, each recorded
 * call made again at the frame it was made at, the clock stepped in one batch from one call to
 * the next (the agent's own pause, resume and step are frames, not calls), and each state the
 * recording kept compared with the new run's at the same frame. The first that differs is the
 * parting, named as `test --compare` names one (shared/state-parting.ts).
 */
import type { RecordedStep } from '../recording/recordings.js';
import { replayArgs } from '../recording/save.js';
import { firstDifference } from '../../shared/state-parting.js';
import type { ToolContext } from '../tool-framework/context.js';
import type { ToolCallExtra } from '../tool-framework/types.js';
import { syncCommand } from '../tool-framework/sync-answer.js';

/** How the replay makes a recorded call: call_tool's own dispatch, so each reaches the game as it did. */
export type MomentCall = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

type State = Record<string, unknown>;

/**
 * Left out of the comparison beside what always differs: the bridge's own clock fields (paused
 * or not is how the agent drove it, not what the game did) and the recent events, which a kit
 * ages by frames drawn in wall time, so they depend on how long the agent took between calls.
 */
export const MOMENT_IGNORED = ['clock', 'events'];

/** The most frames one clock.step is asked for. */
const MAX_STEP = 10000;

/** The bridge's clock tools: frames, not calls, for a replay that holds the clock itself. */
const CLOCK = new Set(['pause', 'resume', 'step']);

export interface Parting {
  /** the first path where the new run's state differs from the recorded one */
  path: string;
  recorded: unknown;
  now: unknown;
  /** the simFrame both states were read at */
  frame: number;
  /** the recorded call after which they were read (or `here`: the moment gone back to) */
  after: string;
}

export interface Replayed {
  frame: number;
  state: State;
  parting?: Parting;
  /** the steps as the new run made them, for the session's recording */
  steps: RecordedStep[];
  calls: number;
  /** the index of the step stopBefore stopped at */
  stoppedAt?: number;
}

export const simOf = (s: unknown): number | undefined => {
  const o = s as State | undefined;
  const v = o?.simFrame ?? o?.frame;
  return typeof v === 'number' ? v : undefined;
};

const bare = (name: string) => (name.startsWith('bridge.') ? name.slice(7) : name);
/**
 * The bridge's pause and resume are never made again (the replay holds the clock), nor a step
 * whose end frame the recording knows (its frames are stepped where the next call needs them);
 * a saved test's step, whose end is not written, is made again where it stands.
 */
const isClockMove = (s: Extract<RecordedStep, { kind: 'do' }>) =>
  CLOCK.has(bare(s.name)) &&
  (s.answer?.via === 'bridge' || s.name.startsWith('bridge.')) &&
  (bare(s.name) !== 'step' || s.endFrame !== undefined);

export const stepLabel = (s: RecordedStep): string =>
  s.kind === 'do'
    ? `${s.name}${Object.keys(replayArgs(s)).length ? ` ${JSON.stringify(replayArgs(s))}` : ''}${s.simFrame !== undefined ? ` @${s.simFrame}` : ''}`
    : `${s.tool} ${JSON.stringify(s.condition)}`;

export interface ReplayOptions {
  call: MomentCall;
  extra: ToolCallExtra;
  /** stop at the first parting */
  stopAtParting: boolean;
  /** the state the agent saw at the target frame, if any: the end is compared with it */
  seenAtTarget?: State;
  /** asked before each step, at its frame, with the state there: true stops the replay before it */
  stopBefore?: (s: RecordedStep, index: number, state: State) => boolean;
}

/** Replay `steps` on the paused game on `port`, then step it to `target`. */
export async function replaySteps(
  ctx: ToolContext,
  port: number,
  steps: RecordedStep[],
  target: number,
  o: ReplayOptions,
): Promise<Replayed> {
  const client = ctx.client(port);
  const rec = ctx.recordings.of(ctx.sessionId, port);
  let state = (await client.state(o.extra.signal)) as State;
  if ((state.clock as State | undefined)?.paused !== true)
    state = (await syncCommand(ctx, port, 'clock.pause', {}, o.extra)).state ?? state;
  let now = simOf(state) ?? 0;
  let parting: Parting | undefined;
  let calls = 0;
  const kept: RecordedStep[] = [];
  const advance = async (to: number) => {
    while (now < to) {
      const r = await syncCommand(ctx, port, 'clock.step', { frames: Math.min(MAX_STEP, to - now) }, o.extra);
      state = r.state ?? ((await client.state(o.extra.signal)) as State);
      const next = simOf(state) ?? now;
      // a game that does not count these frames (a menu): the calls go on from where it is
      if (next <= now) return;
      now = next;
    }
  };
  const compare = (recorded: State | undefined, after: string) => {
    if (parting || !recorded || simOf(recorded) !== now) return;
    const d = firstDifference(recorded, state, MOMENT_IGNORED);
    if (d) parting = { path: d.path, recorded: d.a ?? null, now: d.b ?? null, frame: now, after };
  };
  let stoppedAt: number | undefined;
  for (const [i, s] of steps.entries()) {
    if (parting && o.stopAtParting) break;
    if (s.simFrame !== undefined) await advance(s.simFrame);
    if (o.stopBefore?.(s, i, state)) {
      stoppedAt = i;
      break;
    }
    if (s.kind === 'do' && !isClockMove(s)) {
      const before = rec.last;
      await o.call(s.name, replayArgs(s));
      calls++;
      state = rec.last !== before && rec.last ? rec.last : ((await client.state(o.extra.signal)) as State);
      now = simOf(state) ?? now;
    } else if (s.kind === 'do' && s.state && s.endFrame !== undefined) {
      // the agent's step: its frames are stepped only when the recording kept a state to compare after it
      await advance(s.endFrame);
    }
    compare(s.state, stepLabel(s));
    kept.push({ ...s, at: Date.now(), ...(s.state ? { state } : {}) } as RecordedStep);
  }
  if (!(parting && o.stopAtParting) && stoppedAt === undefined) {
    await advance(target);
    compare(o.seenAtTarget, 'here');
  }
  rec.last = state;
  return { frame: now, state, parting, steps: kept, calls, ...(stoppedAt !== undefined ? { stoppedAt } : {}) };
}
