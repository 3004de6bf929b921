/**
 * Every input a player has beyond named buttons (docs/KITS.md, "Pointer, touch, analog axes and
 * text"): the pointer with its buttons and wheel, touch points, analog axes held at a value with
 * a lease, and typed text. Each belongs to the owner that sent it, so `input.releaseAll {owner}`
 * lifts that owner's buttons and touches and rests its axes and nobody else's. The game reads the
 * state (`pointer()`, `axis(name)`, `touches()`) or drains the queues (`takeText()`,
 * `takeWheel()`, `takeEvents()`), whichever its loop prefers.
 */
import { ArgError, type CommandArgs } from './args.js';

export interface AxisDeclaration {
  name: string;
  /** -1 for a stick, 0 for a trigger */
  min: number;
  max: number;
}

export interface PointerState {
  x: number;
  y: number;
  /** 1 left, 2 right, 4 middle */
  buttons: number;
}

export interface TouchPoint {
  id: number;
  x: number;
  y: number;
}

/** One change as the game's own input code would get it, in the order applied. */
export type DeviceEvent =
  | { type: 'pointermove' | 'pointerdown' | 'pointerup'; x: number; y: number; buttons: number; button?: number }
  | { type: 'wheel'; x: number; y: number; dx: number; dy: number }
  | { type: 'touchstart' | 'touchmove' | 'touchend'; id: number; x: number; y: number }
  | { type: 'text'; text: string };

export interface DeviceOptions {
  axes?: AxisDeclaration[];
  pointer?: boolean;
  touch?: boolean;
  text?: boolean;
}

/** A coordinate far outside any screen is a mistake, not a position. */
const MAX_COORD = 100_000;
const MAX_WHEEL = 10_000;
const MAX_TOUCH_ID = 9;
/** A triple click is the most any game reads. */
const MAX_CLICKS = 3;
export const MAX_TEXT_CHARS = 1000;
/** Events and text not taken by the game are kept this far back, then dropped oldest first. */
const EVENTS_KEPT = 256;
const TEXT_KEPT = 10_000;

interface AxisHold {
  value: number;
  until: number;
  /** the order holds were made: the latest live one sets the value */
  seq: number;
}

export class PlayerDevices {
  private readonly axes = new Map<string, { decl: AxisDeclaration; holds: Map<string, AxisHold> }>();
  private readonly pos = { x: 0, y: 0 };
  private readonly buttonsOf = new Map<string, number>();
  private readonly touchOwner = new Map<number, { owner: string; x: number; y: number }>();
  private wheel = { dx: 0, dy: 0 };
  private text = '';
  private events: DeviceEvent[] = [];
  private seq = 0;
  /** A click in progress: its presses and lifts still to come, one a tick. */
  private click: { id: number; owner: string; x: number; y: number; bit: number; left: ('press' | 'lift')[] } | null =
    null;

  constructor(
    readonly options: DeviceOptions,
    private readonly now: () => number,
    /** each event as it is applied (the web carrier dispatches it to the page) */
    private readonly onEvent: (e: DeviceEvent) => void = () => {},
  ) {
    for (const decl of options.axes ?? []) {
      if (!(Number.isFinite(decl.min) && Number.isFinite(decl.max) && decl.min < decl.max))
        throw new Error(`axis '${decl.name}': min must be below max, got ${decl.min}..${decl.max}`);
      this.axes.set(decl.name, { decl, holds: new Map() });
    }
  }

  /** The capabilities these options declare. */
  get capabilities(): string[] {
    return [
      ...(this.options.pointer ? ['pointer'] : []),
      ...(this.options.touch ? ['touch'] : []),
      ...(this.axes.size ? ['axis'] : []),
      ...(this.options.text ? ['text'] : []),
    ];
  }

  get any(): boolean {
    return this.capabilities.length > 0;
  }

  /** What /tools' `game` adds. */
  manifest(): Record<string, unknown> {
    return {
      ...(this.axes.size ? { axes: [...this.axes.values()].map((a) => ({ ...a.decl })) } : {}),
      ...(this.options.pointer ? { pointer: true } : {}),
      ...(this.options.touch ? { touch: true } : {}),
      ...(this.options.text ? { text: true } : {}),
    };
  }

  /** What /state adds under `input`. */
  state(): Record<string, unknown> {
    return {
      ...(this.axes.size ? { axes: Object.fromEntries([...this.axes.keys()].map((n) => [n, this.axis(n)])) } : {}),
      ...(this.options.pointer ? { pointer: this.pointer() } : {}),
      ...(this.options.touch ? { touches: this.touches() } : {}),
    };
  }

  isAxis(name: string): boolean {
    return this.axes.has(name);
  }

  // ---- what the game reads ----

  axis(name: string): number {
    const a = this.axes.get(name);
    if (!a) return 0;
    const t = this.now();
    let best: AxisHold | undefined;
    for (const h of a.holds.values()) if (h.until > t && (!best || h.seq > best.seq)) best = h;
    return best?.value ?? 0;
  }

  pointer(): PointerState {
    let buttons = 0;
    for (const b of this.buttonsOf.values()) buttons |= b;
    return { x: this.pos.x, y: this.pos.y, buttons };
  }

  touches(): TouchPoint[] {
    return [...this.touchOwner.entries()].sort((a, b) => a[0] - b[0]).map(([id, t]) => ({ id, x: t.x, y: t.y }));
  }

  takeText(): string {
    const t = this.text;
    this.text = '';
    return t;
  }

  takeWheel(): { dx: number; dy: number } {
    const w = this.wheel;
    this.wheel = { dx: 0, dy: 0 };
    return w;
  }

  takeEvents(): DeviceEvent[] {
    const e = this.events;
    this.events = [];
    return e;
  }

  // ---- the reserved commands ----

  /** Leases that ran out: their axes rest (called once per frame). */
  expire(): void {
    const t = this.now();
    for (const a of this.axes.values()) for (const [o, h] of a.holds) if (h.until <= t) a.holds.delete(o);
  }

  releaseAxis(name: string, owner: string): void {
    this.axes.get(name)?.holds.delete(owner);
  }

  releaseAll(owner: string): void {
    for (const a of this.axes.values()) a.holds.delete(owner);
    if (this.buttonsOf.has(owner)) this.setButtons(owner, 0);
    for (const [id, t] of [...this.touchOwner]) if (t.owner === owner) this.touchUp(id, t.x, t.y);
  }

  validate(cmd: string, a: CommandArgs): string | undefined {
    switch (cmd) {
      case 'input.pointer':
        coord(a, 'x');
        coord(a, 'y');
        whole(a, 'buttons', 0, 7);
        return;
      case 'input.click':
        coord(a, 'x');
        coord(a, 'y');
        buttonBit(a);
        whole(a, 'count', 1, MAX_CLICKS);
        return;
      case 'input.wheel':
        bounded(a, 'dx', -MAX_WHEEL, MAX_WHEEL);
        bounded(a, 'dy', -MAX_WHEEL, MAX_WHEEL);
        return;
      case 'input.touch': {
        whole(a, 'id', 0, MAX_TOUCH_ID);
        coord(a, 'x');
        coord(a, 'y');
        phase(a);
        return;
      }
      case 'input.axis':
        return this.axisValue(a).refusal;
      case 'input.text':
        textOf(a);
        return;
    }
    return undefined;
  }

  apply(cmd: string, a: CommandArgs, owner: string): void {
    switch (cmd) {
      case 'input.pointer':
        this.pointerTo(owner, coord(a, 'x'), coord(a, 'y'), whole(a, 'buttons', 0, 7));
        return;
      case 'input.wheel': {
        const [dx, dy] = [bounded(a, 'dx', -MAX_WHEEL, MAX_WHEEL), bounded(a, 'dy', -MAX_WHEEL, MAX_WHEEL)];
        this.wheel = { dx: this.wheel.dx + dx, dy: this.wheel.dy + dy };
        this.emit({ type: 'wheel', x: this.pos.x, y: this.pos.y, dx, dy });
        return;
      }
      case 'input.touch': {
        const id = whole(a, 'id', 0, MAX_TOUCH_ID);
        const [x, y, p] = [coord(a, 'x'), coord(a, 'y'), phase(a)];
        const held = this.touchOwner.get(id);
        if (held && held.owner !== owner) throw new ArgError(`touch ${id} is down for another owner`);
        if (p === 'down') {
          this.touchOwner.set(id, { owner, x, y });
          this.emit({ type: held ? 'touchmove' : 'touchstart', id, x, y });
        } else if (p === 'move') {
          if (!held) throw new ArgError(`touch ${id} is not down (send phase 'down' first)`);
          this.touchOwner.set(id, { owner, x, y });
          this.emit({ type: 'touchmove', id, x, y });
        } else if (held) this.touchUp(id, x, y);
        return;
      }
      case 'input.axis': {
        const { name, value } = this.axisValue(a);
        this.axes.get(name)!.holds.set(owner, { value: value!, until: this.now() + leaseOf(a), seq: ++this.seq });
        return;
      }
      case 'input.text': {
        const text = textOf(a);
        this.text = (this.text + text).slice(-TEXT_KEPT);
        this.emit({ type: 'text', text });
        return;
      }
    }
  }

  /**
   * `input.click`: the button goes down now and comes up on the next tick, `count` times, one
   * press or lift a tick (clickTick applies the rest), so a game that polls the button sees
   * each press for a frame.
   */
  startClick(id: number, a: CommandArgs, owner: string): void {
    const count = whole(a, 'count', 1, MAX_CLICKS);
    const left = Array.from({ length: count }, () => ['press', 'lift'] as const).flat();
    this.click = { id, owner, x: coord(a, 'x'), y: coord(a, 'y'), bit: buttonBit(a), left };
    this.clickTick();
  }

  /** A click still has a press or lift to come: later commands wait behind it. */
  get clicking(): boolean {
    return this.click !== null;
  }

  /** A click still has a press to come: it completes on the tick of its last press. */
  get clickPressing(): boolean {
    return this.click?.left.includes('press') === true;
  }

  /** Applies the next press or lift of a click in progress; the click's id when that was its last press. */
  clickTick(): number | undefined {
    const c = this.click;
    if (!c) return undefined;
    const phase = c.left.shift()!;
    const mine = this.buttonsOf.get(c.owner) ?? 0;
    this.pointerTo(c.owner, c.x, c.y, phase === 'press' ? mine | c.bit : mine & ~c.bit);
    if (c.left.length === 0) this.click = null;
    return phase === 'press' && !c.left.includes('press') ? c.id : undefined;
  }

  private pointerTo(owner: string, x: number, y: number, buttons: number): void {
    if (x !== this.pos.x || y !== this.pos.y) {
      this.pos.x = x;
      this.pos.y = y;
      this.emit({ type: 'pointermove', x, y, buttons: this.pointer().buttons });
    }
    this.setButtons(owner, buttons);
  }

  private axisValue(a: CommandArgs): { name: string; value?: number; refusal?: string } {
    const name = a.string('input');
    const axis = this.axes.get(name);
    if (!axis)
      return {
        name,
        refusal: `unknown axis '${name}' (this game's axes: ${[...this.axes.keys()].join(', ') || 'none'})`,
      };
    leaseOf(a);
    const value = a.number('value');
    const { min, max } = axis.decl;
    if (value < min || value > max) return { name, refusal: `axis '${name}' takes ${min} to ${max}, got ${value}` };
    return { name, value };
  }

  private setButtons(owner: string, buttons: number): void {
    const before = this.pointer().buttons;
    if (buttons) this.buttonsOf.set(owner, buttons);
    else this.buttonsOf.delete(owner);
    const after = this.pointer().buttons;
    for (const bit of [1, 2, 4]) {
      if ((before & bit) === (after & bit)) continue;
      const type = after & bit ? 'pointerdown' : 'pointerup';
      this.emit({ type, x: this.pos.x, y: this.pos.y, buttons: after, button: bit === 1 ? 0 : bit === 4 ? 1 : 2 });
    }
  }

  private touchUp(id: number, x: number, y: number): void {
    this.touchOwner.delete(id);
    this.emit({ type: 'touchend', id, x, y });
  }

  private emit(e: DeviceEvent): void {
    this.events.push(e);
    if (this.events.length > EVENTS_KEPT) this.events.shift();
    this.onEvent(e);
  }
}

const LEASE_MAX_MS = 3_600_000;

function leaseOf(a: CommandArgs): number {
  const ms = a.number('leaseMs');
  if (!(ms > 0 && ms <= LEASE_MAX_MS))
    throw new ArgError(`argument 'leaseMs' must be > 0 and <= ${LEASE_MAX_MS}, got ${ms}`);
  return ms;
}

function bounded(a: CommandArgs, name: string, min: number, max: number): number {
  const v = a.number(name);
  if (v < min || v > max) throw new ArgError(`argument '${name}' must be from ${min} to ${max}, got ${v}`);
  return v;
}

const coord = (a: CommandArgs, name: string) => bounded(a, name, -MAX_COORD, MAX_COORD);

function whole(a: CommandArgs, name: string, min: number, max: number): number {
  const v = bounded(a, name, min, max);
  if (!Number.isInteger(v))
    throw new ArgError(`argument '${name}' must be a whole number from ${min} to ${max}, got ${v}`);
  return v;
}

function buttonBit(a: CommandArgs): number {
  const b = a.number('button');
  if (b !== 1 && b !== 2 && b !== 4)
    throw new ArgError(`argument 'button' must be 1 (left), 2 (right) or 4 (middle), got ${b}`);
  return b;
}

function phase(a: CommandArgs): 'down' | 'move' | 'up' {
  const p = a.string('phase');
  if (p !== 'down' && p !== 'move' && p !== 'up')
    throw new ArgError(`argument 'phase' must be down, move or up, got '${p.slice(0, 20)}'`);
  return p;
}

function textOf(a: CommandArgs): string {
  const t = a.string('text');
  if (t.length > MAX_TEXT_CHARS)
    throw new ArgError(`argument 'text' must be at most ${MAX_TEXT_CHARS} characters, got ${t.length}`);
  return t;
}
