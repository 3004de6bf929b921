/**
 * What the bridge installs in a page before the page's first script runs (an init script of
 * the browser context, run again on every reload): the agent's clock and the seed.
 *
 * The clock gives the page virtual time. Animation frames, timers, `Date` and
 * `performance.now` read it, CSS and Web Animations are held and moved by it, media and Web
 * Audio stop while it is paused. Every virtual frame is 1/60 s of virtual time (more only when
 * the page's own reads ran past it), whether it ran in real time or in a step, so the same inputs
 * at the same frames give the same run.
 * Running, it runs 60 × speed frames a real second (at most a few per real animation frame);
 * paused, nothing of the page's time moves (two screenshots a second apart are identical); a
 * step runs exactly N frames, as many per real animation frame as fit in a few milliseconds.
 * Inside the page's code time still passes, by a rule of reads (page-time.ts), so a loop that
 * spends a time budget ends, the same on every run.
 * A kit page keeps its kit's clock: the clock is installed only on pages without one.
 *
 * The seed is page-seed.ts's.
 *
 *   pageScript({ clock: true, seed: 'abc', paused? })   the init script's source (paused: time starts paused)
 *   await clockOf(page)                        {frame, paused, speed, stepLeft, stepDone}
 *   await clockPause(page) / clockResume(page, speed?)
 *   await clockStep(page, id, frames)          resolves once the frames ran (or the page went)
 *   await clockAdvance(page, frames)           N frames: stepped when paused, else waited for
 */
import type { Page } from 'playwright-core';
import { SEED } from './page-seed.js';
import { TIME } from './page-time.js';

export interface PageClockState {
  /** virtual frames run since the page loaded */
  frame: number;
  paused: boolean;
  speed: number;
  /** frames the running step has left (0: none) */
  stepLeft: number;
  /** the id of the last step that finished */
  stepDone: number;
}

/** The property the clock lives under in the page (not enumerable, so a page listing window does not see it). */
const HANDLE = '__gameBridgeClock';

/**
 * The init script. It is source text, not a serialised function: a test coverage tool would
 * instrument a function's body with counters that do not exist in the page.
 */
export function pageScript(opts: { clock: boolean; seed?: string; paused?: boolean }): string {
  const parts: string[] = [];
  if (opts.seed !== undefined) parts.push(SEED.replace('__SEED__', JSON.stringify(opts.seed)));
  if (opts.clock) parts.push(CLOCK.replace('__START_PAUSED__', opts.paused ? 'true' : 'false'));
  return parts.map((p) => `(() => {\nif (window.top !== window) return;\n${p}\n})();`).join('\n');
}

export async function clockOf(page: Page): Promise<PageClockState | null> {
  return page.evaluate(`window.${HANDLE} ? window.${HANDLE}.state() : null`) as Promise<PageClockState | null>;
}

export async function clockPause(page: Page): Promise<void> {
  await page.evaluate(`window.${HANDLE}.pause()`);
}

export async function clockResume(page: Page, speed?: number): Promise<void> {
  await page.evaluate(`window.${HANDLE}.resume(${speed === undefined ? '' : Number(speed)})`);
}

/** Starts a step of `frames` frames; the promise settles once they ran. */
export async function clockStep(page: Page, id: number, frames: number): Promise<void> {
  await page.evaluate(`window.${HANDLE}.step(${Number(id)}, ${Number(frames)})`);
}

/** The page's frame, or null when it has no clock of ours. */
export async function clockFrame(page: Page): Promise<number | null> {
  return page.evaluate(`window.${HANDLE} ? window.${HANDLE}.state().frame : null`) as Promise<number | null>;
}

/**
 * The next frame of a running page; nothing on a paused one (its time is the agent's), read and
 * waited for in one evaluation so a pause in between cannot turn the wait into a step.
 */
export async function clockNextFrame(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const c = window.${HANDLE};
    return c && !c.state().paused ? c.advance(1) : null;
  })()`);
}

/**
 * The page's next `frames` frames, stepped when its clock is paused, else waited for; resolves
 * with the frame after them, or null when the page has no clock (yet).
 */
export async function clockAdvance(page: Page, frames: number): Promise<number | null> {
  return page.evaluate(`window.${HANDLE} ? window.${HANDLE}.advance(${Number(frames)}) : null`) as Promise<
    number | null
  >;
}

const CLOCK = `
if (window.${HANDLE}) return;
const FRAME = 1000 / 60;
// at most this many frames for one real animation frame while running (a slow page drops time, as a game would)
const MAX_RUN_FRAMES = 4;
// a step runs frames for up to this long per real animation frame
const STEP_BUDGET_MS = 12;
const real = {
  raf: window.requestAnimationFrame.bind(window),
  setTimeout: window.setTimeout.bind(window),
  clearTimeout: window.clearTimeout.bind(window),
  perfNow: performance.now.bind(performance),
  Date: Date,
  play: HTMLMediaElement.prototype.play,
  pause: HTMLMediaElement.prototype.pause,
};
const epoch = real.Date.now();
let now = 0;
// the virtual time of the last frame: the next one is a frame later, or later still when the page's own reads ran past it
let frameAt = 0;
let frame = 0;
// a launch with {paused}: the page's time starts paused at frame 0, so its first frame is stepped
let paused = __START_PAUSED__;
let speed = 1;
let owed = 0;
let lastReal = null;
let step = null;
let stepDone = 0;
const waiters = [];
let rafs = new Map();
let nextRaf = 1;
const timers = new Map();
let nextTimer = 1;
let firing = false;
const report = (e) => { try { window.reportError(e); } catch { real.setTimeout(() => { throw e; }); } };

window.requestAnimationFrame = function requestAnimationFrame(cb) {
  const id = nextRaf++;
  rafs.set(id, cb);
  return id;
};
window.cancelAnimationFrame = function cancelAnimationFrame(id) { rafs.delete(id); };
const addTimer = (fn, ms, args, repeat) => {
  const id = nextTimer++;
  let delay = Math.max(0, Number(ms) || 0);
  // as browsers clamp nested timers, so a zero-delay chain cannot spin inside one frame
  if (firing && delay < 4) delay = 4;
  const call = typeof fn === 'function' ? fn : () => (0, eval)(String(fn));
  timers.set(id, { due: now + delay, call, args, every: repeat ? Math.max(delay, 1) : null, id });
  return id;
};
window.setTimeout = function setTimeout(fn, ms, ...args) { return addTimer(fn, ms, args, false); };
window.setInterval = function setInterval(fn, ms, ...args) { return addTimer(fn, ms, args, true); };
window.clearTimeout = window.clearInterval = function clearTimeout(id) { timers.delete(id); };
${TIME}

// Media and Web Audio: stopped while the clock is paused, played again at resume.
const media = new Set();
const wantsPlay = new WeakSet();
HTMLMediaElement.prototype.play = function play() {
  media.add(this);
  if (paused) { wantsPlay.add(this); return Promise.resolve(); }
  this.playbackRate = speed;
  return real.play.call(this);
};
const audio = new Set();
for (const name of ['AudioContext', 'webkitAudioContext']) {
  const Real = window[name];
  if (!Real) continue;
  window[name] = class extends Real {
    constructor(...args) { super(...args); audio.add(this); if (paused) this.suspend(); }
  };
}
const mediaPause = () => {
  for (const m of media) if (!m.paused) { wantsPlay.add(m); real.pause.call(m); }
  for (const a of audio) a.suspend().catch(() => {});
};
const mediaResume = () => {
  for (const m of media) if (wantsPlay.has(m)) { wantsPlay.delete(m); m.playbackRate = speed; real.play.call(m).catch(() => {}); }
  for (const a of audio) a.resume().catch(() => {});
};

// CSS and Web Animations: each one the page starts is held, then moved by the virtual frames.
const held = new Set();
const holdAnimations = () => {
  if (!document.getAnimations) return;
  for (const a of document.getAnimations()) {
    if (a.playState === 'running') { a.pause(); held.add(a); }
  }
};
const moveAnimations = (dt) => {
  for (const a of held) {
    if (a.playState === 'finished' || a.playState === 'idle') { held.delete(a); continue; }
    if (a.playState === 'paused') a.currentTime = (a.currentTime || 0) + dt * (a.playbackRate || 1);
  }
};

const fireTimers = (until) => {
  let fired = 0;
  for (;;) {
    let next = null;
    for (const t of timers.values()) if (t.due <= until && (!next || t.due < next.due || (t.due === next.due && t.id < next.id))) next = t;
    if (!next || fired++ > 10000) break;
    now = Math.max(now, next.due);
    if (next.every === null) timers.delete(next.id);
    else next.due = now + next.every;
    firing = true;
    reads = 0;
    frameEnd = until;
    try { next.call.apply(window, next.args); } catch (e) { report(e); } finally { firing = false; frameEnd = null; }
  }
};

// One virtual frame: the timers due within it, then the animation frame callbacks at its time.
const runFrame = () => {
  const until = Math.max(frameAt + FRAME, now);
  fireTimers(until);
  const dt = until - frameAt;
  frameAt = until;
  now = Math.max(now, until);
  frame++;
  holdAnimations();
  moveAnimations(dt);
  const due = rafs;
  rafs = new Map();
  frameEnd = until + FRAME;
  for (const cb of due.values()) { reads = 0; try { cb(until); } catch (e) { report(e); } }
  frameEnd = null;
  if (waiters.length) {
    for (let i = waiters.length - 1; i >= 0; i--) if (frame >= waiters[i].at) waiters.splice(i, 1)[0].resolve(frame);
  }
};

let sleeping = null;
const tick = (t) => {
  if (step) {
    const end = real.perfNow() + STEP_BUDGET_MS;
    do { runFrame(); step.left--; } while (step.left > 0 && real.perfNow() < end);
    if (step.left <= 0) { const s = step; step = null; if (s.id) stepDone = s.id; lastReal = null; s.resolve(); }
  } else if (!paused) {
    if (lastReal !== null) owed += ((t - lastReal) * speed) / FRAME;
    else owed += 1;
    lastReal = t;
    let n = Math.min(MAX_RUN_FRAMES, Math.floor(owed + 1e-6));
    owed = Math.min(owed - n, 1);
    while (n-- > 0) runFrame();
  }
  wake();
};
// While paused and not stepping, the page is held by a slow poll, not by animation frames: a still page costs nothing.
const wake = () => {
  if (!paused || step) return real.raf(tick);
  holdAnimations();
  sleeping = real.setTimeout(() => { sleeping = null; wake(); }, 100);
};
const kick = () => {
  if (sleeping === null) return;
  real.clearTimeout(sleeping);
  sleeping = null;
  real.raf(tick);
};
Object.defineProperty(window, ${JSON.stringify(HANDLE)}, {
  enumerable: false,
  value: Object.freeze({
    state: () => ({ frame, paused, speed, stepLeft: step ? step.left : 0, stepDone }),
    pause: () => { if (!paused) { paused = true; mediaPause(); holdAnimations(); } },
    resume: (s) => {
      if (typeof s === 'number' && s > 0) speed = s;
      if (paused) { paused = false; lastReal = null; owed = 0; mediaResume(); }
      for (const m of media) if (!m.paused) m.playbackRate = speed;
      kick();
    },
    step: (id, frames) => new Promise((resolve) => {
      if (!paused) { paused = true; mediaPause(); }
      step = { id, left: Math.max(1, frames), resolve };
      kick();
    }),
    // the page's next \`frames\` frames: stepped when paused, else waited for
    advance: (frames) =>
      paused
        ? new Promise((resolve) => {
            step = { id: 0, left: Math.max(1, frames), resolve: () => resolve(frame) };
            kick();
          })
        : new Promise((resolve) => waiters.push({ at: frame + frames, resolve })),
  }),
});
// The frames start once the page loaded: its own scripts have then asked for their first frame,
// however long the load took, so frame N is the same frame in every run (a load that never ends
// starts them after a while all the same).
let started = false;
const start = () => {
  if (started) return;
  started = true;
  real.raf(tick);
};
if (document.readyState === 'complete') start();
else {
  window.addEventListener('load', start, { once: true });
  real.setTimeout(start, 5000);
}
`;
