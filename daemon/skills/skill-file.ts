/**
 * Skills (docs/SKILLS.md section of docs/COMPOSITES.md): a named, parameterised sequence of
 * steps for one game that an agent defines while the bridge runs, kept as
 * `gamebridge-skills/<name>.json` beside the project's gamebridge.json so it is reviewed and
 * committed like code. The steps use the saved-test line shapes where they can (a `do` line, an
 * `expect` line) plus `wait`, `if`/`else` and a bounded `repeat`. This file holds the format
 * (zod), writing the files, and `${arg}` substitution; read.ts reads them, run.ts runs one.
 */
import { unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod/v4';
import { usageError } from '../../shared/errors.js';
import { projectFolder, readProjectFile, writeProjectFile } from '../../shared/project-files.js';
import { conditionSchema } from '../../shared/test-file.js';
import { skillsChanged } from './watch.js';

export { onSkillsChanged } from './watch.js';

export const SKILL_FORMAT_VERSION = 1;
/** The folder skills live in, beside the project's gamebridge.json. */
export const SKILLS_FOLDER = 'gamebridge-skills';
/** The toolset name list_toolsets and describe_toolset show a game's skills under. */
export const SKILLS_TOOLSET = 'skills';
/** Bounds: what a person could review, and what one call may run. */
export const MAX_SKILL_BYTES = 256 << 10;
export const MAX_STEP_BUDGET = 2000;
export const DEFAULT_STEP_BUDGET = 200;
export const MAX_TIME_BUDGET_MS = 600_000;
export const DEFAULT_TIME_BUDGET_MS = 60_000;
export const MAX_REPEAT = 1000;

const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A skill's name as a tool takes it; skillFile refuses one that would leave the skills folder, with the rule. */
export const skillName = () => z.string().min(1).max(64).describe('gamebridge-skills/<name>.json');

export const skillArgSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a word: letters, digits and _'),
  type: z.enum(['string', 'number', 'integer', 'boolean', 'object', 'array']).optional(),
  description: z.string().max(500).optional(),
  required: z.boolean().optional(),
  default: z.unknown().optional(),
});

const doStep = z.strictObject({
  do: z.literal('call_tool'),
  name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
const expectStep = z.strictObject({ expect: conditionSchema });
const waitStep = z.strictObject({ wait: conditionSchema, timeoutMs: z.int().min(0).max(600000).optional() });

export type SkillStep =
  | z.output<typeof doStep>
  | z.output<typeof expectStep>
  | z.output<typeof waitStep>
  | { if: Record<string, unknown>; then: SkillStep[]; else?: SkillStep[] }
  | { repeat: { times?: number; until?: Record<string, unknown> }; steps: SkillStep[] };

export const stepSchema: z.ZodType<SkillStep> = z.lazy(() =>
  z.union([
    doStep,
    expectStep,
    waitStep,
    z.strictObject({
      if: conditionSchema,
      then: z.array(stepSchema).max(500),
      else: z.array(stepSchema).max(500).optional(),
    }),
    z.strictObject({
      repeat: z
        .strictObject({ times: z.int().min(1).max(MAX_REPEAT).optional(), until: conditionSchema.optional() })
        .refine((r) => r.times !== undefined || r.until !== undefined, 'a repeat says times, until, or both'),
      steps: z.array(stepSchema).min(1).max(500),
    }),
  ]),
) as z.ZodType<SkillStep>;

export const skillSchema = z.strictObject({
  gamebridgeSkill: z.literal(SKILL_FORMAT_VERSION),
  name: z.string(),
  description: z.string().min(1).max(2000),
  /** the game it serves (the manifest's game.name); every game when absent */
  only: z.string().min(1).optional(),
  args: z.array(skillArgSchema).max(50).default([]),
  steps: z.array(stepSchema).min(1).max(500),
  /** how many steps one call may run (a repeat's each pass counts) */
  maxSteps: z.int().min(1).max(MAX_STEP_BUDGET).optional(),
  /** how long one call may take, in milliseconds */
  maxMs: z.int().min(1).max(MAX_TIME_BUDGET_MS).optional(),
});

export type Skill = z.output<typeof skillSchema>;
export type SkillArg = z.output<typeof skillArgSchema>;

/** A step, where it sits as people read it ("3", "3.then.1", "2.repeat.4", 1-based) and its path in the JSON. */
export interface PlacedStep {
  at: string;
  path: Array<string | number>;
  step: SkillStep;
}

/** Every step, nested ones too, in order. */
export function stepPaths(steps: SkillStep[], prefix = '', path: Array<string | number> = ['steps']): PlacedStep[] {
  const out: PlacedStep[] = [];
  steps.forEach((step, i) => {
    const at = `${prefix}${i + 1}`;
    const here = [...path, i];
    out.push({ at, path: here, step });
    if ('if' in step) {
      out.push(...stepPaths(step.then, `${at}.then.`, [...here, 'then']));
      if (step.else) out.push(...stepPaths(step.else, `${at}.else.`, [...here, 'else']));
    } else if ('repeat' in step) out.push(...stepPaths(step.steps, `${at}.repeat.`, [...here, 'steps']));
  });
  return out;
}

/**
 * Tools a skill's step may not call: they define, delete or save the project's files (skills,
 * tests, traces), and a skill a cloned repository brings must not change what is reviewed.
 */
export const PROJECT_WRITERS: ReadonlySet<string> = new Set([
  'define_skill',
  'delete_skill',
  'skill_from_session',
  'save_test',
  'save_trace',
]);

/** A problem of a skill, where it is in the JSON, and why. */
export interface SkillProblem {
  path: Array<string | number>;
  why: string;
}

/**
 * What is wrong with a parsed skill that needs no game to see: an argument named twice, a
 * `${name}` that is no argument, a step that calls the skill itself or a tool that writes the
 * project's files. define_skill and a skill file read from disk are both held to it.
 */
export function structuralProblems(skill: Skill): SkillProblem[] {
  const out: SkillProblem[] = [];
  const names = skill.args.map((a) => a.name);
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i) out.push({ path: ['args', i, 'name'], why: `args: ${n} named twice` });
  });
  for (const { at, path, step } of stepPaths(skill.steps)) {
    const body = 'do' in step ? step.arguments : 'if' in step ? step.if : 'repeat' in step ? step.repeat : step;
    const missing = [...placeholders(body)].filter((n) => !names.includes(n));
    if (missing.length)
      out.push({
        path,
        why: `step ${at}: ${missing.map((n) => '${' + n + '}').join(', ')} ${missing.length > 1 ? 'are' : 'is'} not an argument of the skill (args: ${names.join(', ') || 'none'})`,
      });
    if (!('do' in step)) continue;
    if (step.name === skill.name) out.push({ path: [...path, 'name'], why: `step ${at}: the skill calls itself` });
    else if (PROJECT_WRITERS.has(step.name))
      out.push({
        path: [...path, 'name'],
        why: `step ${at}: '${step.name}' defines, deletes or saves the project's files (skills, tests, traces), which a skill does not do`,
      });
  }
  return out;
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Every `${name}` in a value (strings inside objects and lists too). */
export function placeholders(v: unknown, found = new Set<string>()): Set<string> {
  if (typeof v === 'string') for (const m of v.matchAll(PLACEHOLDER)) found.add(m[1]);
  else if (Array.isArray(v)) v.forEach((x) => placeholders(x, found));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => placeholders(x, found));
  return found;
}

/** A value with its `${name}`s replaced: a string that is one placeholder takes the argument's own value (a number stays a number). */
export function substitute(v: unknown, args: Record<string, unknown>): unknown {
  if (typeof v === 'string') {
    const whole = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(v);
    if (whole && whole[1] in args) return args[whole[1]];
    return v.replace(PLACEHOLDER, (m, name: string) =>
      name in args ? (typeof args[name] === 'string' ? (args[name] as string) : JSON.stringify(args[name])) : m,
    );
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, args));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, args)]));
  return v;
}

/** One zod issue as "step 3.then.1: why" (the path's step indices shown 1-based). */
export function issueText(issue: z.core.$ZodIssue): string {
  const parts: string[] = [];
  const path = issue.path.map(String);
  let i = 0;
  let where = '';
  if (path[0] === 'steps') {
    i = 1;
    const idx: string[] = [];
    while (i < path.length && /^\d+$/.test(path[i])) {
      idx.push(String(Number(path[i]) + 1));
      const next = path[i + 1];
      if (next === 'then' || next === 'else' || next === 'steps') {
        idx.push(next === 'steps' ? 'repeat' : next);
        i += 2;
      } else {
        i += 1;
        break;
      }
    }
    where = `step ${idx.join('.')}`;
  }
  const rest = path.slice(i).join('.');
  parts.push(where || rest || 'skill');
  if (where && rest) parts[0] += ` '${rest}'`;
  const msg =
    issue.code === 'unrecognized_keys'
      ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`
      : issue.code === 'invalid_union'
        ? 'not a step: a step is {do: "call_tool", name, arguments}, {expect: cond}, {wait: cond}, {if: cond, then, else?} or {repeat: {times?, until?}, steps}'
        : issue.message;
  return `${parts[0]}: ${msg}`;
}

/** The folder of a project's skills (created when `create`). */
export function skillsDir(projectRoot: string, create = false): string {
  return create ? projectFolder(projectRoot, SKILLS_FOLDER) : join(projectRoot, SKILLS_FOLDER);
}

export function skillFile(projectRoot: string, name: string): string {
  if (!SKILL_NAME.test(name))
    throw usageError(
      `skill '${name}': a skill's name is letters, digits, '_' and '-' (no '.', no '/'), so its file stays in ${SKILLS_FOLDER}/. Choose another name.`,
    );
  return join(skillsDir(projectRoot), `${name}.json`);
}

/** Keep a checked skill; an existing one is replaced only with `overwrite`. */
export function writeSkill(projectRoot: string, skill: Skill, overwrite: boolean): string {
  const file = skillFile(projectRoot, skill.name);
  skillsDir(projectRoot, true);
  if (!overwrite && readProjectFile(file, MAX_SKILL_BYTES))
    throw usageError(
      `define_skill: ${file} exists; nothing was written. Give overwrite: true to replace it, or choose another name.`,
      { file },
    );
  writeProjectFile(file, JSON.stringify(skill, null, 2) + '\n');
  skillsChanged(dirname(file));
  return file;
}

/** Remove a skill's file (the caller has checked it is one). */
export function removeSkill(file: string): void {
  unlinkSync(file);
  skillsChanged(dirname(file));
}
