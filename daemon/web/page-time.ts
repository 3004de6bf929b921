/**
 * Time inside the page's own code, the clock's part of the init script (page-clock.ts): what a
 * read of `Date`, `performance.now()` or an event's `timeStamp` returns. It runs in the clock's
 * scope, reading and moving its `now` and `epoch`; the clock sets `frameEnd` around a
 * frame's callbacks and clears `reads` before each.
 */
export const TIME = `
// Time passes inside the page's code, by a rule of reads, not of real time, so every run sees
// the same times. In a frame's callbacks (its timers and animation frames), each of a run of
// code's first FRAME_READS reads moves the time FRAME_READ_MS, never past the frame's end: a
// frame's reads stay inside it, and a timer sees its own time. Any other read (an input's
// handler, or frame code reading on) moves it READ_MS, then twice the step before at each read,
// so a loop that spends a time budget ends after a few reads (a deepening search a few levels
// deep). A run ends where the page's code yields (its callback returns, or it awaits).
const FRAME_READS = 64;
const FRAME_READ_MS = 0.01;
const READ_MS = 0.5;
const READ_MAX_MS = 1000;
// reads in the current run of code, and the end of the frame whose callbacks run (null: none)
let reads = 0;
let frameEnd = null;
const realQueueMicrotask = window.queueMicrotask.bind(window);
const endRun = () => { reads = 0; };
const read = () => {
  if (reads === 0) realQueueMicrotask(endRun);
  reads++;
  if (frameEnd !== null && reads <= FRAME_READS) now = Math.max(now, Math.min(now + FRAME_READ_MS, frameEnd));
  else now += Math.min(READ_MS * 2 ** (reads - 1 - (frameEnd === null ? 0 : FRAME_READS)), READ_MAX_MS);
  return now;
};
performance.now = function now_() { return read(); };
function VirtualDate(...args) {
  if (!new.target) return new real.Date(epoch + read()).toString();
  return args.length ? new real.Date(...args) : new real.Date(epoch + read());
}
VirtualDate.prototype = real.Date.prototype;
VirtualDate.now = () => Math.floor(epoch + read());
// an event's time is the page's time when its code first looks at it
const stamps = new WeakMap();
const stampOf = Object.getOwnPropertyDescriptor(Event.prototype, 'timeStamp');
if (stampOf && stampOf.configurable) {
  Object.defineProperty(Event.prototype, 'timeStamp', {
    configurable: true,
    enumerable: stampOf.enumerable,
    get() { if (!stamps.has(this)) stamps.set(this, read()); return stamps.get(this); },
  });
}
VirtualDate.parse = real.Date.parse;
VirtualDate.UTC = real.Date.UTC;
window.Date = VirtualDate;
`;
