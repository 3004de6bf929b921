/** How often a proxy starts daemons: a death soon after a start is answered at once, a crash loop is held to ~1/s. */
import { SpawnThrottle } from '../../../proxy/spawn.js';

test('a daemon that dies soon after its own start is replaced at once', () => {
  const t = new SpawnThrottle();
  expect(t.take(0)).toBe(true); // the cold start
  expect(t.take(350)).toBe(true); // killed 350 ms later: the successor starts now, not a second after the first
});

test('a home whose daemon keeps dying gets at most two starts in any two seconds', () => {
  const t = new SpawnThrottle();
  const started = [];
  for (let now = 0; now < 10000; now += 50) if (t.take(now)) started.push(now);
  expect(started.slice(0, 4)).toEqual([0, 50, 2000, 2050]);
  expect(started).toHaveLength(10);
});

test('a forced start (the old daemon handed over) always goes and counts toward the limit', () => {
  const t = new SpawnThrottle();
  expect(t.take(0)).toBe(true);
  expect(t.take(10)).toBe(true);
  expect(t.take(20, true)).toBe(true);
  expect(t.take(2005)).toBe(false); // 10 and 20 are still within two seconds
  expect(t.take(2015)).toBe(true);
});
