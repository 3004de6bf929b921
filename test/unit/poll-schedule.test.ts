/**
 * When a pending command is polled: often enough around the next 60 fps tick that the frame
 * applying it is seen within a few ms whatever its phase, and no more than that after.
 */
import { pollDelay, POLL_MAX_MS } from '../../daemon/sync/poll.js';

const FRAME_MS = 1000 / 60;

/** The times (ms after the command's answer) of the polls made in the first `untilMs`. */
function pollTimes(untilMs: number): number[] {
  const times: number[] = [];
  for (let attempt = 0, t = 0; ; attempt++) {
    t += pollDelay(attempt);
    if (t > untilMs) return times;
    times.push(t);
  }
}

test('a tick anywhere in the first frame and a half is seen within 5 ms', () => {
  // Back-to-back calls (step after step) keep the same phase against the game's ticks; 9 ms
  // between polls made that phase decide between ~14 and ~23 ms per step (docs/PERFORMANCE.md).
  const times = pollTimes(1.5 * FRAME_MS + 5);
  for (let tick = 0; tick <= 1.5 * FRAME_MS; tick += 0.25) {
    const seen = times.find((t) => t >= tick);
    expect(seen).toBeDefined();
    expect(seen! - tick).toBeLessThanOrEqual(5);
  }
});

test('after that, fewer than two polls a frame, backing off to the cap', () => {
  const late = pollTimes(200).filter((t) => t > 2 * FRAME_MS);
  for (let i = 1; i < late.length; i++) expect(late[i] - late[i - 1]).toBeGreaterThan(FRAME_MS / 2);
  expect(pollDelay(100)).toBe(POLL_MAX_MS);
});
