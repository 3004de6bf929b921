/**
 * How the pointer, touch, axis and text tools act (pointer.ts): each call is planned as a list
 * of device moves at frame offsets (a drag is a press, one move a frame, a lift:
 * gesture-plans.ts), and the plan is played on the game's clock (gesture-play.ts). On a paused clock each move is applied at its frame exactly,
 * the clock stepped between them; on a running one each waits for its frame, as close as real
 * time allows. A move goes to the game's kit as a reserved command (input.pointer, input.click,
 * input.touch, input.axis, input.text, input.hold) when the game declares that input, and
 * otherwise, on a page this daemon opened, to Chromium as a real event. input_sequence merges
 * several plans.
 */
import { usageError } from '../../shared/errors.js';
import type { Manifest } from '../game/types.js';
import type { WebGame } from '../launcher/web-game.js';
import type { ToolContext } from '../tool-framework/context.js';
import { pageGrid } from '../web/page-input.js';
import { OwnedHands } from '../web/owned-hands.js';
import { capabilitiesOf } from './needs.js';

export type Button = 'left' | 'right' | 'middle';
export const BUTTON_BIT: Record<Button, number> = { left: 1, right: 2, middle: 4 };

/** One device move of a plan. */
export type Move =
  | { k: 'pointer'; x: number; y: number; press?: Button; lift?: Button }
  | { k: 'click'; x: number; y: number; button: Button; count: number }
  | { k: 'wheel'; dx: number; dy: number }
  | { k: 'touch'; id: number; x: number; y: number; phase: 'down' | 'move' | 'up' }
  | { k: 'axis'; input: string; value: number; leaseMs: number }
  | { k: 'rest'; input: string }
  | { k: 'text'; text: string }
  | { k: 'key'; input: string; down: boolean; leaseMs: number };

export interface Timed {
  frame: number;
  move: Move;
}

/** Where each kind of move goes on this game, and what bounds its values. */
export interface Target {
  port: number;
  web: WebGame | undefined;
  caps: string[];
  manifest: Manifest;
  /** the screenshot's grid, when known */
  grid: { width: number; height: number } | null;
}

/** Longest a press-like hold lasts on the game's side, whatever happens to the bridge meanwhile. */
const PLAN_LEASE_MS = 60_000;
/** Most moves one call may play (a sequence's steps expanded). */
export const MAX_MOVES = 5000;

export async function targetOf(ctx: ToolContext, port: number): Promise<Target> {
  const web = ctx.launcher.webGame(port);
  const [caps, manifest] = await Promise.all([capabilitiesOf(ctx, port), ctx.manifest(port)]);
  const grid = web ? pageGrid(web.browser.page) : await kitGrid(ctx, port);
  return { port, web, caps, manifest, grid };
}

/** A kit game's grid is its screenshot's size; read once per process on the port. */
const grids = new Map<string, { width: number; height: number } | null>();
async function kitGrid(ctx: ToolContext, port: number): Promise<{ width: number; height: number } | null> {
  const key = `${port} ${String(ctx.generation(port)())}`;
  if (grids.has(key)) return grids.get(key)!;
  const png = await ctx
    .client(port)
    .screenshot()
    .catch(() => null);
  // A PNG's IHDR chunk holds its width and height at bytes 16..23.
  const grid = png && png.length >= 24 ? { width: png.readUInt32BE(16), height: png.readUInt32BE(20) } : null;
  grids.set(key, grid);
  return grid;
}

/** Does the kit take this kind of move (else the browser does, on a page)? */
export function toKit(t: Target, m: Move): boolean {
  switch (m.k) {
    case 'pointer':
    case 'click':
    case 'wheel':
      return t.caps.includes('pointer');
    case 'touch':
      return t.caps.includes('touch');
    case 'axis':
    case 'rest':
      return true;
    case 'text':
      return t.caps.includes('text');
    case 'key':
      return !t.web || (t.manifest.game.inputs ?? []).includes(m.input);
  }
}

/** Refuses a coordinate off the screenshot's grid before anything is sent. */
export function checkPoint(t: Target, x: number, y: number, what = 'the point'): void {
  if (!Number.isFinite(x) || !Number.isFinite(y)) throw usageError(`${what} must be two numbers, got ${x},${y}.`);
  const g = t.grid;
  if (g && (x < 0 || y < 0 || x > g.width - 1 || y > g.height - 1))
    throw usageError(
      `${what} ${x},${y} is off the screen: x takes 0 to ${g.width - 1} and y 0 to ${g.height - 1} (the screenshot's pixels, ${g.width}×${g.height}).`,
    );
}

/** Refuses an axis the game does not declare, or a value outside its range, before anything is sent. */
export function checkAxis(t: Target, input: string, value?: number): void {
  const axes = t.manifest.game.axes ?? [];
  const axis = axes.find((a) => a.name === input);
  if (!axis)
    throw usageError(
      `'${input}' is not an axis this game declares (${axes.length ? axes.map((a) => `${a.name} ${a.min} to ${a.max}`).join(', ') : 'it declares none'}).`,
    );
  if (value !== undefined && (!Number.isFinite(value) || value < axis.min || value > axis.max))
    throw usageError(`axis '${input}' takes ${axis.min} to ${axis.max}, got ${value}: nothing was sent.`);
}

/** Refuses a key the game does not declare and the browser cannot send. */
export function checkKey(t: Target, input: string): void {
  const declared = t.manifest.game.inputs ?? [];
  if (declared.includes(input)) return;
  if (t.web && OwnedHands.accepts(input)) return;
  throw usageError(
    `'${input}' is not an input the game declares (${declared.length ? declared.join(', ') : 'it declares none'})${t.web ? ' nor one the browser can send' : ''}.`,
  );
}

/** Points spaced evenly along `path` by length: `steps + 1` of them, the first and last its ends. */
export function along(path: [number, number][], steps: number): [number, number][] {
  const lens = path.slice(1).map((p, i) => Math.hypot(p[0] - path[i][0], p[1] - path[i][1]));
  const total = lens.reduce((a, b) => a + b, 0);
  const out: [number, number][] = [];
  for (let s = 0; s <= steps; s++) {
    let d = total === 0 ? 0 : (total * s) / steps;
    let i = 0;
    while (i < lens.length - 1 && d > lens[i]) d -= lens[i++];
    const [a, b] = [path[i], path[Math.min(i + 1, path.length - 1)]];
    const f = lens[i] ? Math.min(1, d / lens[i]) : 1;
    out.push([round(a[0] + (b[0] - a[0]) * f), round(a[1] + (b[1] - a[1]) * f)]);
  }
  return out;
}

const round = (v: number) => Math.round(v * 100) / 100;

/** The last frame of a plan: the frames the call steps (or waits) in all. */
export const lengthOf = (plan: Timed[]): number => plan.reduce((m, t) => Math.max(m, t.frame), 0);

/**
 * A click as a kit plays it: each click holds the button for one frame, with a frame between
 * clicks. A kit that takes `input.click` does this itself, from one command; on a paused clock,
 * or on a kit without it, the bridge plays these moves.
 */
export function clickMoves(at: number, m: Extract<Move, { k: 'click' }>): Timed[] {
  return Array.from({ length: m.count }, (_, i) => [
    { frame: at + 2 * i, move: { k: 'pointer' as const, x: m.x, y: m.y, press: m.button } },
    { frame: at + 2 * i + 1, move: { k: 'pointer' as const, x: m.x, y: m.y, lift: m.button } },
  ]).flat();
}

/** What a press (down, `frames` frames, up) of a named input plans. */
export const pressPlan = (input: string, frames: number, at = 0): Timed[] => [
  { frame: at, move: { k: 'key', input, down: true, leaseMs: PLAN_LEASE_MS } },
  { frame: at + frames, move: { k: 'key', input, down: false, leaseMs: 0 } },
];

export { PLAN_LEASE_MS };
