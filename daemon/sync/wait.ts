/**
 * wait_for: re-read a fresh snapshot until a condition on one path holds.
 * Fails clearly on timeout (with the last value seen) and when the game process changes
 * under it (frame going backwards).
 */
import { isTimeout, usageError, waitTimeout } from '../../shared/errors.js';
import type { GameClient, State } from '../game/client.js';
import { getPath, hasPath } from './path.js';
import { EpochWatch } from './epoch.js';
import { pollDelay, pollState } from './poll.js';
import { sleep } from '../../shared/sleep.js';
import { ProcessWatch } from './command.js';
import { frameOf } from './summary.js';
import { linearRegex, matchesText } from './regex.js';

import { OPERATORS, type Operator } from '../../shared/test-file.js';

export { OPERATORS, type Operator };

export interface Condition {
  path: string;
  op: Operator;
  operand: unknown;
}

export interface WaitResult {
  matched: true;
  path: string;
  value: unknown;
  elapsedMs: number;
  frame?: number;
  polls: number;
  /** the snapshot the condition held in */
  state: State;
}

/** Pick the one operator present in tool arguments. */
export function conditionFrom(args: Record<string, unknown>): Condition {
  const path = args.path;
  if (typeof path !== 'string' || !path)
    throw usageError("wait_for needs 'path' (a dotted path like ui.screen) and one operator.");
  const ops = OPERATORS.filter((o) => args[o] !== undefined);
  if (ops.length !== 1) {
    throw usageError(
      `wait_for needs exactly one operator of ${OPERATORS.join(', ')}; got ${ops.length ? ops.join(', ') : 'none'}.`,
    );
  }
  const op = ops[0];
  if (op === 'matches') linearRegex(String(args.matches));
  return { path, op, operand: args[op] };
}

function looseEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'string' && b.trim() !== '') return a === Number(b);
  if (typeof a === 'boolean' && typeof b === 'string') return String(a) === b;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object')
    return JSON.stringify(a) === JSON.stringify(b);
  return false;
}

/** Whether the condition holds on this state, and the value it read at its path. */
export function holds(state: State, c: Condition): { ok: boolean; value: unknown } {
  const value = getPath(state, c.path);
  const num = (x: unknown) => (typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN);
  switch (c.op) {
    case 'exists': {
      const want = c.operand !== false && c.operand !== 'false';
      return { ok: hasPath(state, c.path) === want, value };
    }
    case 'equals':
      return { ok: looseEqual(value, c.operand), value };
    case 'notEquals':
      return { ok: !looseEqual(value, c.operand), value };
    case 'gt':
      return { ok: num(value) > num(c.operand), value };
    case 'gte':
      return { ok: num(value) >= num(c.operand), value };
    case 'lt':
      return { ok: num(value) < num(c.operand), value };
    case 'lte':
      return { ok: num(value) <= num(c.operand), value };
    case 'contains':
      if (typeof value === 'string') return { ok: value.includes(String(c.operand)), value };
      if (Array.isArray(value))
        return {
          ok: value.some(
            (v) =>
              looseEqual(v, c.operand) ||
              (typeof v === 'object' && v !== null && (v as { m?: unknown }).m === c.operand),
          ),
          value,
        };
      if (value && typeof value === 'object')
        return { ok: Object.prototype.hasOwnProperty.call(value, String(c.operand)), value };
      return { ok: false, value };
    case 'matches':
      return {
        ok:
          value !== undefined &&
          matchesText(String(c.operand), typeof value === 'string' ? value : JSON.stringify(value)),
        value,
      };
  }
}

export async function waitFor(
  client: GameClient,
  c: Condition,
  opts: { timeoutMs: number; signal?: AbortSignal; generation?: () => number },
): Promise<WaitResult> {
  const started = Date.now();
  const watch = new ProcessWatch(client.port, `wait_for ${c.path}`, opts.generation);
  // A wait for the epoch itself is a wait for the new run, not one spanning it.
  const runs = c.path === 'sessionEpoch' ? undefined : new EpochWatch(client.port, `wait_for ${c.path}`);
  let lastValue: unknown;
  let polls = 0;
  return pollUntil(client, watch, opts, {
    seen(state) {
      polls++;
      runs?.check(state);
      const r = holds(state, c);
      lastValue = r.value;
      if (!r.ok) return undefined;
      const frame = frameOf(state);
      return { matched: true, path: c.path, value: r.value, elapsedMs: Date.now() - started, frame, polls, state };
    },
    timedOut: () => waitTimeout(client.port, c.path, conditionText(c), opts.timeoutMs, lastValue, watch.frame),
    cancelled: () => usageError('wait_for was cancelled.'),
  });
}

/**
 * Fresh states, the first at once, until `seen` makes something of one: the loop wait_for and
 * an input's frame count (frames.ts) share. Each state is checked against `watch` (a restart
 * fails it); a game too busy to answer one poll is still the same game, so the loop goes on
 * until its deadline, which ends it with `timedOut()`.
 */
export async function pollUntil<T>(
  client: GameClient,
  watch: ProcessWatch,
  opts: { timeoutMs: number; signal?: AbortSignal },
  on: { seen(state: State): T | undefined; timedOut(): Error; cancelled(): Error },
): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    if (opts.signal?.aborted) throw on.cancelled();
    let state: State;
    try {
      state = await pollState(client, opts.signal, started, opts.timeoutMs);
    } catch (e) {
      if (!isTimeout(e)) throw e;
      if (Date.now() - started < opts.timeoutMs) continue;
      throw on.timedOut();
    }
    watch.check(frameOf(state));
    const done = on.seen(state);
    if (done !== undefined) return done;
    const remaining = opts.timeoutMs - (Date.now() - started);
    if (remaining <= 0) throw on.timedOut();
    await sleep(Math.min(pollDelay(attempt + 2), remaining), opts.signal);
  }
}

/** The condition as the timeout message quotes it: `gte 3`, `exists`. */
function conditionText(c: Condition): string {
  return `${c.op}${c.op === 'exists' ? '' : ' ' + JSON.stringify(c.operand)}`;
}
