/**
 * Running a skill (skill.ts): its steps in order, each `do` through call_tool's own dispatch,
 * `expect` as assert, `wait` as wait_for, `if` and `repeat` deciding on a fresh state, within a
 * step budget and a time budget. The answer is the state after it and what each step said, each
 * step's answer cut to a bounded size. A failing step stops the skill naming it.
 */
import { isBridgeError, usageError } from '../../shared/errors.js';
import type { State } from '../game/client.js';
import { conditionFrom, test } from '../sync/wait.js';
import { conditionText, type Condition } from '../../shared/test-file.js';
import {
  DEFAULT_STEP_BUDGET,
  DEFAULT_TIME_BUDGET_MS,
  MAX_REPEAT,
  substitute,
  type Skill,
  type SkillStep,
} from './skill.js';

/** What one step's answer may take of the skill's answer, in characters of JSON. */
const STEP_ANSWER_CHARS = 600;
/** Step answers kept in the skill's answer: the first ones and the last ones. */
const MAX_REPORTED = 60;

export interface SkillDeps {
  call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  state(): Promise<State>;
  signal: AbortSignal;
}

export interface StepReport {
  step: string;
  did: string;
  answer?: unknown;
}

/**
 * A step's answer without what the skill's answer already says, cut to a bounded size: a
 * command's answer keeps what it did (applied, frame, screen, events) and leaves out the game's
 * state after it, which the skill's answer gives once, after its last step.
 */
function bounded(json: Record<string, unknown>): unknown {
  const { port: _p, tool: _t, via: _v, ...all } = json;
  const command = 'command' in all && 'applied' in all;
  const { game: _g, player: _pl, ...lean } = all;
  const rest = command ? lean : all;
  const text = JSON.stringify(rest);
  return text.length <= STEP_ANSWER_CHARS ? rest : { cut: text.slice(0, STEP_ANSWER_CHARS) + '…', chars: text.length };
}

/** The skill's arguments: the call's, then the defaults; a missing required one is refused. */
export function skillArgs(skill: Skill, given: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const a of skill.args) {
    if (given[a.name] !== undefined) out[a.name] = given[a.name];
    else if (a.default !== undefined) out[a.name] = a.default;
    else if (a.required) missing.push(a.name);
  }
  const unknown = Object.keys(given).filter((k) => k !== 'port' && !skill.args.some((a) => a.name === k));
  if (missing.length || unknown.length)
    throw usageError(
      `skill '${skill.name}': ` +
        [
          missing.length ? `missing ${missing.join(', ')}` : '',
          unknown.length ? `no argument ${unknown.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('; ') +
        `. It takes: ${skill.args.map((a) => a.name + (a.required ? '' : '?')).join(', ') || 'nothing'}.`,
    );
  return out;
}

export async function runSkill(
  skill: Skill,
  given: Record<string, unknown>,
  deps: SkillDeps,
): Promise<Record<string, unknown>> {
  const args = skillArgs(skill, given);
  const stepBudget = skill.maxSteps ?? DEFAULT_STEP_BUDGET;
  const timeBudget = skill.maxMs ?? DEFAULT_TIME_BUDGET_MS;
  const started = Date.now();
  const reports: StepReport[] = [];
  let ran = 0;
  let omitted = 0;
  const report = (r: StepReport) => {
    if (reports.length < MAX_REPORTED) reports.push(r);
    else {
      // keep the first half and the latest: the start says what was set up, the end what happened last
      reports.splice(MAX_REPORTED / 2, 1);
      reports.push(r);
      omitted++;
    }
  };
  const finish = async (extra: Record<string, unknown>) => {
    let state: unknown = null;
    try {
      state = (await deps.call('get_state', {})).state ?? null;
    } catch (e) {
      state = { unreadable: (e as Error).message };
    }
    return {
      skill: skill.name,
      ran,
      elapsedMs: Date.now() - started,
      steps: reports,
      ...(omitted ? { omitted } : {}),
      ...extra,
      state,
    };
  };
  const holds = async (c: Record<string, unknown>) => {
    const cond = conditionFrom(substitute(c, args) as Record<string, unknown>);
    return test(await deps.state(), cond).ok;
  };

  class Stop extends Error {
    constructor(
      readonly at: string,
      readonly why: string,
    ) {
      super(why);
    }
  }

  const runSteps = async (steps: SkillStep[], prefix: string): Promise<void> => {
    for (let i = 0; i < steps.length; i++) {
      const at = `${prefix}${i + 1}`;
      const step = steps[i];
      if (deps.signal.aborted) throw new Stop(at, 'the call was cancelled');
      if (++ran > stepBudget)
        throw new Stop(at, `the step budget of ${stepBudget} ran out (maxSteps in the skill raises it, up to 2000)`);
      if (Date.now() - started > timeBudget)
        throw new Stop(at, `the time budget of ${timeBudget} ms ran out (maxMs in the skill raises it)`);
      try {
        if ('do' in step) {
          const a = substitute(step.arguments, args) as Record<string, unknown>;
          report({ step: at, did: step.name, answer: bounded(await deps.call(step.name, a)) });
        } else if ('expect' in step) {
          const c = substitute(step.expect, args) as Record<string, unknown>;
          report({
            step: at,
            did: `expect ${conditionText(c as Condition)}`,
            answer: bounded(await deps.call('assert', c)),
          });
        } else if ('wait' in step) {
          const c = substitute(step.wait, args) as Record<string, unknown>;
          const timeLeft = Math.max(0, timeBudget - (Date.now() - started));
          const a = { ...c, timeoutMs: Math.min(step.timeoutMs ?? timeLeft, timeLeft) };
          report({
            step: at,
            did: `wait ${conditionText(c as Condition)}`,
            answer: bounded(await deps.call('wait_for', a)),
          });
        } else if ('if' in step) {
          const ok = await holds(step.if);
          report({ step: at, did: `if ${conditionText(step.if as Condition)}`, answer: { held: ok } });
          if (ok) await runSteps(step.then, `${at}.then.`);
          else if (step.else) await runSteps(step.else, `${at}.else.`);
        } else {
          const times = step.repeat.times ?? MAX_REPEAT;
          let pass = 0;
          let done = false;
          while (pass < times) {
            if (step.repeat.until && (await holds(step.repeat.until))) {
              done = true;
              break;
            }
            pass++;
            await runSteps(step.steps, `${at}.repeat.`);
          }
          if (!done && step.repeat.until) done = await holds(step.repeat.until);
          report({ step: at, did: 'repeat', answer: { passes: pass, ...(step.repeat.until ? { until: done } : {}) } });
          if (step.repeat.until && !done)
            throw new Stop(
              at,
              `repeat ran ${pass} times and ${conditionText(step.repeat.until as Condition)} still does not hold`,
            );
        }
      } catch (e) {
        if (e instanceof Stop) throw e;
        throw new Stop(at, isBridgeError(e) || e instanceof Error ? e.message : String(e));
      }
    }
  };

  try {
    await runSteps(skill.steps, '');
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const after = await finish({});
    const cut = (v: unknown, n: number) => {
      const t = JSON.stringify(v);
      return t.length > n ? t.slice(0, n) + '…' : t;
    };
    throw usageError(
      `skill '${skill.name}' stopped at step ${e.at}: ${e.why}. ` +
        `It ran ${ran} step${ran === 1 ? '' : 's'}; the last answers: ${cut(reports.slice(-3), 1500)}. ` +
        `The state after: ${cut(after.state, 2000)}. Fix the skill (define_skill with overwrite: true) or the game's state, then call it again.`,
      { field: `step ${e.at}` },
    );
  }
  return finish({});
}
