/** What one dashboard feed update carries under a flood: every failure, then the newest successes. */
import { callsForPage } from '../../../../daemon/dashboard/batch.js';
import type { CallSummary } from '../../../../daemon/feed/calls.js';

const call = (id: number, ok = true): CallSummary =>
  ({ id, at: new Date(0).toISOString(), session: 's', tool: 'call_tool', ms: 1, ok }) as CallSummary;

test('a batch within the limit goes out whole, in order', () => {
  const calls = [call(1), call(2, false), call(3)];
  expect(callsForPage(calls, 5)).toEqual(calls);
});

test('over the limit: every failure, then the newest successes, in the order they finished', () => {
  const calls = [call(1), call(2, false), call(3), call(4), call(5, false), call(6), call(7)];
  expect(callsForPage(calls, 4).map((c) => c.id)).toEqual([2, 5, 6, 7]);
});

test('more failures than the limit: the newest failures only', () => {
  const calls = [call(1, false), call(2), call(3, false), call(4, false)];
  expect(callsForPage(calls, 2).map((c) => c.id)).toEqual([3, 4]);
});
