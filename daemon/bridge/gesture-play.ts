/**
 * Plays a plan of device moves (gestures.ts) on the game: on a paused clock the moves of each
 * frame, then a step to the next frame that has any; running, each frame's moves once the game
 * reaches that frame (a click on a kit is one input.click there, pressed and lifted on the kit's
 * own ticks). A move the kit takes is its reserved command, recorded as held by this
 * session (play/held.ts) so it is released when the session goes; any other, on a page this
 * daemon opened, is a real Chromium event (web/page-input.ts), a held button owned through the
 * page's OwnedHands.
 */
import type { State } from '../game/client.js';
import type { WebGame } from '../launcher/web-game.js';
import { getPath } from '../sync/path.js';
import { FrameCount } from '../sync/frames.js';
import type { ToolContext } from '../tool-framework/context.js';
import { shapeSync, syncCommand } from '../tool-framework/sync-answer.js';
import type { ToolCallExtra } from '../tool-framework/types.js';
import { mouseClick, mouseMove, mouseWheel, touch, typeText } from '../web/page-input.js';
import { isBridgeError, usageError } from '../../shared/errors.js';
import {
  BUTTON_BIT,
  clickMoves,
  lengthOf,
  MAX_MOVES,
  PLAN_LEASE_MS,
  toKit,
  type Move,
  type Target,
  type Timed,
} from './gestures.js';
import { advance, type Film } from './film.js';
import { simFrameOf } from './play.js';

/**
 * Plays `plan` on the game: on a paused clock, the moves of each frame, then a step to the
 * next frame that has any; running, each frame's moves once the game reaches that frame.
 * Answers with the state after the last move.
 */
export async function play(
  ctx: ToolContext,
  t: Target,
  plan: Timed[],
  extra: ToolCallExtra,
  film?: Film,
): Promise<Record<string, unknown>> {
  const kitClick = (p: Timed) => p.move.k === 'click' && toKit(t, p.move);
  const moves = plan.flatMap((p) => (p.move.k === 'click' && kitClick(p) ? clickMoves(p.frame, p.move) : [p]));
  if (moves.length > MAX_MOVES)
    throw usageError(`this would send ${moves.length} moves; at most ${MAX_MOVES} in one call: split it.`);
  const { port } = t;
  const client = ctx.client(port);
  const before = await client.state(extra.signal);
  const paused = getPath(before, 'clock.paused') === true && t.caps.includes('clock');
  // Running, a kit that takes input.click presses and lifts on its own ticks and answers after
  // the press, a frame sooner than press and lift sent apart. Paused, the kit's ticks simulate
  // nothing, so the bridge plays the moves and steps the frame between them itself.
  if (paused || !plan.some(kitClick) || !(await takesClick(ctx, port))) plan = moves;
  plan = [...plan].sort((a, b) => a.frame - b.frame);
  // Running, each frame's moves wait for the game's ticks, `frame`: a game whose own simulated
  // frames stop on a menu still ticks there, and applies commands on each tick.
  const start = typeof before.frame === 'number' ? { path: 'frame', value: before.frame } : simFrameOf(before);
  const frames = [...new Set(plan.map((p) => p.frame))].sort((a, b) => a - b);
  // On a kit alone, commands queue behind a step, so a paused plan is sent without waiting
  // between frames and only its last command is confirmed (it completes after all the others).
  const batched = paused && plan.every((p) => toKit(t, p.move));
  const owner = ctx.sessionId;
  const lastKit = plan.reduce((i, p, j) => (toKit(t, p.move) ? j : i), -1);
  let last: Awaited<ReturnType<typeof syncCommand>> | undefined;
  let at = 0;
  const waitOpts = { timeoutMs: ctx.config.timeoutMs, signal: extra.signal, generation: ctx.generation(port) };
  const ran = start && new FrameCount(client, start.path, start.value, waitOpts);
  const mouseDown = new Set<string>();
  try {
    for (const f of frames) {
      if (f > at) {
        // A film's picture waits for its step to be confirmed.
        await advance(film, at, f, (from, to) =>
          paused
            ? syncCommand(ctx, port, 'clock.step', { frames: to - from }, extra, !batched || film !== undefined)
            : (ran?.until(to) ?? Promise.resolve()),
        );
        at = f;
      }
      for (const p of plan.filter((q) => q.frame === f)) {
        if (!toKit(t, p.move)) {
          await onPage(t.web!, owner, p.move, mouseDown);
          continue;
        }
        const [cmd, args] = kitCommand(ctx, port, owner, p.move);
        // Between browser events each command is confirmed, so the two keep their order.
        const confirm = p === plan[lastKit] || (paused && !batched);
        const r = await syncCommand(ctx, port, cmd, args, extra, confirm);
        if (confirm) last = r;
      }
    }
  } catch (e) {
    // A gesture cut short lifts what it pressed, so nothing stays down.
    for (const name of mouseDown) await t.web?.hands.release(owner, name).catch(() => undefined);
    throw e;
  }
  const browser = plan.some((p) => !toKit(t, p.move));
  return {
    frames: lengthOf(moves),
    via: browser ? 'browser' : 'game',
    grid: t.grid,
    ...(last && !browser ? shapeSync(last) : summary(await client.state(extra.signal))),
  };
}

/** Whether the game process on each port takes input.click: a kit from before it refuses it as unknown. */
const clickTakers = new Map<number, { run: string; takes: boolean }>();

/**
 * Asks once per game process, with an input.click that has no arguments: a kit that knows the
 * command refuses it for a missing argument, one that does not refuses it as unknown. Only a
 * refusal that names a missing argument counts as a yes: a hand-written game may refuse an
 * unknown command in other words, or accept any command, and its clicks then still work as a
 * press and a lift sent apart.
 */
export async function takesClick(ctx: Pick<ToolContext, 'client' | 'generation'>, port: number): Promise<boolean> {
  const run = String(ctx.generation(port)());
  const asked = clickTakers.get(port);
  if (asked?.run === run) return asked.takes;
  const takes = await ctx
    .client(port)
    .command('input.click', {})
    .then(
      () => false,
      (e: unknown) => {
        if (!isBridgeError(e) || e.data.kind !== 'CommandRejected') throw e;
        const { known, reason } = e.data as { known?: unknown; reason?: unknown };
        const unknown = /unknown command/i.test(String(reason)) || (Array.isArray(known) && known.length > 0);
        return !unknown && /\bargument\b/i.test(String(reason));
      },
    );
  clickTakers.set(port, { run, takes });
  return takes;
}

/** What an answer carries of a state read after the action (the bridge confirmed no command of its own). */
export function summary(s: State): Record<string, unknown> {
  return {
    ...(typeof s.frame === 'number' ? { frame: s.frame } : {}),
    ...(typeof s.sessionEpoch === 'number' ? { sessionEpoch: s.sessionEpoch } : {}),
    ...(getPath(s, 'ui.screen') !== undefined ? { screen: getPath(s, 'ui.screen') } : {}),
    ...(s.game !== undefined ? { game: s.game } : {}),
  };
}

/** The reserved command a move is on a kit, recording what this session now holds. */
function kitCommand(ctx: ToolContext, port: number, owner: string, m: Move): [string, Record<string, unknown>] {
  switch (m.k) {
    case 'pointer': {
      const was = ctx.held.pointerOf(port, owner)?.buttons ?? 0;
      const buttons = (was | (m.press ? BUTTON_BIT[m.press] : 0)) & ~(m.lift ? BUTTON_BIT[m.lift] : 0);
      ctx.held.pointerAt(port, owner, m.x, m.y, buttons);
      return ['input.pointer', { x: m.x, y: m.y, buttons, owner }];
    }
    case 'click': {
      // The kit lifts what the click pressed: the owner's buttons end as they were.
      const was = ctx.held.pointerOf(port, owner)?.buttons ?? 0;
      ctx.held.pointerAt(port, owner, m.x, m.y, was);
      return ['input.click', { x: m.x, y: m.y, button: BUTTON_BIT[m.button], count: m.count, owner }];
    }
    case 'wheel':
      return ['input.wheel', { dx: m.dx, dy: m.dy, owner }];
    case 'touch':
      if (m.phase === 'up') ctx.held.released(port, owner, `touch:${m.id}`);
      else ctx.held.hold(port, owner, `touch:${m.id}`, 3_600_000);
      return ['input.touch', { id: m.id, x: m.x, y: m.y, phase: m.phase, owner }];
    case 'axis':
      ctx.held.hold(port, owner, m.input, m.leaseMs);
      return ['input.axis', { input: m.input, value: m.value, owner, leaseMs: m.leaseMs }];
    case 'rest':
      ctx.held.released(port, owner, m.input);
      return ['input.release', { input: m.input, owner }];
    case 'text':
      return ['input.text', { text: m.text, owner }];
    case 'key':
      if (m.down) {
        ctx.held.hold(port, owner, m.input, m.leaseMs);
        return ['input.hold', { input: m.input, owner, leaseMs: m.leaseMs }];
      }
      ctx.held.released(port, owner, m.input);
      return ['input.release', { input: m.input, owner }];
  }
}

/** The touch points this page has down, by id, across the moves of one call. */
const pageTouches = new WeakMap<WebGame, Map<number, { id: number; x: number; y: number }>>();

/** One move as real Chromium events. */
async function onPage(web: WebGame, owner: string, m: Move, mouseDown: Set<string>): Promise<void> {
  const page = web.browser.page;
  switch (m.k) {
    case 'pointer': {
      const held = web.hands.held().find((h) => h.owner === owner && h.input.startsWith('mouse:'));
      if (m.press) {
        const name = `mouse:${m.press}@${m.x},${m.y}`;
        await web.hands.hold(owner, name, PLAN_LEASE_MS * 60);
        mouseDown.add(name);
      } else await mouseMove(page, m.x, m.y);
      if (m.lift) {
        const name =
          web.hands.held().find((h) => h.owner === owner && h.input.startsWith(`mouse:${m.lift}@`))?.input ??
          held?.input;
        if (name) {
          await web.hands.release(owner, name);
          mouseDown.delete(name);
        }
      }
      return;
    }
    case 'click':
      return mouseClick(page, m.x, m.y, m.button, m.count);
    case 'wheel':
      return mouseWheel(page, m.dx, m.dy);
    case 'touch': {
      let down = pageTouches.get(web);
      if (!down) pageTouches.set(web, (down = new Map()));
      const type = m.phase === 'up' ? 'touchEnd' : down.has(m.id) || m.phase === 'move' ? 'touchMove' : 'touchStart';
      if (m.phase === 'up') down.delete(m.id);
      else down.set(m.id, { id: m.id, x: m.x, y: m.y });
      return touch(page, type, [...down.values()]);
    }
    case 'text':
      return typeText(page, m.text);
    case 'key':
      if (m.down) await web.hands.hold(owner, m.input, m.leaseMs);
      else await web.hands.release(owner, m.input);
      return;
    case 'axis':
    case 'rest':
      throw new Error('an axis goes to the kit');
  }
}
