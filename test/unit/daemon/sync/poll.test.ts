/**
 * When a pending command is polled: often enough around the next 60 fps tick that the frame
 * applying it is seen within a few ms whatever its phase, and less often after that.
 */
import { pollDelay, POLL_MAX_MS } from '../../../../daemon/sync/poll.js';

const FRAME_MS = 1000 / 60;
const FIRST_MS = 1.5 * FRAME_MS;

/** The times (ms after the command's answer) of the polls made in the first `untilMs`. */
function pollTimes(untilMs: number): number[] {
  const times: number[] = [];
  for (let attempt = 0, t = 0; ; attempt++) {
    t += pollDelay(attempt);
    if (t > untilMs) return times;
    times.push(t);
  }
}

test('a tick anywhere in the first frame and a half is seen within 5 ms, by at most 5 polls', () => {
  // Back-to-back calls (step after step) keep the same phase against the game's ticks; 9 ms
  // between polls made that phase decide between ~14 and ~23 ms per step (docs/PERFORMANCE.md).
  const times = pollTimes(FIRST_MS + 5);
  for (let tick = 0; tick <= FIRST_MS; tick += 0.25) {
    const seen = times.find((t) => t >= tick);
    expect(seen).toBeDefined();
    expect(seen! - tick).toBeLessThanOrEqual(5);
  }
  expect(times.filter((t) => t <= FIRST_MS)).toHaveLength(5);
});

test('after that, fewer than two polls a frame, backing off to the cap', () => {
  const late = pollTimes(2000).filter((t) => t > FIRST_MS);
  const gaps = late.slice(1).map((t, i) => t - late[i]);
  for (const gap of gaps) expect(gap).toBeGreaterThan(FRAME_MS / 2);
  for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1]);
  expect(gaps.at(-1)).toBe(POLL_MAX_MS);
});
