/** wait_for's conditions, operator by operator, and its polling rules, against a scripted client. */
import { conditionFrom, holds, waitFor, OPERATORS, type Condition } from '../../../../daemon/sync/wait.js';
import { gameOffline } from '../../../../shared/errors.js';
import { fakeClient } from '../../../helpers/fake-client.js';

const state = {
  frame: 40,
  ui: { screen: 'GameScreen' },
  events: ['score:+10', { m: 'drop:crate#1' }, 7],
  game: {
    score: 30,
    label: 'Crate Stack',
    count: '12',
    on: true,
    off: false,
    nothing: null,
    crates: [{ x: 1 }, { x: 2 }],
    bumps: { a: 1 },
    empty: '',
  },
};
const c = (path: string, op: Condition['op'], operand: unknown): Condition => ({ path, op, operand });
const ok = (path: string, op: Condition['op'], operand: unknown) => holds(state, c(path, op, operand)).ok;

describe('operators', () => {
  test('equals: loose over numbers as text, booleans as text, deep over objects and arrays', () => {
    expect(ok('game.score', 'equals', 30)).toBe(true);
    expect(ok('game.score', 'equals', '30')).toBe(true);
    expect(ok('game.score', 'equals', ' ')).toBe(false);
    expect(ok('game.score', 'equals', 31)).toBe(false);
    expect(ok('game.count', 'equals', 12)).toBe(false); // only the state's number is read loosely
    expect(ok('game.on', 'equals', 'true')).toBe(true);
    expect(ok('game.on', 'equals', 'false')).toBe(false);
    expect(ok('game.off', 'equals', false)).toBe(true);
    expect(ok('game.crates', 'equals', [{ x: 1 }, { x: 2 }])).toBe(true);
    expect(ok('game.crates', 'equals', [{ x: 1 }])).toBe(false);
    expect(ok('game.nothing', 'equals', null)).toBe(true);
    expect(ok('game.nothing', 'equals', {})).toBe(false);
    expect(ok('game.bumps', 'equals', null)).toBe(false);
    expect(ok('game.missing', 'equals', 'x')).toBe(false);
    expect(holds(state, c('game.score', 'equals', 30)).value).toBe(30);
  });

  test('notEquals is the exact opposite of equals', () => {
    expect(ok('ui.screen', 'notEquals', 'MenuScreen')).toBe(true);
    expect(ok('ui.screen', 'notEquals', 'GameScreen')).toBe(false);
    expect(ok('game.score', 'notEquals', '30')).toBe(false);
    expect(ok('game.missing', 'notEquals', 'x')).toBe(true);
  });

  test('gt, gte, lt, lte compare numbers (numeric text too) and fail on anything else', () => {
    const cases: Array<[Condition['op'], unknown, boolean]> = [
      ['gt', 29, true],
      ['gt', 30, false],
      ['gt', '29', true],
      ['gte', 30, true],
      ['gte', 31, false],
      ['gte', '30', true],
      ['lt', 31, true],
      ['lt', 30, false],
      ['lt', '31', true],
      ['lte', 30, true],
      ['lte', 29, false],
      ['lte', '30', true],
    ];
    for (const [op, operand, want] of cases)
      expect(`${op} ${String(operand)}: ${ok('game.score', op, operand)}`).toBe(`${op} ${String(operand)}: ${want}`);
    expect(ok('game.count', 'gt', 11)).toBe(true); // "12"
    expect(ok('game.count', 'lte', 11)).toBe(false);
    for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
      expect(ok('game.label', op, 0)).toBe(false);
      expect(ok('game.empty', op, 0)).toBe(false); // '' is not 0
      expect(ok('game.missing', op, 0)).toBe(false);
      expect(ok('game.score', op, '')).toBe(false);
      expect(ok('game.score', op, 'x')).toBe(false);
    }
  });

  test('contains: a substring, an array member (events by their text), an object key', () => {
    expect(ok('game.label', 'contains', 'Stack')).toBe(true);
    expect(ok('game.label', 'contains', 'stack')).toBe(false);
    expect(ok('events', 'contains', 'score:+10')).toBe(true);
    expect(ok('events', 'contains', 'drop:crate#1')).toBe(true); // an {m} event
    expect(ok('events', 'contains', '7')).toBe(true); // loose equality inside arrays
    expect(ok('events', 'contains', 'nope')).toBe(false);
    expect(ok('game.crates', 'contains', { x: 2 })).toBe(true);
    expect(ok('game.bumps', 'contains', 'a')).toBe(true);
    expect(ok('game.bumps', 'contains', 'b')).toBe(false);
    expect(ok('game.score', 'contains', 3)).toBe(false);
    expect(ok('game.nothing', 'contains', 'x')).toBe(false);
    expect(ok('game.missing', 'contains', 'x')).toBe(false);
  });

  test('matches: a regular expression over text, or over the JSON of anything else', () => {
    expect(ok('ui.screen', 'matches', '^Game')).toBe(true);
    expect(ok('ui.screen', 'matches', '^Menu')).toBe(false);
    expect(ok('game.score', 'matches', '^3\\d$')).toBe(true);
    expect(ok('game.bumps', 'matches', '"a":1')).toBe(true);
    expect(ok('game.label', 'matches', '^"')).toBe(false); // text is matched as is, not as JSON
    expect(ok('game.missing', 'matches', '.*')).toBe(false);
  });

  test('exists wants the path present unless it is false or "false", which want it absent', () => {
    expect(ok('game.nothing', 'exists', true)).toBe(true); // null is a value
    expect(ok('game.crates.1.x', 'exists', true)).toBe(true);
    expect(ok('game.missing', 'exists', true)).toBe(false);
    expect(ok('game.missing', 'exists', false)).toBe(true);
    expect(ok('game.missing', 'exists', 'false')).toBe(true);
    expect(ok('game.score', 'exists', false)).toBe(false);
    expect(ok('game.score', 'exists', 'yes')).toBe(true);
  });
});

describe('conditionFrom', () => {
  test('takes the one operator given, with its operand', () => {
    for (const op of OPERATORS)
      expect(conditionFrom({ path: 'a.b', [op]: 1 })).toEqual({ path: 'a.b', op, operand: 1 });
    expect(conditionFrom({ path: 'x', exists: false }).operand).toBe(false);
  });

  test('refuses no path, no operator, two operators, a bad regular expression', () => {
    expect(() => conditionFrom({ equals: 1 })).toThrow(/^wait_for needs 'path'/);
    expect(() => conditionFrom({ path: '', equals: 1 })).toThrow(/needs 'path'/);
    expect(() => conditionFrom({ path: 'x' })).toThrow(/exactly one operator of equals, .*; got none\./);
    expect(() => conditionFrom({ path: 'x', equals: 1, gt: 0 })).toThrow(/got equals, gt\./);
    expect(() => conditionFrom({ path: 'x', matches: '(' })).toThrow(/'matches' is not a valid regular expression/);
    expect(conditionFrom({ path: 'x', matches: 'a(b)?' }).op).toBe('matches');
  });
});

describe('waitFor', () => {
  const cond = c('game.n', 'gte', 3);
  const at = (frame: number, n: number) => ({ frame, game: { n } });

  test('polls until the condition holds and answers what it saw there', async () => {
    const f = fakeClient({ states: [at(1, 1), at(2, 2), at(3, 3)] });
    const r = await waitFor(f.client, cond, { timeoutMs: 5000 });
    expect(r).toMatchObject({ matched: true, path: 'game.n', value: 3, frame: 3, polls: 3 });
    expect(f.reads).toBe(3);
  });

  test('a frame going backwards is a restart: CallInterrupted, never a match from the new process', async () => {
    const f = fakeClient({ states: [at(100, 0), at(101, 0), at(2, 5)] });
    await expect(waitFor(f.client, cond, { timeoutMs: 5000 })).rejects.toThrow(
      /^wait_for game\.n on port 7777 was interrupted.*frame went from 101 back to 2/s,
    );
    expect(f.reads).toBe(3);
  });

  test('a generation change (another pid, a relaunch) interrupts the wait as well', async () => {
    const f = fakeClient({ states: [at(5, 0), at(6, 0), at(7, 9)] });
    // the port's generation changes once the second reply has arrived
    const waiting = waitFor(f.client, cond, { timeoutMs: 5000, generation: () => (f.reads >= 2 ? 1 : 0) });
    await expect(waiting).rejects.toMatchObject({ kind: 'CallInterrupted' });
  });

  test('times out with the last value and frame, in the contract wording', async () => {
    const f = fakeClient({ states: [at(8, 1)] });
    const e = await waitFor(f.client, cond, { timeoutMs: 120 }).catch((x: unknown) => x);
    expect(e).toMatchObject({ kind: 'CommandTimeout', data: { port: 7777, path: 'game.n', lastValue: 1, frame: 8 } });
    expect(String((e as Error).message)).toBe(
      'wait_for game.n gte 3 did not hold within 120ms on port 7777; last value: 1 at frame 8. Check the path with get_state, or raise timeoutMs.',
    );
    const missing = await waitFor(fakeClient({ states: [{ game: {} }] }).client, c('game.x', 'exists', true), {
      timeoutMs: 60,
    }).catch((x: Error) => x.message);
    expect(missing).toMatch(/^wait_for game\.x exists did not hold within 60ms .*last value: missing\. /);
  });

  test('only a poll that times out is ridden out: any other failure ends the wait', async () => {
    const slow = gameOffline(7777, undefined, 50, '/state');
    const f = fakeClient({ states: [slow, at(1, 3)] });
    expect((await waitFor(f.client, cond, { timeoutMs: 5000 })).value).toBe(3);
    // the deadline passing while polls go unanswered is the wait's timeout, with what was last seen
    const late = await waitFor(fakeClient({ states: [at(1, 0), slow] }).client, cond, { timeoutMs: 120 }).catch(
      (x: unknown) => x,
    );
    expect(late).toMatchObject({ kind: 'CommandTimeout', data: { lastValue: 0, frame: 1 } });
    const gone = fakeClient({ states: [gameOffline(7777)] });
    await expect(waitFor(gone.client, cond, { timeoutMs: 5000 })).rejects.toMatchObject({ kind: 'GameOffline' });
  });

  test('each poll is given at most what is left of the deadline (never under 50 ms)', async () => {
    const f = fakeClient({ states: [at(1, 0)], timeoutMs: 5000 });
    await waitFor(f.client, cond, { timeoutMs: 300 }).catch(() => undefined);
    expect(f.stateTimeouts[0]).toBeLessThanOrEqual(300);
    expect(f.stateTimeouts[0]).toBeGreaterThan(200);
    expect(Math.min(...(f.stateTimeouts as number[]))).toBeGreaterThanOrEqual(50);
  });

  test('a cancelled wait stops polling', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(
      waitFor(fakeClient({ states: [at(1, 0)] }).client, cond, { timeoutMs: 5000, signal: ac.signal }),
    ).rejects.toThrow(/wait_for was cancelled/);
  });
});

describe('matches runs in linear time (the daemon is shared)', () => {
  test('a catastrophic pattern against a long run of a letter answers at once (it took seconds in a backtracking engine)', () => {
    const evil = { frame: 1, text: 'a'.repeat(24) + '!' };
    const t0 = Date.now();
    expect(holds(evil, c('text', 'matches', '^(a+)+$')).ok).toBe(false);
    expect(Date.now() - t0).toBeLessThan(500);
  });

  test('what the linear engine cannot do (backreferences, lookaround) is refused as a usage error saying so', () => {
    expect(() => conditionFrom({ path: 'x', matches: '(a)\\1' })).toThrow(
      /RE2 syntax: no backreferences or lookaround/,
    );
    expect(() => conditionFrom({ path: 'x', matches: 'a(?=b)' })).toThrow(/linear-time engine/);
  });

  // RE2 steps every instruction of the program for every character: 8,003 instructions over 20 KB held the loop for seconds.
  const bigState = { frame: 1, game: { log: 'x'.repeat(20_000) } };

  test('a pattern that compiles to more instructions than the limit is refused when given, naming the limit', () => {
    const wide = '[\\s\\S]{1000}'.repeat(8) + '[^b]';
    expect(() => conditionFrom({ path: 'game', matches: wide })).toThrow(
      /^wait_for 'matches' is too large for the shared daemon: it compiles to 8003 instructions, over the limit of 1000/,
    );
    expect(() => holds(bigState, c('game', 'matches', wide))).toThrow(/over the limit of 1000/);
  });

  test('a match whose text times program is over the limit is refused, naming the limit and the longest text allowed', () => {
    expect(() => holds(bigState, c('game', 'matches', '[\\s\\S]{100}[^b]'))).toThrow(
      /^wait_for 'matches' would cost too much on the shared daemon: the text is 20010 characters and the pattern 103 instructions, over the limit of 250000 characters × instructions \(with this pattern, at most 2427 characters\)/,
    );
    // a small pattern over the same state, and a wide one over a short value, still match
    expect(holds(bigState, c('game', 'matches', 'x{5}"')).ok).toBe(true);
    expect(holds({ frame: 1, name: 'y'.repeat(200) }, c('name', 'matches', '[\\s\\S]{100}[^b]')).ok).toBe(true);
  });
});

describe('session epochs', () => {
  test('a wait that spans a new run (sessionEpoch changed) fails as CallInterrupted naming both epochs', async () => {
    const f = fakeClient({
      states: [
        { frame: 1, sessionEpoch: 4, game: { score: 1 } },
        { frame: 2, sessionEpoch: 5, game: { score: 99 } },
      ],
    });
    const e = await waitFor(f.client, c('game.score', 'gte', 50), { timeoutMs: 5000 }).catch((x: unknown) => x);
    expect(e).toMatchObject({ kind: 'CallInterrupted' });
    expect(String((e as Error).message)).toMatch(
      /^wait_for game\.score on port 7777 was interrupted: the game started a new run while it was pending \(sessionEpoch went from 4 to 5\)/,
    );
  });

  test('a wait for the epoch itself is a wait for the new run', async () => {
    const f = fakeClient({
      states: [
        { frame: 1, sessionEpoch: 4 },
        { frame: 2, sessionEpoch: 5 },
      ],
    });
    await expect(waitFor(f.client, c('sessionEpoch', 'gt', 4), { timeoutMs: 5000 })).resolves.toMatchObject({
      matched: true,
      value: 5,
    });
  });
});
