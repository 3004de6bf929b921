/** Command sync against a scripted client: how a command is confirmed, and when it is not. */
import { commandAndSync } from '../../../../daemon/sync/command.js';
import { gameOffline, notAGameSurface } from '../../../../shared/errors.js';
import { fakeClient } from '../../../helpers/fake-client.js';

const opts = { timeoutMs: 5000 };

test("completedCommandId reaching the command id confirms it with that snapshot's state", async () => {
  const f = fakeClient({
    ack: { commandId: 4, frame: 10 },
    states: [
      { frame: 10, completedCommandId: 3 },
      { frame: 11, completedCommandId: 4, ui: { screen: 'S' }, game: { n: 1 }, events: ['e'] },
    ],
  });
  const r = await commandAndSync(f.client, 'drop', { x: 1 }, opts);
  expect(f.commands).toEqual([['drop', { x: 1 }]]);
  expect(r).toMatchObject({
    command: 'drop',
    applied: true,
    commandId: 4,
    confirmation: 'completedCommandId',
    polls: 2,
    frame: 11,
    screen: 'S',
    game: { n: 1 },
    events: ['e'],
  });
  expect(r.state).toEqual({ frame: 11, completedCommandId: 4, ui: { screen: 'S' }, game: { n: 1 }, events: ['e'] });
});

test('a completedCommandId below the id keeps waiting, however many frames pass', async () => {
  const f = fakeClient({
    ack: { commandId: 9, frame: 1 },
    states: [
      { frame: 5, completedCommandId: 8 },
      { frame: 9, completedCommandId: 8 },
      { frame: 12, completedCommandId: 10 },
    ],
  });
  const r = await commandAndSync(f.client, 'go', {}, opts);
  expect(r).toMatchObject({ confirmation: 'completedCommandId', polls: 3, frame: 12 });
});

test('frames-advanced: without completedCommandId the command counts as applied two frames after the ack, not one', async () => {
  const f = fakeClient({
    ack: { commandId: 2, frame: 20 },
    states: [{ frame: 20 }, { frame: 21, game: { applied: false } }, { frame: 22, game: { applied: true } }],
  });
  const r = await commandAndSync(f.client, 'go', {}, opts);
  expect(r).toMatchObject({
    applied: true,
    confirmation: 'frames-advanced',
    frame: 22,
    game: { applied: true },
    polls: 3,
  });
});

test('frames-advanced counts from the first frame seen when the ack carries none', async () => {
  const f = fakeClient({
    ack: { commandId: undefined, frame: undefined },
    states: [{ frame: 50 }, { frame: 51 }, { frame: 52, game: { ok: 1 } }],
  });
  const r = await commandAndSync(f.client, 'go', {}, opts);
  expect(r).toMatchObject({ confirmation: 'frames-advanced', frame: 52, polls: 3 });
  expect(r.commandId).toBeUndefined();
});

test('a frame going backwards is a restart: CallInterrupted naming the command and both frames', async () => {
  const f = fakeClient({
    ack: { commandId: 7, frame: 500 },
    states: [
      { frame: 501, completedCommandId: 6 },
      { frame: 3, completedCommandId: 9 },
    ],
  });
  const e = await commandAndSync(f.client, 'bump', {}, opts).catch((x: unknown) => x);
  expect(e).toMatchObject({ kind: 'CallInterrupted' });
  expect(String((e as Error).message)).toMatch(
    /^Command 'bump' on port 7777 was interrupted.*frame went from 501 back to 3/s,
  );
  expect(f.reads).toBe(2);
});

test('a restart seen before any poll (the ack frame is higher than the first poll) is caught too', async () => {
  const f = fakeClient({ ack: { commandId: 1, frame: 900 }, states: [{ frame: 2, completedCommandId: 5 }] });
  await expect(commandAndSync(f.client, 'bump', {}, opts)).rejects.toThrow(/frame went from 900 back to 2/);
});

test('a generation change during the wait (another pid, a relaunch) interrupts it', async () => {
  const f = fakeClient({
    ack: { commandId: 2, frame: 10 },
    states: [
      { frame: 11, completedCommandId: 1 },
      { frame: 12, completedCommandId: 2 },
    ],
  });
  const p = commandAndSync(f.client, 'bump', {}, { ...opts, generation: () => (f.reads >= 1 ? 4 : 3) });
  await expect(p).rejects.toMatchObject({ kind: 'CallInterrupted' });
});

test('no confirmation in time: CommandTimeout with the last frame seen', async () => {
  const f = fakeClient({ ack: { commandId: 5, frame: 1 }, states: [{ frame: 1, completedCommandId: 0 }] });
  const e = await commandAndSync(f.client, 'slow', {}, { timeoutMs: 150 }).then(
    () => new Error('no failure'),
    (x: Error) => x,
  );
  expect(e).toMatchObject({ kind: 'CommandTimeout' });
  expect(e.message).toMatch(/'slow' .*150ms.*\(last frame seen: 1\)/);
  const none = fakeClient({ ack: { commandId: 5, frame: undefined }, states: [{ completedCommandId: 0 }] });
  expect(
    (
      await commandAndSync(none.client, 'slow', {}, { timeoutMs: 60 }).then(
        () => new Error('no failure'),
        (x: Error) => x,
      )
    ).message,
  ).not.toMatch(/last frame/);
});

test('only a poll that timed out is retried until the deadline: any other failure ends the sync', async () => {
  const f = fakeClient({
    ack: { commandId: 1, frame: 1 },
    states: [gameOffline(7777, undefined, 100, '/state'), { frame: 2, completedCommandId: 1 }],
  });
  expect((await commandAndSync(f.client, 'x', {}, opts)).confirmation).toBe('completedCommandId');
  const broken = fakeClient({ ack: { commandId: 1, frame: 1 }, states: [notAGameSurface(7777, 'garbage')] });
  await expect(commandAndSync(broken.client, 'x', {}, opts)).rejects.toMatchObject({ kind: 'NotAGameSurface' });
});

test('each poll gets what is left of the deadline, 50 ms at least', async () => {
  const f = fakeClient({
    ack: { commandId: 1, frame: 1 },
    states: [{ frame: 1, completedCommandId: 0 }],
    timeoutMs: 5000,
  });
  await commandAndSync(f.client, 'x', {}, { timeoutMs: 300 }).catch(() => undefined);
  expect(f.stateTimeouts[0]).toBeLessThanOrEqual(300);
  expect(f.stateTimeouts[0]).toBeGreaterThan(200);
  expect(Math.min(...(f.stateTimeouts as number[]))).toBeGreaterThanOrEqual(50);
  const short = fakeClient({
    ack: { commandId: 1, frame: 1 },
    states: [{ frame: 1, completedCommandId: 0 }],
    timeoutMs: 120,
  });
  await commandAndSync(short.client, 'x', {}, { timeoutMs: 400 }).catch(() => undefined);
  expect(Math.max(...(short.stateTimeouts as number[]))).toBeLessThanOrEqual(120); // the client's own timeout caps it
});

test('sync: false answers at once from the ack, without polling', async () => {
  const f = fakeClient({ ack: { commandId: 3, frame: 8 }, states: [{ frame: 9 }] });
  const r = await commandAndSync(f.client, 'fire', { n: 1 }, { ...opts, sync: false });
  expect(r).toEqual({
    command: 'fire',
    applied: false,
    commandId: 3,
    confirmation: 'not-waited',
    polls: 0,
    frame: 8,
    events: [],
  });
  expect(f.reads).toBe(0);
});

test('close is confirmed by the port going quiet, not by a completion', async () => {
  const f = fakeClient({
    ack: { commandId: 3, frame: 8 },
    states: [{ frame: 9 }],
    health: [{ ok: true }, { ok: true }, gameOffline(7777)],
  });
  const r = await commandAndSync(f.client, 'close', {}, opts);
  expect(r).toEqual({
    command: 'close',
    applied: true,
    commandId: 3,
    confirmation: 'port-closed',
    polls: 3,
    events: [],
  });
  expect(f.destroyed).toBe(true);
  expect(f.reads).toBe(0);
});

test('close on a port that keeps answering (or only times out) is a CommandTimeout', async () => {
  const f = fakeClient({
    ack: { commandId: 3, frame: 8 },
    states: [{}],
    health: [{ ok: true }, gameOffline(7777, undefined, 50)],
  });
  const e = await commandAndSync(f.client, 'close', {}, { timeoutMs: 200 }).then(
    () => new Error('no failure'),
    (x: Error) => x,
  );
  expect(e).toMatchObject({ kind: 'CommandTimeout' });
  expect(e.message).toMatch(/the port still answers \/health/);
});

test('a cancelled request stops waiting with CallInterrupted', async () => {
  const ac = new AbortController();
  const f = fakeClient({ ack: { commandId: 3, frame: 1 }, states: [{ frame: 1, completedCommandId: 0 }] });
  const p = commandAndSync(f.client, 'x', {}, { ...opts, signal: ac.signal });
  ac.abort();
  await expect(p).rejects.toThrow(/^Command 'x' on port 7777 was interrupted.*cancelled/s);
});

test('a new run (sessionEpoch changed) before the command completed: CallInterrupted naming both epochs', async () => {
  const f = fakeClient({
    ack: { commandId: 4, frame: 10 },
    states: [
      { frame: 11, completedCommandId: 3, sessionEpoch: 2 },
      { frame: 12, completedCommandId: 3, sessionEpoch: 3 },
      { frame: 13, completedCommandId: 4, sessionEpoch: 3 },
    ],
  });
  const e = await commandAndSync(f.client, 'drop', {}, opts).catch((x: unknown) => x);
  expect(e).toMatchObject({ kind: 'CallInterrupted' });
  expect(String((e as Error).message)).toMatch(
    /^Command 'drop' on port 7777 was interrupted: the game started a new run while it was pending \(sessionEpoch went from 2 to 3\)/,
  );
});

test('the state completing a command may be in a new run of its own making (start): confirmed, with the new epoch', async () => {
  const f = fakeClient({
    ack: { commandId: 4, frame: 10 },
    states: [
      { frame: 11, completedCommandId: 3, sessionEpoch: 2 },
      { frame: 12, completedCommandId: 4, sessionEpoch: 3 },
    ],
  });
  const r = await commandAndSync(f.client, 'start', {}, opts);
  expect(r).toMatchObject({ applied: true, confirmation: 'completedCommandId' });
  expect(r.state?.sessionEpoch).toBe(3);
});

test('a timeout with no frame ever seen says so in the plain message, nothing appended', async () => {
  const none = fakeClient({ ack: { commandId: 5, frame: undefined }, states: [{ completedCommandId: 0 }] });
  const e = await commandAndSync(none.client, 'slow', {}, { timeoutMs: 60 }).then(
    () => new Error('no failure'),
    (x: Error) => x,
  );
  expect(e.message).toBe(
    "Command 'slow' was queued on port 7777 but was not applied within 60ms. " +
      'The game may be paused, frozen or busy: read get_state or health before retrying, or raise --timeout.',
  );
});

test('an ack whose commandId or frame is not a number is not trusted for either', async () => {
  // commandId "5" is no id: confirmation goes by frames; frame "8" is no frame: counting starts at the first poll
  const f = fakeClient({ ack: { commandId: '5', frame: '8' }, states: [{ frame: 1 }, { frame: 2 }, { frame: 3 }] });
  const r = await commandAndSync(f.client, 'x', {}, opts);
  expect(r).toMatchObject({ applied: true, confirmation: 'frames-advanced', frame: 3 });
  expect(r.commandId).toBeUndefined();
});

test("close's /health checks get the lesser of a second and what is left of the deadline", async () => {
  const f = fakeClient({ ack: { commandId: 3 }, states: [{}], health: [{ ok: true }] });
  await commandAndSync(f.client, 'close', {}, { timeoutMs: 1500 }).catch(() => undefined);
  expect(f.healthTimeouts.length).toBeGreaterThan(1);
  expect(Math.max(...(f.healthTimeouts as number[]))).toBeLessThanOrEqual(1000);
  const short = fakeClient({ ack: { commandId: 3 }, states: [{}], health: [{ ok: true }] });
  await commandAndSync(short.client, 'close', {}, { timeoutMs: 300 }).catch(() => undefined);
  expect(Math.max(...(short.healthTimeouts as number[]))).toBeLessThanOrEqual(300);
});

test('a poll without a frame does not forget the last frame: a later frame going backwards is still a restart', async () => {
  const f = fakeClient({
    ack: { commandId: 7, frame: 500 },
    states: [{ frame: 501, completedCommandId: 6 }, { completedCommandId: 6 }, { frame: 3, completedCommandId: 9 }],
  });
  await expect(commandAndSync(f.client, 'bump', {}, opts)).rejects.toThrow(/frame went from 501 back to 3/);
});

test('a generation that stays the same does not interrupt: the command is confirmed', async () => {
  const f = fakeClient({
    ack: { commandId: 2, frame: 10 },
    states: [
      { frame: 11, completedCommandId: 1 },
      { frame: 12, completedCommandId: 2 },
    ],
  });
  const r = await commandAndSync(f.client, 'bump', {}, { ...opts, generation: () => 3 });
  expect(r).toMatchObject({ confirmation: 'completedCommandId', polls: 2 });
});

test('close: a /health answered by something that is not a game is not the port going quiet', async () => {
  const f = fakeClient({
    ack: { commandId: 3, frame: 8 },
    states: [{}],
    health: [notAGameSurface(7777, 'GET /health answered 404')],
  });
  const e = await commandAndSync(f.client, 'close', {}, { timeoutMs: 200 }).then(
    () => new Error('no failure'),
    (x: Error) => x,
  );
  expect(e).toMatchObject({ kind: 'CommandTimeout' });
});

test('an ack without a command id is confirmed by frames, even when the game publishes completedCommandId', async () => {
  const f = fakeClient({
    ack: { commandId: undefined, frame: 30 },
    states: [
      { frame: 31, completedCommandId: 4 },
      { frame: 32, completedCommandId: 4 },
    ],
  });
  const r = await commandAndSync(f.client, 'go', {}, opts);
  expect(r).toMatchObject({ confirmation: 'frames-advanced', frame: 32, polls: 2 });
});
