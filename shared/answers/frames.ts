/** What the frame-time tools answer (docs/TOOLS.md is written from these). */
import { z } from './fields.js';

/** One frame over twice the target, as frame_stats lists it. */
export const longFrame = z
  .object({
    frame: z.number().describe("the game's frame (`frame` of /health)"),
    simFrame: z.number().optional().describe('the simulation frame it ended on *(when the game counts them)*'),
    ms: z.number().describe('its time in ms'),
    drawMs: z.number().optional().describe('the part of it spent drawing *(when the kit can tell: LÖVE)*'),
    ran: z
      .array(z.string())
      .optional()
      .describe(
        "what the browser says ran in it, longest first: `invoker function url:char` *(when the page's browser tells)*",
      ),
  })
  .loose();

/** What frame_stats answers. */
export const frameStatsAnswer = z
  .object({
    frames: z.number().describe('how many frames were measured (0: none kept yet after `since`)'),
    from: z.number().optional().describe('the first frame measured *(when any)*'),
    to: z.number().optional().describe('the last frame measured *(when any)*'),
    measure: z
      .enum(['real time', 'frame cost'])
      .describe(
        '`real time`: each frame from its tick to the next one (a running game, or a stepped game on its own loop); `frame cost`: the wall time the page took to run each virtual frame (a page on the bridge clock)',
      ),
    targetMs: z.number().describe('the frame time aimed at: 1000/60 ms'),
    p50: z.number().describe('the median frame time, ms'),
    p95: z.number().describe('95% of frames took at most this, ms'),
    p99: z.number().describe('99% of frames took at most this, ms'),
    max: z.number().describe('the longest frame, ms'),
    fps: z.number().describe('frames per second these frames make (1000 × frames / their total ms)'),
    longFrames: z
      .array(longFrame)
      .describe('the frames over twice the target, in frame order (the last 50 when more; `longCount` has them all)'),
    longCount: z.number().describe('how many frames were over twice the target'),
  })
  .loose();
