/** Dotted paths into a state: what a trace shows of the value a check read. */
import { parentPath, valueAt } from '../../../shared/state-path.js';

const state = { game: { score: 0, crates: [{ x: 40 }], gone: null } };

test('a path reads through objects and arrays, in either index form', () => {
  expect(valueAt(state, 'game.crates.0.x')).toEqual({ found: true, value: 40 });
  expect(valueAt(state, 'game.crates[0].x')).toEqual({ found: true, value: 40 });
});

test('a value that is falsy or null is found; a missing key is not', () => {
  expect(valueAt(state, 'game.score')).toEqual({ found: true, value: 0 });
  expect(valueAt(state, 'game.gone')).toEqual({ found: true, value: null });
  expect(valueAt(state, 'game.gone.x')).toEqual({ found: false });
  expect(valueAt(state, 'game.toString')).toEqual({ found: false });
});

test("a path's parent is the object around it, and a top-level key has none", () => {
  expect(parentPath('game.crates.0.x')).toBe('game.crates.0');
  expect(parentPath('game.crates[0]')).toBe('game.crates');
  expect(parentPath('game')).toBeUndefined();
});
