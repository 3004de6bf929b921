/**
 * Crate Stack's rules, free of I/O: crates are dropped from the top, fall for a few frames,
 * settle on whatever is under them and score by height. A crate whose centre overhangs its
 * support topples the stack; a stack taller than MAX_LEVELS is over too.
 */

export type Screen = 'MenuScreen' | 'GameScreen' | 'PausedScreen' | 'GameOverScreen';
export type GameEvent = string | { m: string };

export interface Crate {
  id: number;
  kind: CrateKind;
  x: number;
  y: number;
  settled: boolean;
}

export type CrateKind = 'small' | 'wide' | 'tall';

/** Width and height per kind, in world units (the floor is y = 0, the world is 0..100 wide). */
export const KINDS: Record<CrateKind, { w: number; h: number; points: number }> = {
  small: { w: 10, h: 10, points: 10 },
  wide: { w: 20, h: 10, points: 15 },
  tall: { w: 10, h: 20, points: 20 },
};
const KIND_NAMES = Object.keys(KINDS) as CrateKind[];

export const WORLD_WIDTH = 100;
export const DROP_HEIGHT = 200;
export const MAX_HEIGHT = 150;
/** Frames a crate takes to fall from DROP_HEIGHT to the floor. */
export const FALL_FRAMES = 6;
/** The longest high-score name. */
export const NAME_CHARS = 16;
/** World units the dropper moves per simulated frame while `left` or `right` is held. */
export const DROPPER_SPEED = 2;
/** Events stay in the snapshot this many frames, so a poller a frame late still sees them. */
const EVENT_FRAMES = 30;
const MAX_EVENTS = 50;

/** mulberry32 over a string hash: the same seed always yields the same crates. */
export function makeRng(seed: string): () => number {
  let h = 2166136261;
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class CrateStack {
  screen: Screen = 'MenuScreen';
  simFrame = 0;
  score = 0;
  crates: Crate[] = [];
  nextKind: CrateKind = 'small';
  /** Where `drop_here` drops the next crate; moved by holding `left` / `right`. */
  dropperX = WORLD_WIDTH / 2;
  overReason: string | null = null;
  /** The menu's volume setting, 0 to 1 (the game makes no sound; the setting is what a menu has). */
  volume = 0.8;
  readonly received: Record<string, number> = {};
  /** The name for the high score, as the player typed it. */
  playerName = '';
  readonly bumps: Record<string, number> = {};
  private rng: () => number;
  private nextCrateId = 1;
  /** Crates still in the air; they settle on whatever is under them when they arrive. */
  private falling: Crate[] = [];
  private events: { frame: number; e: GameEvent }[] = [];
  private frame = 0;

  constructor(public seed: string) {
    this.rng = makeRng(seed);
    this.nextKind = this.pickKind();
  }

  // ---- commands (called on the tick) ----

  start(): void {
    this.newRound();
  }

  restart(): void {
    this.newRound();
  }

  menu(): void {
    this.screen = 'MenuScreen';
    this.falling = [];
    this.emit({ m: 'screen:menu' });
  }

  pause(): void {
    if (this.screen !== 'GameScreen') return this.emit('pause:ignored');
    this.screen = 'PausedScreen';
    this.emit({ m: 'screen:paused' });
  }

  resume(): void {
    if (this.screen !== 'PausedScreen') return this.emit('resume:ignored');
    this.screen = 'GameScreen';
    this.emit({ m: 'screen:game' });
  }

  setSeed(seed: string): void {
    this.seed = seed;
    this.rng = makeRng(seed);
    this.nextKind = this.pickKind();
    this.emit({ m: `seed:${seed}` });
  }

  /** Drops the next crate centred at x; `settle: false` places it at rest at once. */
  drop(x: number, settle: boolean): void {
    if (this.screen !== 'GameScreen') return this.emit('drop:ignored');
    const kind = this.nextKind;
    this.nextKind = this.pickKind();
    const { w } = KINDS[kind];
    const cx = Math.min(WORLD_WIDTH - w / 2, Math.max(w / 2, x));
    const crate: Crate = { id: this.nextCrateId++, kind, x: cx, y: DROP_HEIGHT, settled: false };
    this.crates.push(crate);
    this.emit({ m: `drop:crate#${crate.id}` });
    if (settle) this.falling.push(crate);
    else this.land(crate);
  }

  /** Drops the next crate at the dropper's position. */
  dropHere(): void {
    this.drop(this.dropperX, true);
  }

  /** Typed text goes into the high-score name (letters, digits and spaces, at most 16). */
  typeName(text: string): void {
    this.playerName = (this.playerName + text.replace(/[^\p{L}\p{N} ]/gu, '')).slice(0, NAME_CHARS);
  }

  setVolume(volume: number): void {
    this.volume = Math.min(1, Math.max(0, volume));
    this.emit({ m: `volume:${this.volume}` });
  }

  bump(tag: string): void {
    this.bumps[tag] = (this.bumps[tag] ?? 0) + 1;
  }

  // ---- simulation ----

  /** Every frame, simulated or not: `frame` is the surface's counter, used to age events. */
  age(frame: number): void {
    this.frame = frame;
    this.events = this.events.filter((ev) => frame - ev.frame < EVENT_FRAMES).slice(-MAX_EVENTS);
  }

  /**
   * One simulated frame; `held` says which direction inputs are down, `steer` is the analog
   * stick (-1 to 1, added to them), and `aim` the pointer's x while its button is down (the
   * dropper follows it).
   */
  simulate(
    held: { left: boolean; right: boolean; steer?: number; aim?: number | null } = { left: false, right: false },
  ): void {
    if (this.screen !== 'GameScreen') return;
    this.simFrame += 1;
    const dir = (held.right ? 1 : 0) - (held.left ? 1 : 0) + (held.steer ?? 0);
    const x = held.aim ?? this.dropperX + dir * DROPPER_SPEED;
    this.dropperX = Math.min(WORLD_WIDTH, Math.max(0, x));
    for (const crate of [...this.falling]) {
      const support = this.supportUnder(crate);
      const restY = support ? support.y + KINDS[support.kind].h : 0;
      crate.y = Math.max(restY, crate.y - DROP_HEIGHT / FALL_FRAMES);
      if (crate.y === restY) {
        this.falling.splice(this.falling.indexOf(crate), 1);
        this.land(crate);
        if (this.screen !== 'GameScreen') break;
      }
    }
  }

  snapshot(): Record<string, unknown> {
    return {
      simFrame: this.simFrame,
      paused: this.screen === 'PausedScreen',
      ui: { screen: this.screen, elements: this.elements() },
      events: this.events.map((ev) => ev.e),
      game: {
        score: this.score,
        crates: this.crates.map((c) => ({ ...c })),
        nextKind: this.nextKind,
        dropperX: this.dropperX,
        playerName: this.playerName,
        height: this.height(),
        seed: this.seed,
        over: this.overReason,
        received: { ...this.received },
        bumps: { ...this.bumps },
      },
    };
  }

  emit(e: GameEvent): void {
    this.events.push({ frame: this.frame, e });
  }

  // ---- internals ----

  private newRound(): void {
    this.screen = 'GameScreen';
    this.score = 0;
    this.crates = [];
    this.falling = [];
    this.overReason = null;
    this.playerName = '';
    this.dropperX = WORLD_WIDTH / 2;
    this.nextCrateId = 1;
    this.rng = makeRng(this.seed);
    this.nextKind = this.pickKind();
    this.emit({ m: 'screen:game' });
  }

  private land(crate: Crate): void {
    const support = this.supportUnder(crate);
    crate.y = support ? support.y + KINDS[support.kind].h : 0;
    crate.settled = true;
    this.emit(`settle:crate#${crate.id}`);
    // Toppling: the centre must sit over the crate it lands on.
    if (support && Math.abs(crate.x - support.x) > KINDS[support.kind].w / 2) return this.gameOver('topple');
    const level = this.levelOf(crate);
    const points = KINDS[crate.kind].points * level;
    this.score += points;
    this.emit(`score:+${points}`);
    if (this.height() > MAX_HEIGHT) this.gameOver('too high');
  }

  private gameOver(reason: string): void {
    this.screen = 'GameOverScreen';
    this.overReason = reason;
    this.falling = [];
    this.emit({ m: `gameover:${reason}` });
  }

  /** The highest settled crate under `crate` (overlapping it horizontally), or null (the floor). */
  private supportUnder(crate: Crate): Crate | null {
    let best: Crate | null = null;
    for (const c of this.crates) {
      if (!c.settled || c === crate) continue;
      const overlap = Math.abs(c.x - crate.x) < (KINDS[c.kind].w + KINDS[crate.kind].w) / 2;
      if (overlap && (!best || c.y + KINDS[c.kind].h > best.y + KINDS[best.kind].h)) best = c;
    }
    return best;
  }

  /** 1 on the floor, 2 on one crate, ...: the settled crates below it in its column, plus one. */
  private levelOf(c: Crate): number {
    return (
      1 +
      this.crates.filter(
        (o) => o.settled && o !== c && Math.abs(o.x - c.x) < (KINDS[o.kind].w + KINDS[c.kind].w) / 2 && o.y < c.y,
      ).length
    );
  }

  private height(): number {
    return Math.max(0, ...this.crates.filter((c) => c.settled).map((c) => c.y + KINDS[c.kind].h));
  }

  private pickKind(): CrateKind {
    return KIND_NAMES[Math.floor(this.rng() * KIND_NAMES.length)];
  }

  private elements(): Record<string, unknown>[] {
    switch (this.screen) {
      case 'MenuScreen':
        return [
          { type: 'label', id: 'title', text: 'Crate Stack' },
          { type: 'button', id: 'start', text: 'Start', command: 'start' },
        ];
      case 'GameScreen':
        return [
          { type: 'label', id: 'score', text: `Score ${this.score}` },
          { type: 'label', id: 'next', text: `Next: ${this.nextKind}` },
          { type: 'button', id: 'pause', text: 'Pause', command: 'pause' },
        ];
      case 'PausedScreen':
        return [
          { type: 'label', id: 'paused', text: 'Paused' },
          { type: 'button', id: 'resume', text: 'Resume', command: 'resume' },
          { type: 'button', id: 'menu', text: 'Menu', command: 'menu' },
        ];
      case 'GameOverScreen':
        return [
          { type: 'label', id: 'over', text: `Game over: ${this.overReason}` },
          { type: 'label', id: 'score', text: `Score ${this.score}` },
          { type: 'button', id: 'restart', text: 'Restart', command: 'restart' },
          { type: 'button', id: 'menu', text: 'Menu', command: 'menu' },
        ];
    }
  }
}
