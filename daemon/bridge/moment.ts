/**
 * Back to a moment of this run (docs/TOOLS.md, "Change the code, look again at the same
 * moment"): the game this session launched is relaunched from its declaration, so edited code
 * runs, with the same seed, paused at its start; every call this session made to it since the
 * launch is made again at the frame it was made at (moment-replay.ts), up to the frame it was on
 * (launch_instance {restart, to: "here"}) or an earlier one (rewind); it is left paused there.
 * The answer names where the new run first parted from the recording. A run whose code did not
 * change and still parts cannot be reproduced: that is refused, saying so.
 */
import { usageError } from '../../shared/errors.js';
import { codePrint } from '../launcher/code-print.js';
import { restartGame, type LaunchedInstance } from '../launcher/index.js';
import type { RecordedStep } from '../recording/recordings.js';
import type { ToolContext } from '../tool-framework/context.js';
import type { ToolCallExtra } from '../tool-framework/types.js';
import { replaySteps, simOf, type MomentCall, type Parting } from './moment-replay.js';
import { requireCapabilities } from './needs.js';

export type { MomentCall, Parting };

export interface MomentRequest {
  port: number;
  /** the frame to go back to; undefined: the frame the game is on now */
  toFrame?: number;
  /** frames back from the frame the game is on now */
  back?: number;
  /** stop the replay at the first parting */
  stopAtDivergence: boolean;
  /** how the calls are made again: call_tool's dispatch */
  call: MomentCall;
  extra: ToolCallExtra;
  /** the tool, for the texts: `launch_instance {restart, to: "here"}`, `rewind` */
  tool: string;
}

const show = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'absent';
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
};

export const partingText = (p: Parting) =>
  `${p.path} was ${show(p.recorded)} in the recording and is ${show(p.now)} now, at frame ${p.frame} (after ${p.after})`;

/** A launch starts this session's recording of that game afresh (save_test writes it), with a print of its code. */
export function recordLaunch(ctx: ToolContext, inst: LaunchedInstance): void {
  const print = codePrint(inst.declaration, inst.cwd, inst.command);
  ctx.recordings.launched(ctx.sessionId, inst.port, {
    config: inst.declaration,
    ...(inst.profile !== undefined ? { profile: inst.profile } : {}),
    ...(inst.web?.seed !== undefined ? { seed: inst.web.seed } : {}),
    name: inst.name,
    version: inst.version,
    at: Date.now(),
    // what the code was, so going back to a moment can tell a changed game from an unreproducible run
    ...(print !== undefined ? { codePrint: print } : {}),
  });
}

/** The step's simFrame once it was done. */
const endOf = (s: RecordedStep) => (s.kind === 'do' ? (s.endFrame ?? s.simFrame) : s.simFrame) ?? 0;

/** What the session knows of its game before anything is changed: refusals come here. */
async function before(ctx: ToolContext, r: MomentRequest) {
  const { port } = r;
  await requireCapabilities(ctx, port, ['clock'], r.tool);
  const rec = ctx.recordings.peek(ctx.sessionId, port);
  if (!rec?.launch)
    throw usageError(
      `${r.tool}: this session did not launch the game on port ${port}, so there is no run to go back through: launch_instance {restart: ${port}} starts one from the beginning; play, then call it again.`,
      { port },
    );
  if (rec.steps.dropped)
    throw usageError(
      `${r.tool}: this session's recording on port ${port} no longer holds its first ${rec.steps.dropped} calls (it keeps the newest ones), so the run cannot be replayed from its launch; nothing was changed.`,
      { port },
    );
  const running = ctx.launcher.get(port);
  if (running && ctx.owners.ownedByAnotherLiveSession(running, ctx.sessionId))
    throw usageError(`${r.tool}: the game on port ${port} belongs to another live session; nothing was changed.`, {
      port,
    });
  const here = ((await ctx
    .client(port)
    .state(r.extra.signal)
    .catch(() => undefined)) ?? rec.last) as Record<string, unknown> | undefined;
  const hereFrame = simOf(here);
  if (hereFrame === undefined)
    throw usageError(`${r.tool}: the game on port ${port} publishes no simFrame, so it has no moment to go back to.`, {
      port,
    });
  const target = r.toFrame ?? hereFrame - (r.back ?? 0);
  if (target < 0 || target > hereFrame)
    throw usageError(
      `${r.tool}: frame ${target} is not in this run (it is at frame ${hereFrame}): give a frame from 0 to ${hereFrame}.`,
      { port },
    );
  const was = running ?? (await ctx.launcher.exitOf(port));
  const print = was ? codePrint(was.declaration, was.cwd, was.command) : undefined;
  return { rec, launch: rec.launch, here, hereFrame, target, print };
}

/** Relaunch, replay, answer; or refuse, saying why. */
export async function backTo(ctx: ToolContext, r: MomentRequest): Promise<Record<string, unknown>> {
  const { port } = r;
  const b = await before(ctx, r);
  const all = b.rec.steps.list();
  const steps = b.target === b.hereFrame ? all : all.filter((s) => endOf(s) <= b.target);
  const seenAtTarget =
    b.target === b.hereFrame ? b.here : [...steps].reverse().find((s) => s.state && simOf(s.state) === b.target)?.state;
  // equal prints: nothing was changed, so a parting proves the run cannot be reproduced
  const unchanged = b.print !== undefined && b.print === b.launch.codePrint;
  const t0 = Date.now();
  const { inst, previous } = await restartGame(ctx.launcher, port, {
    env: ctx.config.env,
    owner: ctx.sessionId,
    signal: r.extra.signal,
    paused: true,
    ...(b.launch.seed !== undefined ? { seed: b.launch.seed } : {}),
  });
  const fresh = ctx.recordings.launched(ctx.sessionId, port, {
    ...b.launch,
    at: Date.now(),
    ...(b.print !== undefined ? { codePrint: b.print } : {}),
  });
  const run = await replaySteps(ctx, port, steps, b.target, {
    call: r.call,
    extra: r.extra,
    stopAtParting: r.stopAtDivergence || unchanged,
    ...(seenAtTarget ? { seenAtTarget } : {}),
  });
  for (const s of run.steps) fresh.keep(s);
  const ms = Date.now() - t0;
  if (run.parting && unchanged)
    throw usageError(
      `${r.tool}: the replay parted at frame ${run.parting.frame} before reaching frame ${b.target}, and nothing was changed (the game's files are as they were at its launch): ` +
        `${partingText(run.parting)}. This run cannot be reproduced from its recording: an input made while its clock ran, or a game that reads the wall clock or an unseeded random. ` +
        `The game is relaunched and paused at frame ${run.frame}.`,
      { port },
    );
  const gameMs = (run.frame * 1000) / 60;
  return {
    port: inst.port,
    pid: inst.pid,
    previous,
    frame: run.frame,
    target: b.target,
    reached: run.frame === b.target,
    parting: run.parting ?? null,
    codeChanged: b.print === undefined || b.launch.codePrint === undefined ? null : !unchanged,
    replayed: { calls: run.calls, ms, ratio: gameMs ? Math.round((ms / gameMs) * 1000) / 1000 : 0 },
    state: run.state,
    summary:
      `Relaunched port ${port} and replayed ${run.calls} call${run.calls === 1 ? '' : 's'} to frame ${run.frame} in ${ms} ms; paused there. ` +
      (run.parting
        ? `The new run first parted from the recording: ${partingText(run.parting)}.`
        : 'The new run matches the recording at every state it kept.'),
  };
}
