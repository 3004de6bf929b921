/** Ownership of launched instances and the detached-TTL sweep, against an in-memory launcher. */
import { jest } from '@jest/globals';
import { Owners } from '../../../../daemon/launcher/owners.js';
import type { Launcher } from '../../../../daemon/launcher/launcher.js';
import type { LaunchedInstance } from '../../../../daemon/launcher/types.js';

const TTL = 1000;

function setup(owners: Record<number, string | undefined>, live: string[]) {
  const table = new Map<number, LaunchedInstance>();
  for (const [port, owner] of Object.entries(owners))
    table.set(Number(port), { port: Number(port), pid: Number(port) + 1, owner } as LaunchedInstance);
  const launcher = {
    get: (port: number) => table.get(port),
    list: () => [...table.values()].sort((a, b) => a.port - b.port),
    setOwner: (port: number, owner: string | undefined) => {
      const i = table.get(port);
      if (i) i.owner = owner;
    },
  } as unknown as Launcher;
  const liveSet = new Set(live);
  const reaped: number[] = [];
  const o = new Owners(
    launcher,
    (id) => liveSet.has(id),
    TTL,
    async (port) => {
      reaped.push(port);
      table.delete(port);
    },
  );
  return { o, table, liveSet, reaped };
}

test("the sweep never reaps a live session's instance, however long it runs", async () => {
  const { o, reaped } = setup({ 1: 'alive' }, ['alive']);
  for (let t = 0; t <= 10 * TTL; t += TTL / 2) await o.sweep(t);
  expect(reaped).toEqual([]);
});

test('a detached instance is reaped once it has been detached for the TTL, not before', async () => {
  const { o, reaped } = setup({ 1: undefined, 2: 'gone-session' }, []);
  const t0 = 5 * TTL; // not 0: the age is now minus the start, whatever the start
  await o.sweep(t0); // the clock starts at the first sweep that sees them detached
  await o.sweep(t0 + TTL - 1);
  expect(reaped).toEqual([]);
  await o.sweep(t0 + TTL);
  expect(reaped).toEqual([1, 2]);
});

test('sessionEnded detaches only that session’s instances and starts their clock then', async () => {
  const { o, table, liveSet, reaped } = setup({ 1: 'a', 2: 'b' }, ['a', 'b']);
  const t0 = Date.now();
  liveSet.delete('a');
  o.sessionEnded('a');
  expect(table.get(1)!.owner).toBeUndefined();
  expect(table.get(2)!.owner).toBe('b');
  await o.sweep(t0 + TTL + 5000);
  expect(reaped).toEqual([1]);
});

test('an instance whose owner came back (or was adopted) loses its detached clock', async () => {
  const { o, liveSet, reaped } = setup({ 1: 's' }, []);
  await o.sweep(0); // detached: clock starts
  liveSet.add('s'); // the owner is live again
  await o.sweep(TTL / 2);
  liveSet.delete('s');
  await o.sweep(TTL + 1); // detached again: a new clock, not the old one
  expect(reaped).toEqual([]);
  await o.sweep(2 * TTL + 1);
  expect(reaped).toEqual([1]);
});

test('adoptIfDetached gives the caller a detached instance but not another live session’s', async () => {
  const { o, table } = setup({ 1: undefined, 2: 'other', 3: 'dead' }, ['other', 'me']);
  o.adoptIfDetached(1, 'me');
  o.adoptIfDetached(2, 'me');
  o.adoptIfDetached(3, 'me');
  o.adoptIfDetached(99, 'me'); // not launched here: nothing happens
  expect([...table.values()].map((i) => i.owner)).toEqual(['me', 'other', 'me']);
});

test('adopting stops the detached clock', async () => {
  const { o, reaped } = setup({ 1: undefined }, ['me']);
  await o.sweep(0);
  o.adoptIfDetached(1, 'me');
  await o.sweep(5 * TTL);
  expect(reaped).toEqual([]);
});

test('labels and ownedByAnotherLiveSession, as each session reads them', () => {
  const { o, table } = setup({ 1: 'me', 2: 'other', 3: 'dead', 4: undefined }, ['me', 'other']);
  const inst = (p: number) => table.get(p)!;
  expect([1, 2, 3, 4].map((p) => o.label(inst(p), 'me'))).toEqual(['you', 'another session', 'detached', 'detached']);
  expect([1, 2, 3, 4].map((p) => o.ownedByAnotherLiveSession(inst(p), 'me'))).toEqual([false, true, false, false]);
});

test('a second markDetached does not restart the clock the first one started', async () => {
  const { o, reaped } = setup({ 1: undefined }, []);
  o.markDetached(1);
  const t = Date.now();
  o.markDetached(1); // a second mark does not restart the clock
  await o.sweep(t + TTL);
  expect(reaped).toEqual([1]);
});

test('forget drops the clock of a detached instance', async () => {
  const again = setup({ 2: undefined }, []);
  again.o.markDetached(2);
  again.o.forget(2);
  await again.o.sweep(Date.now() + TTL); // forgotten: the clock starts now
  expect(again.reaped).toEqual([]);
});

test('a TTL of 0 never reaps', async () => {
  const reaped: number[] = [];
  const never = new Owners(
    { list: () => [{ port: 5 }] } as unknown as Launcher,
    () => false,
    0,
    async () => void reaped.push(5),
  );
  await never.sweep(0);
  await never.sweep(Number.MAX_SAFE_INTEGER);
  expect(reaped).toEqual([]);
  never.stop();
});

test('a reap that fails does not stop the sweep of the others', async () => {
  const { o, table } = setup({ 1: undefined, 2: undefined }, []);
  const tried: number[] = [];
  const failing = new Owners(
    { list: () => [...table.values()] } as unknown as Launcher,
    () => false,
    TTL,
    async (p) => {
      tried.push(p);
      throw new Error('stop failed');
    },
  );
  await failing.sweep(0);
  await failing.sweep(TTL);
  expect(tried).toEqual([1, 2]);
  o.stop();
});

test('markDetached keeps the first clock: a second mark later does not restart it', async () => {
  jest.useFakeTimers({ now: 10 * TTL });
  try {
    const { o, reaped } = setup({ 1: undefined }, []);
    o.markDetached(1);
    jest.setSystemTime(10 * TTL + TTL / 2);
    o.markDetached(1);
    await o.sweep(11 * TTL); // a TTL after the first mark, half of one after the second
    expect(reaped).toEqual([1]);
    o.stop();
  } finally {
    jest.useRealTimers();
  }
});

test('the daemon sweeps on its own every quarter TTL', async () => {
  jest.useFakeTimers({ now: 0 });
  try {
    const { o, reaped } = setup({ 1: undefined }, []);
    await jest.advanceTimersByTimeAsync(TTL / 4); // first sweep: the clock starts at 250
    await jest.advanceTimersByTimeAsync(TTL - 1); // 1249: the timer swept at 1000, age 750
    expect(reaped).toEqual([]);
    await jest.advanceTimersByTimeAsync(1); // 1250: the timer sweeps at age 1000
    expect(reaped).toEqual([1]);
    o.stop();
  } finally {
    jest.useRealTimers();
  }
});

test("stop() ends the daemon's own sweeps", async () => {
  jest.useFakeTimers({ now: 0 });
  try {
    const later = setup({ 2: undefined }, []);
    later.o.stop();
    await jest.advanceTimersByTimeAsync(10 * TTL);
    expect(later.reaped).toEqual([]);
  } finally {
    jest.useRealTimers();
  }
});

test('the sweep interval is at least 100 ms and at most 30 s, none for a TTL of 0', async () => {
  jest.useFakeTimers({ now: 0 });
  try {
    const fast = new Owners(
      { list: () => [] } as unknown as Launcher,
      () => false,
      40,
      async () => undefined,
    );
    const slow = new Owners(
      { list: () => [] } as unknown as Launcher,
      () => false,
      3600_000,
      async () => undefined,
    );
    const none = new Owners(
      { list: () => [] } as unknown as Launcher,
      () => false,
      0,
      async () => undefined,
    );
    const fastSweep = jest.spyOn(fast, 'sweep');
    const slowSweep = jest.spyOn(slow, 'sweep');
    const noneSweep = jest.spyOn(none, 'sweep');
    await jest.advanceTimersByTimeAsync(99);
    expect(fastSweep).not.toHaveBeenCalled(); // 40 / 4 = 10 ms, raised to 100
    await jest.advanceTimersByTimeAsync(1);
    expect(fastSweep).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(30_000 - 100);
    expect(slowSweep).toHaveBeenCalledTimes(1); // an hour / 4, lowered to 30 s
    expect(noneSweep).not.toHaveBeenCalled(); // a TTL of 0 never sweeps
    for (const x of [fast, slow, none]) x.stop();
  } finally {
    jest.useRealTimers();
  }
});
