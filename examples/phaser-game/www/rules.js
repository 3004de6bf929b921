/**
 * Star Catcher's rules, free of Phaser and of I/O: stars fall from the sky, the basket at the
 * bottom catches them. Three misses end the round. Every number is in world pixels (800×450),
 * and every step is one simulated frame, so the game is exactly as deterministic as its seed.
 */
export const WIDTH = 800;
export const HEIGHT = 450;
export const BASKET = { width: 110, y: 420, speed: 8 };
export const STAR = { radius: 12, speed: 3 };
const SPAWN_EVERY = 40;
const LIVES = 3;
const NAME_CHARS = 12;
/** Events stay this many frames, so a poller a frame late still sees them. */
const EVENT_FRAMES = 30;

/** mulberry32 over a string hash: the same seed drops the same stars. */
function makeRng(seed) {
  let a = 2166136261;
  for (const ch of seed) a = Math.imul(a ^ ch.charCodeAt(0), 16777619);
  a >>>= 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class StarCatcher {
  constructor(seed) {
    this.seed = seed;
    this.screen = 'MenuScreen';
    this.frame = 0;
    this.simFrame = 0;
    this.events = [];
    /** The high-score name, typed (the bridge's `type`, or the keyboard on a real page). */
    this.name = '';
    this.newRound();
    this.screen = 'MenuScreen';
  }

  /** Typed text adds to the high-score name: letters, digits and spaces, at most 12. */
  typeName(text) {
    this.name = (this.name + text.replace(/[^\p{L}\p{N} ]/gu, '')).slice(0, NAME_CHARS);
  }

  /** Leave the menu (or a finished round) and play. */
  start() {
    this.newRound();
    this.emit({ m: 'screen:game' });
  }

  /** Back to the menu with a fresh round waiting. */
  reset() {
    this.newRound();
    this.screen = 'MenuScreen';
    this.emit({ m: 'screen:menu' });
  }

  setSeed(seed) {
    this.seed = seed;
    this.rng = makeRng(seed);
    this.emit({ m: `seed:${seed}` });
  }

  /** Puts the basket's centre at x (clamped to the world). */
  moveTo(x) {
    this.basketX = clamp(x, BASKET.width / 2, WIDTH - BASKET.width / 2);
  }

  /** Drops a star at x now (a debug helper: test a catch without waiting for the spawner). */
  spawn(x) {
    const star = { id: this.nextStarId++, x: clamp(x, STAR.radius, WIDTH - STAR.radius), y: -STAR.radius };
    this.stars.push(star);
    this.emit(`spawn:star#${star.id}`);
  }

  /** Every frame, simulated or not: ages events by the surface's frame counter. */
  age(frame) {
    this.frame = frame;
    this.events = this.events.filter((ev) => frame - ev.frame < EVENT_FRAMES);
  }

  /** One simulated frame; `held` says which way the basket is pushed, `steer` (-1 to 1) is the stick. */
  simulate(held) {
    if (this.screen !== 'GameScreen') return;
    this.simFrame += 1;
    this.roundFrame += 1;
    const dir = clamp((held.right ? 1 : 0) - (held.left ? 1 : 0) + (held.steer ?? 0), -1, 1);
    this.moveTo(this.basketX + dir * BASKET.speed);
    if (this.roundFrame % SPAWN_EVERY === 0) this.spawn(STAR.radius + this.rng() * (WIDTH - 2 * STAR.radius));
    for (const star of [...this.stars]) {
      star.y += STAR.speed;
      const atBasket = star.y + STAR.radius >= BASKET.y && star.y - STAR.radius <= BASKET.y + 10;
      if (atBasket && Math.abs(star.x - this.basketX) <= BASKET.width / 2) this.catch(star);
      else if (star.y - STAR.radius > HEIGHT) this.miss(star);
    }
  }

  snapshot() {
    return {
      simFrame: this.simFrame,
      paused: false,
      ui: { screen: this.screen, elements: this.elements() },
      events: this.events.map((ev) => ev.e),
      game: { score: this.score, lives: this.lives, basketX: this.basketX, stars: this.stars.map((s) => ({ ...s })), caught: this.caught, missed: this.missed, seed: this.seed, name: this.name },
      // what the HUD shows: all a player-view session (or an agent in the browser) reads of the state
      player: { screen: this.screen, score: this.score, lives: this.lives, basketX: this.basketX, name: this.name },
    };
  }

  emit(e) {
    this.events.push({ frame: this.frame, e });
  }

  newRound() {
    this.screen = 'GameScreen';
    this.roundFrame = 0;
    this.score = 0;
    this.lives = LIVES;
    this.caught = 0;
    this.missed = 0;
    this.stars = [];
    this.nextStarId = 1;
    this.basketX = WIDTH / 2;
    this.rng = makeRng(this.seed);
  }

  catch(star) {
    this.stars.splice(this.stars.indexOf(star), 1);
    this.caught += 1;
    this.score += 10;
    this.emit({ m: `catch:star#${star.id}` });
  }

  miss(star) {
    this.stars.splice(this.stars.indexOf(star), 1);
    this.missed += 1;
    this.lives -= 1;
    this.emit({ m: `miss:star#${star.id}` });
    if (this.lives <= 0) {
      this.screen = 'GameOverScreen';
      this.stars = [];
      this.emit({ m: 'gameover' });
    }
  }

  elements() {
    if (this.screen === 'MenuScreen') return [{ type: 'label', id: 'title', text: 'Star Catcher' }, { type: 'button', id: 'start', text: 'Press Space', command: 'start' }];
    if (this.screen === 'GameOverScreen') return [{ type: 'label', id: 'over', text: `Game over: ${this.score}` }, { type: 'button', id: 'start', text: 'Play again', command: 'start' }];
    return [{ type: 'label', id: 'score', text: `Score ${this.score}` }, { type: 'label', id: 'lives', text: `Lives ${this.lives}` }];
  }
}

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}
