/** How two states differ (shared/state-diff.ts): what a trace lists under each step and --compare reports first. */
import { stateDiff } from '../../../shared/state-diff.js';
import { firstDifference } from '../../../shared/state-parting.js';

test('every changed, added and removed path is listed in key order, arrays index by index', () => {
  const a = { game: { score: 0, crates: [{ x: 1 }], gone: true }, simFrame: 5 };
  const b = { game: { score: 20, crates: [{ x: 1 }, { x: 4 }] }, simFrame: 9 };
  expect(stateDiff(a, b)).toEqual({
    changes: [
      { path: 'game.crates.1', after: { x: 4 } },
      { path: 'game.gone', before: true },
      { path: 'game.score', before: 0, after: 20 },
      { path: 'simFrame', before: 5, after: 9 },
    ],
    more: 0,
  });
});

test('past max the changes are counted, not listed; ignored paths and keys are left out', () => {
  const a = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i]));
  const b = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, -i - 1]));
  const d = stateDiff(a, b, { max: 3, ignore: ['k9'], ignoredKeys: new Set(['k8']) });
  expect(d.changes.map((c) => c.path)).toEqual(['k0', 'k1', 'k2']);
  expect(d.more).toBe(5);
});

test('a value whose kind changed is one change at its path, the root named as the whole state', () => {
  expect(stateDiff({ a: [1] }, { a: { 0: 1 } }).changes).toEqual([{ path: 'a', before: [1], after: { 0: 1 } }]);
  expect(stateDiff(1, 2).changes).toEqual([{ path: '(the whole state)', before: 1, after: 2 }]);
  expect(stateDiff({ a: { b: 1 } }, { a: { b: 1 } })).toEqual({ changes: [], more: 0 });
});

test('--compare names the first difference and leaves out frame-like counters', () => {
  expect(
    firstDifference({ frame: 1, z: 1, a: { leaseMsLeft: 3, v: 1 } }, { frame: 2, z: 2, a: { leaseMsLeft: 9, v: 2 } }, [
      'frame',
    ]),
  ).toEqual({
    path: 'a.v',
    a: 1,
    b: 2,
  });
});
