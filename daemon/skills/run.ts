/**
 * Running a skill (skill-file.ts): its steps in order, each `do` through call_tool's own dispatch,
 * `expect` as assert, `wait` as wait_for, `if` and `repeat` deciding on a fresh state, within a
 * step budget and a time budget. The answer is the state after it and what each step said, each
 * step's answer cut to a bounded size. A failing step stops the skill naming it.
 */
import { isBridgeError, usageError } from '../../shared/errors.js';
import type { State } from '../game/client.js';
import { conditionFrom, holds } from '../sync/wait.js';
import { conditionText, type Condition } from '../../shared/test-file.js';
import {
  DEFAULT_STEP_BUDGET,
  DEFAULT_TIME_BUDGET_MS,
  MAX_REPEAT,
  substitute,
  type Skill,
  type SkillStep,
} from './skill-file.js';

/** What one step's answer may take of the skill's answer, in characters of JSON. */
const STEP_ANSWER_CHARS = 600;
/** Step answers kept in the skill's answer: the first ones and the last ones. */
const MAX_REPORTED = 60;

export interface SkillDeps {
  /** One step's tool; `signal` ends it (the call's own cancel, or the skill's time budget). */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  state(signal: AbortSignal): Promise<State>;
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

/** A step that ends the skill: where, and why. */
class Stop extends Error {
  constructor(
    readonly at: string,
    readonly why: string,
  ) {
    super(why);
  }
}

const cut = (v: unknown, n: number) => {
  const t = JSON.stringify(v);
  return t.length > n ? t.slice(0, n) + '…' : t;
};

export async function runSkill(
  skill: Skill,
  given: Record<string, unknown>,
  deps: SkillDeps,
): Promise<Record<string, unknown>> {
  const run = new SkillRun(skill, skillArgs(skill, given), deps);
  try {
    await run.steps(skill.steps, '');
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const after = await run.finish();
    throw usageError(
      `skill '${skill.name}' stopped at step ${e.at}: ${e.why}. ` +
        `It ran ${run.ran} step${run.ran === 1 ? '' : 's'}; the last answers: ${cut(run.reports.slice(-3), 1500)}. ` +
        `The state after: ${cut(after.state, 2000)}. Fix the skill (define_skill with overwrite: true) or the game's state, then call it again.`,
      { field: `step ${e.at}` },
    );
  }
  return run.finish();
}

/** One call of a skill: its budgets, the steps run so far and what each said. */
class SkillRun {
  readonly reports: StepReport[] = [];
  ran = 0;
  private omitted = 0;
  private readonly started = Date.now();
  private readonly stepBudget: number;
  private readonly timeBudget: number;
  /** Aborts when the call is cancelled or the time budget runs out, inside a step too. */
  private readonly budget: AbortSignal;

  constructor(
    private readonly skill: Skill,
    private readonly args: Record<string, unknown>,
    private readonly deps: SkillDeps,
  ) {
    this.stepBudget = skill.maxSteps ?? DEFAULT_STEP_BUDGET;
    this.timeBudget = skill.maxMs ?? DEFAULT_TIME_BUDGET_MS;
    // One controller the run holds, not AbortSignal.any over AbortSignal.timeout: Node keeps the
    // composite's sources weakly, and a timeout signal collected before it fires never aborts it.
    const budget = new AbortController();
    const end = () => budget.abort();
    setTimeout(end, this.timeBudget).unref();
    if (deps.signal.aborted) end();
    else deps.signal.addEventListener('abort', end, { once: true });
    this.budget = budget.signal;
  }

  /** The skill's answer: what each step said and the state after it. */
  async finish(): Promise<Record<string, unknown>> {
    let state: unknown = null;
    try {
      state = (await this.deps.call('get_state', {}, this.deps.signal)).state ?? null;
    } catch (e) {
      state = { unreadable: (e as Error).message };
    }
    return {
      skill: this.skill.name,
      ran: this.ran,
      elapsedMs: Date.now() - this.started,
      steps: this.reports,
      ...(this.omitted ? { omitted: this.omitted } : {}),
      state,
    };
  }

  /** Runs `steps` in order, numbered after `prefix`; a step that fails, or a budget that runs out, throws Stop. */
  async steps(steps: SkillStep[], prefix: string): Promise<void> {
    for (let i = 0; i < steps.length; i++) {
      const at = `${prefix}${i + 1}`;
      if (this.deps.signal.aborted) throw new Stop(at, 'the call was cancelled');
      if (++this.ran > this.stepBudget)
        throw new Stop(
          at,
          `the step budget of ${this.stepBudget} ran out (maxSteps in the skill raises it, up to 2000)`,
        );
      if (this.budget.aborted || Date.now() - this.started > this.timeBudget) throw this.outOfTime(at);
      try {
        await this.step(steps[i], at);
      } catch (e) {
        if (e instanceof Stop) throw e;
        if (this.budget.aborted) throw this.outOfTime(at);
        throw new Stop(at, isBridgeError(e) || e instanceof Error ? e.message : String(e));
      }
    }
  }

  private outOfTime(at: string): Stop {
    if (this.deps.signal.aborted) return new Stop(at, 'the call was cancelled');
    return new Stop(at, `the time budget of ${this.timeBudget} ms ran out (maxMs in the skill raises it)`);
  }

  private async step(step: SkillStep, at: string): Promise<void> {
    if ('do' in step) {
      const a = substitute(step.arguments, this.args) as Record<string, unknown>;
      this.report({ step: at, did: step.name, answer: bounded(await this.deps.call(step.name, a, this.budget)) });
    } else if ('expect' in step) {
      const c = substitute(step.expect, this.args) as Record<string, unknown>;
      const answer = bounded(await this.deps.call('assert', c, this.budget));
      this.report({ step: at, did: `expect ${conditionText(c as Condition)}`, answer });
    } else if ('wait' in step) {
      const c = substitute(step.wait, this.args) as Record<string, unknown>;
      const timeLeft = Math.max(0, this.timeBudget - (Date.now() - this.started));
      const answer = bounded(
        await this.deps.call(
          'wait_for',
          { ...c, timeoutMs: Math.min(step.timeoutMs ?? timeLeft, timeLeft) },
          this.budget,
        ),
      );
      this.report({ step: at, did: `wait ${conditionText(c as Condition)}`, answer });
    } else if ('if' in step) {
      const ok = await this.holds(step.if);
      this.report({ step: at, did: `if ${conditionText(step.if as Condition)}`, answer: { held: ok } });
      if (ok) await this.steps(step.then, `${at}.then.`);
      else if (step.else) await this.steps(step.else, `${at}.else.`);
    } else await this.repeat(step, at);
  }

  /** `repeat {times | until}`: its steps again until the condition holds, at most `times` passes. */
  private async repeat(step: Extract<SkillStep, { repeat: unknown }>, at: string): Promise<void> {
    const { until } = step.repeat;
    const times = step.repeat.times ?? MAX_REPEAT;
    let pass = 0;
    let done = false;
    while (pass < times) {
      if (until && (await this.holds(until))) {
        done = true;
        break;
      }
      pass++;
      await this.steps(step.steps, `${at}.repeat.`);
    }
    if (!done && until) done = await this.holds(until);
    this.report({ step: at, did: 'repeat', answer: { passes: pass, ...(until ? { until: done } : {}) } });
    if (until && !done)
      throw new Stop(at, `repeat ran ${pass} times and ${conditionText(until as Condition)} still does not hold`);
  }

  private async holds(c: Record<string, unknown>): Promise<boolean> {
    const cond = conditionFrom(substitute(c, this.args) as Record<string, unknown>);
    return holds(await this.deps.state(this.budget), cond).ok;
  }

  private report(r: StepReport): void {
    if (this.reports.length < MAX_REPORTED) this.reports.push(r);
    else {
      // keep the first half and the latest: the start says what was set up, the end what happened last
      this.reports.splice(MAX_REPORTED / 2, 1);
      this.reports.push(r);
      this.omitted++;
    }
  }
}
