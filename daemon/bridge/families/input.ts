/**
 * The held-input tools (docs/KITS.md): press, hold, release. Each is an ordinary reserved
 * `/command` (input.*) through command sync; the owner of a held input is this MCP session,
 * and the daemon remembers what it holds (play/held.ts). On a page this daemon opened, an input
 * the game does not declare is sent by the browser instead (browser-input.ts).
 */
import { getPath } from '../../sync/path.js';
import { FrameCount } from '../../sync/frames.js';
import { z } from '../../tool-framework/define.js';
import { shapeSync, syncCommand } from '../../tool-framework/sync-answer.js';
import { inputName, whole } from '../args.js';
import { browserFor, browserHold, browserPress, browserRelease } from '../browser-input.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import { holdAnswer, pressAnswer, releaseAnswer } from '../../../shared/answers/input.js';
import { advance, filmFor, filmstripArg, withFilm } from '../film.js';
import { RELEASE_NEEDS } from '../gesture-plans.js';
import { HELD_CAPABILITIES } from '../../../shared/capabilities.js';
import { capabilitiesOf, lacking } from '../needs.js';
import { inputOf, pausedNote, simFrameOf } from '../play.js';

/** A press holds its input at most this long on the game's side, whatever happens to us meanwhile. */
const PRESS_LEASE_MS = 60000;

export const press = bridgeTool({
  name: 'press',
  output: pressAnswer,
  title: 'Press an input',
  description:
    'Press an input: hold it, let `frames` simulation frames pass (stepping the clock when the game is paused), release it; returns the state after.',
  needs: 'input',
  input: z.object({
    input: inputName(),
    frames: whole(1, 600).default(1).describe('How many simulation frames to hold it (1-600).'),
    filmstrip: filmstripArg(),
  }),
  effect: { readOnly: false },
  player: true,
  recorded: 'do',
  async handler(args, ctx, call) {
    const { port } = call;
    const input = inputOf('press', args.input);
    const frames = args.frames;
    const film = await filmFor(ctx, port, 'press', frames, args.filmstrip);
    const web = await browserFor(ctx, port, input);
    if (web) return withFilm(await browserPress(ctx, web, port, input, frames, PRESS_LEASE_MS, call, film), film);
    const owner = ctx.sessionId;
    const paused = getPath(await ctx.client(port).state(call.signal), 'clock.paused') === true;
    ctx.held.hold(port, owner, input, PRESS_LEASE_MS);
    try {
      const held = await syncCommand(ctx, port, 'input.hold', { input, owner, leaseMs: PRESS_LEASE_MS }, call, !paused);
      if (paused) {
        // A step holds back the commands after it, so hold, step N, release hold it for exactly N frames.
        // A film's picture waits for its step to be confirmed.
        await advance(film, 0, frames, (from, to) =>
          syncCommand(ctx, port, 'clock.step', { frames: to - from }, call, film !== undefined),
        );
      } else {
        const from = simFrameOf(held.state) ?? { path: 'frame', value: 0 };
        const count = new FrameCount(ctx.client(port), from.path, from.value, {
          timeoutMs: ctx.config.timeoutMs,
          signal: call.signal,
          generation: ctx.generation(port),
        });
        await advance(film, 0, frames, (_, to) => count.until(to));
      }
    } finally {
      ctx.held.released(port, owner, input);
    }
    const r = await syncCommand(ctx, port, 'input.release', { input, owner }, call);
    return withFilm({ json: { input, frames, ...shapeSync(r) } }, film);
  },
});

export const hold = bridgeTool({
  name: 'hold',
  output: holdAnswer,
  title: 'Hold an input',
  description:
    'Hold an input for this session for `ms` milliseconds (the game releases it itself when that runs out, even if the bridge is gone). Holding again renews it. The bridge releases it when this session ends.',
  needs: 'input',
  input: z.object({
    input: inputName(),
    ms: whole(1, 3600000).describe('How long to hold it, in milliseconds (1-3600000).'),
  }),
  effect: { readOnly: false },
  player: true,
  recorded: 'do',
  async handler(args, ctx, call) {
    const { port } = call;
    const input = inputOf('hold', args.input);
    const web = await browserFor(ctx, port, input);
    if (web) return browserHold(ctx, web, port, input, args.ms, call);
    ctx.held.hold(port, ctx.sessionId, input, args.ms);
    const r = await syncCommand(ctx, port, 'input.hold', { input, owner: ctx.sessionId, leaseMs: args.ms }, call);
    return { json: { input, ms: args.ms, ...shapeSync(r), ...pausedNote(r.state) } };
  },
});

export const release = bridgeTool({
  name: 'release',
  output: releaseAnswer,
  title: 'Release inputs',
  description:
    "Release an input this session holds (an axis rests at 0), or everything it holds when `input` is left out: held inputs, axes, pointer buttons and touches. Never touches another session's inputs.",
  needs: RELEASE_NEEDS,
  input: z.object({ input: inputName().optional() }),
  effect: { readOnly: false },
  player: true,
  recorded: 'do',
  async handler(args, ctx, call) {
    const { port } = call;
    const input = args.input === undefined || args.input === '' ? undefined : inputOf('release', args.input);
    const caps = await capabilitiesOf(ctx, port);
    const axis = input !== undefined && (await ctx.manifest(port)).game.axes?.some((a) => a.name === input) === true;
    const web = axis ? undefined : await browserFor(ctx, port, input);
    // What the kit holds for an owner: held inputs, axes, pointer buttons, touches.
    const kitHolds = HELD_CAPABILITIES.some((c) => caps.includes(c));
    // Everything this session holds on a page: its browser inputs, then its kit's when the game has any.
    if (web && (input !== undefined || !kitHolds)) return browserRelease(ctx, web, port, input, call);
    if (web) await web.hands.release(ctx.sessionId);
    // A named input that is no axis is a held input: a game without them is told so before anything is sent.
    if (input !== undefined && !axis && !caps.includes('input'))
      throw await lacking(ctx, port, 'input', 'release', caps);
    const owner = ctx.sessionId;
    const r =
      input === undefined
        ? await syncCommand(ctx, port, 'input.releaseAll', { owner }, call)
        : await syncCommand(ctx, port, 'input.release', { input, owner }, call);
    ctx.held.released(port, owner, input);
    return { json: { released: input ?? 'everything this session holds', ...shapeSync(r) } };
  },
});

/** The family (index.ts): its tools in describe_toolset's order, and its clause of the description. */
export const inputFamily: BridgeFamily = {
  name: 'input',
  clause: 'and, on games that declare the "input" capability, hold inputs (press, hold, release)',
  tools: [press, hold, release],
};
