/**
 * The skill bridge tools (docs/COMPOSITES.md, "Skills"): `define_skill` checks a skill in full
 * against the game it is for and keeps it as gamebridge-skills/<name>.json beside the project's
 * gamebridge.json; `skill_from_session` makes one from this session's recorded calls;
 * `delete_skill` removes one. call_tool runs a skill (tools/game-tool.ts, kind 'skill').
 */
import { isDeepStrictEqual } from 'node:util';
import { usageError } from '../../../shared/errors.js';
import { readProjectFile } from '../../../shared/project-files.js';
import {
  MAX_SKILL_BYTES,
  removeSkill,
  skillFile,
  skillName,
  writeSkill,
  type SkillArg,
  type SkillStep,
} from '../../skills/skill-file.js';
import type { ToolContext } from '../../tool-framework/context.js';
import { z } from '../../tool-framework/define.js';
import { flag } from '../args.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import { defineSkillAnswer, deleteSkillAnswer, skillFromSessionAnswer } from '../../../shared/answers/skills.js';
import { readSkill } from '../../skills/read.js';
import { checked, kept, skillsRoot } from '../skill-check.js';

const stepsArg = () =>
  z
    .array(z.unknown())
    .describe(
      '{do: "call_tool", name, arguments} | {expect|wait: cond} | {if: cond, then, else?} | {repeat: {times?, until?}, steps}',
    );
const argsArg = () => z.array(z.unknown()).optional().describe('[{name, type?, description?, required?, default?}]');
const overwriteArg = () => flag().optional().describe('Replace a skill of that name. Default: false.');

export const defineSkillTool = bridgeTool({
  name: 'define_skill',
  output: defineSkillAnswer,
  title: 'Define a skill',
  description:
    'Teach the bridge a skill for this game: steps with arguments, checked in full (every error with its step), kept in gamebridge-skills/, called with call_tool.',
  input: z.object({
    name: skillName(),
    description: z.string().describe('When to use it.'),
    args: argsArg(),
    steps: stepsArg(),
    maxSteps: z.unknown().optional().describe('Default: 200 steps.'),
    maxMs: z.unknown().optional().describe('Default: 60000 ms.'),
    overwrite: overwriteArg(),
  }),
  effect: { readOnly: false },
  player: false,
  recorded: false,
  async handler(args, ctx, { port }) {
    const { overwrite, ...raw } = args;
    const root = skillsRoot(ctx, port, 'define_skill');
    const file = skillFile(root, raw.name);
    // Replacing a skill keeps whom it serves: one for every game (no `only`) stays one.
    const everyGame = overwrite === true && forEveryGame(file);
    const skill = await checked(ctx, port, everyGame ? { ...raw, only: undefined } : raw, 'define_skill');
    return { json: kept(skill, writeSkill(root, skill, overwrite === true)) };
  },
});

/** The skill file at `file` is a well-formed skill for every game (it has no `only`). */
function forEveryGame(file: string): boolean {
  try {
    const s = readSkill(file);
    return s !== undefined && s.only === undefined;
  } catch {
    return false;
  }
}

export const deleteSkillTool = bridgeTool({
  name: 'delete_skill',
  output: deleteSkillAnswer,
  title: 'Delete a skill',
  description: "Delete one of the project's skills (its gamebridge-skills/<name>.json).",
  input: z.object({ name: skillName() }),
  effect: { readOnly: false, destructive: true },
  player: false,
  recorded: false,
  handler(args, ctx, { port }) {
    const file = skillFile(skillsRoot(ctx, port, 'delete_skill'), args.name);
    if (!readProjectFile(file, MAX_SKILL_BYTES, 'nothing was deleted'))
      throw usageError(`delete_skill: there is no ${file}. list_toolsets shows the game's skills.`, { file });
    removeSkill(file);
    return Promise.resolve({ json: { name: args.name, file, deleted: true } });
  },
});

/** A recorded step as a skill step; checks that did not hold and reads are left out. */
function fromRecorded(
  s: ReturnType<NonNullable<ReturnType<ToolContext['recordings']['peek']>>['steps']['list']>[number],
): SkillStep | undefined {
  if (s.kind === 'do') return { do: 'call_tool', name: s.name, arguments: s.arguments };
  if (!s.held || s.tool === 'step') return undefined; // step {until} is already its do
  if (s.tool === 'wait_for') return { wait: s.condition };
  if (s.tool === 'assert') return { expect: s.condition };
  return { do: 'call_tool', name: s.tool, arguments: s.condition };
}

/** Every recorded value equal to an argument's becomes "${name}". */
function parameterise(v: unknown, args: Array<{ name: string; value: unknown }>): unknown {
  const hit = args.find((a) => isDeepStrictEqual(a.value, v));
  if (hit) return '${' + hit.name + '}';
  if (Array.isArray(v)) return v.map((x) => parameterise(x, args));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, parameterise(x, args)]));
  return v;
}

const typeOf = (v: unknown): SkillArg['type'] =>
  Array.isArray(v)
    ? 'array'
    : typeof v === 'number'
      ? Number.isInteger(v)
        ? 'integer'
        : 'number'
      : typeof v === 'string' || typeof v === 'boolean' || typeof v === 'object'
        ? (typeof v as 'string' | 'boolean' | 'object')
        : undefined;

export const skillFromSessionTool = bridgeTool({
  name: 'skill_from_session',
  output: skillFromSessionAnswer,
  title: 'Make a skill of what this session did',
  description:
    "Turn this session's recorded calls on this game (those save_test keeps) into a skill, from step `fromStep` on; the values in `args` become its arguments. Kept as define_skill keeps one.",
  input: z.object({
    name: skillName(),
    description: z.string().optional().describe('When to use it.'),
    fromStep: z.int().min(1).optional().describe('First recorded step kept (1-based). Default: 1.'),
    args: z
      .array(
        z.object({
          name: z.string(),
          value: z.unknown().describe('Becomes "${name}".'),
          description: z.string().optional(),
        }),
      )
      .optional()
      .describe('Values that become arguments.'),
    overwrite: overwriteArg(),
  }),
  effect: { readOnly: false },
  player: false,
  recorded: false,
  async handler(args, ctx, { port }) {
    const recording = ctx.recordings.peek(ctx.sessionId, port);
    const recorded = recording?.steps.list() ?? [];
    if (!recorded.length)
      throw usageError(
        `skill_from_session: this session has recorded nothing on the game on port ${port}: call its tools first (reads are not recorded), then make the skill.`,
      );
    const from = args.fromStep ?? 1;
    if (from > recorded.length)
      throw usageError(
        `skill_from_session: fromStep ${from} is past the ${recorded.length} recorded step${recorded.length === 1 ? '' : 's'}; give 1 to ${recorded.length}.`,
      );
    const picked = args.args ?? [];
    const steps = recorded
      .slice(from - 1)
      .map(fromRecorded)
      .filter((s): s is SkillStep => s !== undefined)
      .map((s) => parameterise(s, picked) as SkillStep);
    const unused = picked.filter((a) => !JSON.stringify(steps).includes('${' + a.name + '}'));
    if (unused.length)
      throw usageError(
        `skill_from_session: no recorded argument equals ${unused.map((a) => `${a.name} (${JSON.stringify(a.value)})`).join(', ')}; nothing was kept. Pick values the steps used.`,
      );
    const root = skillsRoot(ctx, port, 'skill_from_session');
    skillFile(root, args.name);
    const raw = {
      name: args.name,
      description: args.description ?? `Made from ${steps.length} recorded steps of a session.`,
      args: picked.map((a) => ({
        name: a.name,
        ...(typeOf(a.value) ? { type: typeOf(a.value) } : {}),
        ...(a.description ? { description: a.description } : {}),
        default: a.value,
      })),
      steps,
    };
    const skill = await checked(ctx, port, raw, 'skill_from_session');
    const file = writeSkill(root, skill, args.overwrite === true);
    return { json: { ...kept(skill, file), skill } };
  },
});

/** The family (index.ts): its tools in describe_toolset's order, and its clause of the description. */
export const skillsFamily: BridgeFamily = {
  name: 'skills',
  clause: 'and keep a sequence of steps as a skill (define_skill, skill_from_session, delete_skill)',
  tools: [defineSkillTool, skillFromSessionTool, deleteSkillTool],
};
