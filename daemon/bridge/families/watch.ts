/**
 * watch: let frames pass and see them, as one contact sheet (film.ts). On a paused clock the
 * frames are stepped, each tile exactly at its frame; on a running one the bridge waits while
 * the game runs them and takes each picture as soon as its frame is reached.
 */
import { watchAnswer } from '../../../shared/answers/film.js';
import { usageError } from '../../../shared/errors.js';
import { MAX_TILES } from '../../film/sheet.js';
import type { SyncResult } from '../../sync/command.js';
import { FrameCount } from '../../sync/frames.js';
import { getPath } from '../../sync/path.js';
import { z } from '../../tool-framework/define.js';
import { shapeSync, syncCommand } from '../../tool-framework/sync-answer.js';
import { whole } from '../args.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import { Film } from '../film.js';
import { summary } from '../gesture-play.js';
import { simFrameOf } from '../play.js';

export const watch = bridgeTool({
  name: 'watch',
  title: 'Watch frames pass',
  description: `Let \`frames\` frames pass (stepped when the clock is paused, waited for while it runs) and answer with the state after and one contact sheet of what passed: a tile every \`every\` frames, each labelled with its simFrame, in order (at most ${MAX_TILES} tiles).`,
  needs: 'screenshot',
  output: watchAnswer,
  input: z.object({
    frames: whole(1, 10000).describe('How many frames to let pass (1-10000).'),
    every: whole(1, 10000)
      .optional()
      .describe(`A tile every this many frames; default: as few as keep the sheet within ${MAX_TILES} tiles.`),
  }),
  effect: { readOnly: false },
  player: true,
  // A look, as a screenshot is: a frame-exact replay steps to the next call's frame by itself.
  recorded: false,
  async handler(args, ctx, call) {
    const { port } = call;
    const { frames } = args;
    const every = args.every ?? Math.ceil(frames / MAX_TILES);
    const tiles = Math.floor(frames / every);
    if (tiles < 1 || tiles > MAX_TILES)
      throw usageError(
        `watch: ${frames} frames with a tile every ${every} makes ${tiles} tiles, and a sheet holds 1 to ${MAX_TILES}. ` +
          `Give every from ${Math.ceil(frames / MAX_TILES)} to ${frames}, or leave it out.`,
      );
    const film = await Film.of(
      ctx,
      port,
      'watch',
      Array.from({ length: tiles }, (_, k) => (k + 1) * every),
    );
    const client = ctx.client(port);
    const before = await client.state(call.signal);
    const paused = getPath(before, 'clock.paused') === true;
    let last: SyncResult | undefined;
    if (paused) {
      await film.advance(0, frames, async (from, to) => {
        last = await syncCommand(ctx, port, 'clock.step', { frames: to - from }, call);
      });
    } else {
      const from = simFrameOf(before);
      if (!from)
        throw usageError(
          `watch: the game on port ${port} publishes no frame count (simFrame or frame), so there is no telling when frames pass. Take screenshots instead.`,
        );
      // Each tile's wait may take as long as its frames take to run, twice over, on a slow machine.
      const timeoutMs = Math.max(ctx.config.timeoutMs, Math.ceil((every * 1000) / 60) * 2);
      const count = new FrameCount(client, from.path, from.value, {
        timeoutMs,
        signal: call.signal,
        generation: ctx.generation(port),
      });
      await film.advance(0, frames, (_, to) => count.until(to));
    }
    const after = last ? shapeSync(last) : summary(await client.state(call.signal));
    return film.addTo({ json: { watched: frames, every, paused, ...after } });
  },
});

/** The family (index.ts): its one tool, and its clause of the description. */
export const watchFamily: BridgeFamily = {
  name: 'watch',
  clause: 'and, on games that can take a screenshot, watch frames pass as one contact sheet (watch)',
  tools: [watch],
};
