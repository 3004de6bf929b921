/**
 * press, hold and release on a page this daemon opened (docs/CONTRACT.md, "Browser games"):
 * real keyboard, mouse and touch events sent through Chromium, with no game code. An input the
 * game declares (its manifest's game.inputs) still goes to the game's kit; any other name is
 * a browser input: a DOM key name ('ArrowLeft', 'Space'), 'mouse:left@x,y' or 'tap@x,y'.
 * The held input belongs to this MCP session, like a kit's (web/owned-hands.ts).
 */
import { usageError } from '../../shared/errors.js';
import type { State } from '../game/client.js';
import type { WebGame } from '../launcher/web-game.js';
import { getPath } from '../sync/path.js';
import { FrameCount } from '../sync/frames.js';
import { INPUT_FORMS } from '../web/inputs.js';
import { OwnedHands } from '../web/owned-hands.js';
import { clockAdvance } from '../web/page-clock.js';
import type { ToolContext } from '../tool-framework/context.js';
import { syncCommand } from '../tool-framework/sync-answer.js';
import type { ToolAnswer, ToolCallExtra } from '../tool-framework/types.js';
import { advance, type Film, type Go } from './film.js';
import { pausedNote } from './play.js';

/** The page to send `input` to, or undefined when the game's kit takes it (or no browser of ours shows the game). */
export async function browserFor(
  ctx: ToolContext,
  port: number,
  input: string | undefined,
): Promise<WebGame | undefined> {
  const web = ctx.launcher.webGame(port);
  if (!web) return undefined;
  if (input === undefined) return web;
  const declared = (await ctx.manifest(port)).game.inputs ?? [];
  if (declared.includes(input)) return undefined;
  if (!OwnedHands.accepts(input)) {
    throw usageError(
      `'${input}' is neither an input the game declares (${declared.length ? declared.join(', ') : 'it declares none'}) nor one the browser can send: use ${INPUT_FORMS}.`,
    );
  }
  return web;
}

/**
 * The state after an input, which the session's recording dates the input by (a saved test
 * replays it at that frame); a page without the kit reads it without its tree, which the
 * answer does not carry.
 */
async function stateAfter(ctx: ToolContext, web: WebGame, port: number, extra: ToolCallExtra): Promise<State> {
  const state = await (web.standIn ? web.standIn.brief() : ctx.client(port).state(extra.signal));
  ctx.recordings.of(ctx.sessionId, port).last = state;
  return state;
}

/** What a browser-input answer says about the game after it. */
function after(s: State): Record<string, unknown> {
  return {
    ...(typeof s.frame === 'number' ? { frame: s.frame } : {}),
    ...(typeof s.sessionEpoch === 'number' ? { sessionEpoch: s.sessionEpoch } : {}),
    ...(getPath(s, 'ui.screen') !== undefined ? { screen: getPath(s, 'ui.screen') } : {}),
    ...(s.game !== undefined ? { game: s.game } : {}),
  };
}

/**
 * Down, N frames of the page (stepped when its clock is paused), up; answers with the state
 * after. The frames are the page's own (`frame`), not its simulation's: a key reaches a menu
 * whose simulation stands still. A page the bridge clocks is waited on in the page itself.
 */
export async function browserPress(
  ctx: ToolContext,
  web: WebGame,
  port: number,
  input: string,
  frames: number,
  leaseMs: number,
  extra: ToolCallExtra,
  film?: Film,
): Promise<ToolAnswer> {
  const client = ctx.client(port);
  const { standIn } = web;
  const before = standIn ? undefined : await client.state(extra.signal);
  const paused = getPath(before, 'clock.paused') === true;
  const count =
    !standIn && !paused && typeof before?.frame === 'number'
      ? new FrameCount(client, 'frame', before.frame, {
          timeoutMs: ctx.config.timeoutMs,
          signal: extra.signal,
          generation: ctx.generation(port),
        })
      : undefined;
  const go: Go = standIn
    ? (from, to) => clockAdvance(web.browser.page, to - from)
    : paused
      ? (from, to) => syncCommand(ctx, port, 'clock.step', { frames: to - from }, extra)
      : count
        ? (_, to) => count.until(to)
        : (from, to) => new Promise((r) => setTimeout(r, Math.ceil(((to - from) * 1000) / 60)));
  await web.hands.hold(ctx.sessionId, input, leaseMs);
  try {
    await advance(film, 0, frames, go);
  } finally {
    await web.hands.release(ctx.sessionId, input);
  }
  return { json: { input, frames, via: 'browser', ...after(await stateAfter(ctx, web, port, extra)) } };
}

/** Holds a browser input for `ms` (its lease), owned by this session. */
export async function browserHold(
  ctx: ToolContext,
  web: WebGame,
  port: number,
  input: string,
  ms: number,
  extra: ToolCallExtra,
): Promise<ToolAnswer> {
  await web.hands.hold(ctx.sessionId, input, ms);
  const state = await stateAfter(ctx, web, port, extra);
  return {
    json: { input, ms, via: 'browser', held: heldBy(ctx, web), ...after(state), ...pausedNote(state) },
  };
}

/** Releases one browser input of this session, or all of them. */
export async function browserRelease(
  ctx: ToolContext,
  web: WebGame,
  port: number,
  input: string | undefined,
  extra: ToolCallExtra,
): Promise<ToolAnswer> {
  const released = await web.hands.release(ctx.sessionId, input);
  return {
    json: {
      released: input ?? 'everything this session holds',
      inputs: released,
      via: 'browser',
      ...after(await stateAfter(ctx, web, port, extra)),
    },
  };
}

const heldBy = (ctx: ToolContext, web: WebGame) =>
  web.hands
    .held()
    .filter((h) => h.owner === ctx.sessionId)
    .map((h) => h.input);
