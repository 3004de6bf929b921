/** The kit's clock: a step takes one tick per frame, or, for a game that allows it, many frames a tick. */
import { GameClock } from '../../../../kits/js/clock.js';

const ticks = (c: GameClock) => {
  const grants = [];
  while (c.stepping) grants.push(c.grant());
  return grants;
};

test('a step of 5 frames runs by default as 5 ticks of 1 frame, the last completing it and pausing', () => {
  const c = new GameClock();
  c.startStep(7, 5);
  expect(ticks(c)).toEqual([{ frames: 1 }, { frames: 1 }, { frames: 1 }, { frames: 1 }, { frames: 1, stepDone: 7 }]);
  expect(c.simFrame).toBe(5);
  expect(c.grant()).toEqual({ frames: 0 });
});

test('stepFramesPerTick 1000 runs a 2,500-frame step in three ticks to the same frame count', () => {
  const c = new GameClock(1000);
  c.startStep(3, 2500);
  expect(ticks(c)).toEqual([{ frames: 1000 }, { frames: 1000 }, { frames: 500, stepDone: 3 }]);
  expect(c.simFrame).toBe(2500);
  expect(c.paused).toBe(true);
});

test('a stepFramesPerTick that is not a number means 1 frame per tick', () => {
  const bad = new GameClock(Number.NaN);
  bad.startStep(1, 2);
  expect(ticks(bad)).toEqual([{ frames: 1 }, { frames: 1, stepDone: 1 }]);
});

test('a clock started paused grants no frame and keeps simFrame 0 until a step', () => {
  const c = new GameClock(1, true);
  expect([c.grant(), c.grant()]).toEqual([{ frames: 0 }, { frames: 0 }]);
  expect(c.simFrame).toBe(0);
  c.startStep(4, 2);
  expect(ticks(c)).toEqual([{ frames: 1 }, { frames: 1, stepDone: 4 }]);
  expect(c.simFrame).toBe(2);
});
