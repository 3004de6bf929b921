/**
 * The agent's clock (docs/KITS.md): pause, resume, step. Each is an ordinary reserved `/command`
 * (clock.*) through command sync, on a game that declares the "clock" capability.
 */
import { usageError } from '../../../shared/errors.js';
import type { SyncResult } from '../../sync/command.js';
import { EpochWatch } from '../../sync/epoch.js';
import { conditionFrom, holds } from '../../sync/wait.js';
import { z } from '../../tool-framework/define.js';
import { shapeSync, syncCommand } from '../../tool-framework/sync-answer.js';
import { whole } from '../args.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import { syncAnswer } from '../../../shared/answers/fields.js';
import { stepAnswer } from '../../../shared/answers/clock.js';
import { advance, filmFor, filmstripArg, withFilm } from '../film.js';

/** pause: the reserved command of the same name, without arguments, answered with the state after. */
export const pause = bridgeTool({
  name: 'pause',
  output: syncAnswer,
  title: "Pause the game's clock",
  description: "Pause the game's simulation clock; the game keeps answering and applying commands.",
  needs: 'clock',
  input: z.object({}),
  effect: { readOnly: false },
  player: true,
  recorded: 'do',
  async handler(_args, ctx, call) {
    return { json: shapeSync(await syncCommand(ctx, call.port, 'clock.pause', {}, call)) };
  },
});

export const resume = bridgeTool({
  name: 'resume',
  output: syncAnswer,
  title: "Resume the game's clock",
  description:
    'Let the game\'s simulation clock run again; on a page the bridge clocks (launch.web with "kit": false), at `speed` times real time.',
  needs: 'clock',
  input: z.object({
    speed: z
      .number()
      .gt(0)
      .max(16)
      .optional()
      .describe(
        'Frames per real second as a multiple of 60 (0.25 = a quarter speed, 4 = four times); default 1, then the last one given.',
      ),
  }),
  effect: { readOnly: false },
  player: true,
  recorded: 'do',
  async handler(args, ctx, call) {
    if (args.speed !== undefined && ctx.launcher.webGame(call.port)?.record.kit !== false)
      throw usageError(
        `resume {speed}: the game on port ${call.port} runs its own clock (a kit's), which has no speed; speed is for a page the bridge clocks (launch.web with "kit": false). Call resume without speed.`,
      );
    const r = await syncCommand(
      ctx,
      call.port,
      'clock.resume',
      args.speed !== undefined ? { speed: args.speed } : {},
      call,
    );
    return { json: shapeSync(r) };
  },
});

export const step = bridgeTool({
  name: 'step',
  output: stepAnswer,
  title: 'Step the clock',
  description:
    'Simulate exactly `frames` frames, then stay paused; returns the state after. With `until` (a wait_for condition) it steps one frame at a time and stops as soon as the condition holds: ' +
    '{matched, stepped} says whether it held or the frames ran out.',
  needs: 'clock',
  input: z.object({
    frames: whole(1, 10000).describe('How many frames to simulate (1-10000); with `until`, the most it steps.'),
    until: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'A wait_for condition, e.g. {"path": "game.x", "gte": 30} or {"path": "ui.screen", "equals": "GameOver"}.',
      ),
    filmstrip: filmstripArg(),
  }),
  effect: { readOnly: false },
  player: true,
  recorded: 'do',
  async handler(args, ctx, call) {
    const { port } = call;
    const { frames } = args;
    const cond = args.until ? conditionFrom(args.until) : undefined;
    const film = await filmFor(ctx, port, 'step', frames, args.filmstrip);
    let r: SyncResult | undefined;
    const stepBy = async (from: number, to: number) => {
      r = await syncCommand(ctx, port, 'clock.step', { frames: to - from }, call);
    };
    if (!cond) {
      await advance(film, 0, frames, stepBy);
      return withFilm({ json: { stepped: frames, ...shapeSync(r!) } }, film);
    }
    // One frame at a time, so it stops on the very frame the condition first holds; a new run on the way fails it.
    const runs = cond.path === 'sessionEpoch' ? undefined : new EpochWatch(port, `step until ${cond.path}`);
    for (let stepped = 1; ; stepped++) {
      await advance(film, stepped - 1, stepped, stepBy);
      const s = r!.state;
      if (s) runs?.check(s);
      const t = s ? holds(s, cond) : { ok: false, value: undefined };
      if (t.ok || stepped >= frames) {
        await film?.endedAt(stepped);
        const json = { matched: t.ok, stepped, path: cond.path, value: t.value ?? null, ...shapeSync(r!) };
        return withFilm({ json }, film);
      }
    }
  },
});

/** The family (index.ts): its tools in describe_toolset's order, and its clause of the description. */
export const clockFamily: BridgeFamily = {
  name: 'clock',
  clause: 'and, on games that declare the "clock" capability, control the clock (pause, resume, step)',
  tools: [pause, resume, step],
};
