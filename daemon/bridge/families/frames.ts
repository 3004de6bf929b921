/**
 * The frame-time tool of the bridge toolset (docs/TOOLS.md, "frame_stats"): how long the game's
 * recent frames took, read from its `GET /frames` ring (docs/CONTRACT.md), with the long ones
 * named by frame. A page this bridge opened answers the same route from the browser's measure.
 */
import { notAGameSurface, usageError } from '../../../shared/errors.js';
import { frameStatsAnswer } from '../../../shared/answers/frames.js';
import { isNoPage } from '../../game/wire.js';
import type { ToolContext } from '../../tool-framework/context.js';
import { z } from '../../tool-framework/define.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import { lacking } from '../needs.js';

/** The frame time aimed at: a frame of a game running at 60 frames a second. */
export const TARGET_MS = 1000 / 60;
/** How many long frames an answer lists (the latest; `longCount` counts them all). */
const LONG_LISTED = 50;

export interface FrameTime {
  frame: number;
  simFrame?: number;
  ms: number;
  ran?: string[];
}

const frameTime = z
  .object({
    frame: z.number(),
    simFrame: z.number().optional().catch(undefined),
    ms: z.number().min(0),
    ran: z.array(z.string().max(300)).max(20).optional().catch(undefined),
  })
  .loose();
const framesBody = z.object({
  frames: z.array(z.unknown()).transform((all) => all.flatMap((f) => frameTime.safeParse(f).data ?? [])),
  measure: z.enum(['real time', 'frame cost']).optional().catch(undefined),
});

export const frameStatsInput = z.object({
  frames: z.int().min(1).max(100_000).optional().describe('The last N frames the game kept (default: all it kept).'),
  since: z
    .int()
    .min(0)
    .optional()
    .describe("Only the frames after this one (a `frame` of an earlier answer): what a call's frames cost."),
});

/** The game's kept frame times after `since` (all without it), and how it measured them. */
export async function readFrames(
  ctx: ToolContext,
  port: number,
  since?: number,
  signal?: AbortSignal,
): Promise<{ frames: FrameTime[]; measure: 'real time' | 'frame cost' }> {
  const client = ctx.client(port);
  const ans = await client.get(`/frames${since === undefined ? '' : `?since=${since}`}`, undefined, signal);
  if (isNoPage(ans)) throw await lacking(ctx, port, 'frames', 'frame_stats');
  if (ans.status === 404) throw await lacking(ctx, port, 'frames', 'frame_stats');
  let body: z.output<typeof framesBody>;
  try {
    body = framesBody.parse(JSON.parse(ans.body.toString('utf8')));
  } catch {
    throw notAGameSurface(port, `GET /frames returned HTTP ${ans.status} that is not {"frames": [...]}`);
  }
  return { frames: body.frames, measure: body.measure ?? 'real time' };
}

/** The nearest-rank percentile of sorted times. */
const rank = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
const round = (ms: number) => Math.round(ms * 100) / 100;

/** p50/p95/p99/max, frames per second and the long frames of `frames`. */
export function frameStats(frames: FrameTime[], measure: 'real time' | 'frame cost') {
  const sorted = frames.map((f) => f.ms).sort((a, b) => a - b);
  const total = sorted.reduce((a, b) => a + b, 0);
  const long = frames.filter((f) => f.ms > 2 * TARGET_MS);
  return {
    frames: frames.length,
    ...(frames.length ? { from: frames[0].frame, to: frames[frames.length - 1].frame } : {}),
    measure,
    targetMs: round(TARGET_MS),
    p50: round(rank(sorted, 0.5)),
    p95: round(rank(sorted, 0.95)),
    p99: round(rank(sorted, 0.99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    fps: total > 0 ? round((1000 * frames.length) / total) : 0,
    longFrames: long.slice(-LONG_LISTED).map((f) => ({ ...f, ms: round(f.ms) })),
    longCount: long.length,
  };
}

export const frameStatsTool = bridgeTool({
  name: 'frame_stats',
  output: frameStatsAnswer,
  title: 'Frame times',
  description:
    'How long the recent frames took: p50/p95/p99/max in ms, frames per second, and the frames over twice the 60 fps target with their frame, simFrame and, on a page, what ran. A running game is measured in real time; a page on the bridge clock by the cost of each frame.',
  needs: 'frames',
  input: frameStatsInput,
  effect: { readOnly: true },
  player: false,
  recorded: false,
  async handler(args, ctx, { port, signal }) {
    if (args.frames !== undefined && args.since !== undefined)
      throw usageError('frame_stats: give frames (the last N) or since (after a frame), not both.');
    const { frames, measure } = await readFrames(ctx, port, args.since, signal);
    const kept = args.frames === undefined ? frames : frames.slice(-args.frames);
    return { json: frameStats(kept, measure) };
  },
});

/** The family (index.ts): its one tool, and its clause of the description. */
export const framesFamily: BridgeFamily = {
  name: 'frames',
  clause: 'and measure how long its frames take, the slow ones by frame (frame_stats)',
  tools: [frameStatsTool],
};
