/**
 * Where a session's skills live and how a definition is checked before it is kept
 * (docs/COMPOSITES.md, "Skills"): every problem at once, each with its step.
 */
import { dirname } from 'node:path';
import { usageError } from '../../shared/errors.js';
import { findTool, type Manifest } from '../game/manifest.js';
import {
  issueText,
  placeholders,
  PROJECT_WRITERS,
  SKILL_FORMAT_VERSION,
  skillArgSchema,
  skillSchema,
  stepPaths,
  stepSchema,
  structuralProblems,
  substitute,
  type Skill,
  type SkillArg,
  type SkillStep,
} from '../skills/skill-file.js';
import { loadSkills } from '../skills/read.js';
import type { ToolContext } from '../tool-framework/context.js';
import { checkGameToolArgs } from '../tool-framework/game-args.js';
import { projectConfig } from './project.js';

const WHERE = 'skills live in gamebridge-skills/ beside it';

/** The project folder a session keeps its skills in, for the game on `port`. */
export function skillsRoot(ctx: ToolContext, port: number, tool: string): string {
  return dirname(projectConfig(ctx, port, tool, WHERE));
}

/** The skills serving the game on `port` (none when the session has no project), and why any file was not loaded. */
export function gameSkills(
  ctx: ToolContext,
  port: number,
  gameName: string | undefined,
): { skills: Skill[]; problems: string[] } {
  let root: string;
  try {
    root = skillsRoot(ctx, port, 'skills');
  } catch {
    return { skills: [], problems: [] };
  }
  return loadSkills(root, gameName);
}

/** A value that stands for an argument while the steps are checked: its default, else one of its type. */
function sample(a: SkillArg): { value: unknown } | undefined {
  if (a.default !== undefined) return { value: a.default };
  const byType = { string: 'text', number: 0, integer: 0, boolean: false, object: {}, array: [] } as const;
  return a.type ? { value: byType[a.type] } : undefined;
}

/** Every problem of a parsed skill on this game, each with its step; empty when it may be kept. */
async function problemsOf(ctx: ToolContext, port: number, skill: Skill, manifest: Manifest): Promise<string[]> {
  const errors = structuralProblems(skill).map((p) => p.why);
  const game = manifest.game.name;
  const names = skill.args.map((a) => a.name);
  const own = findTool(manifest, skill.name);
  if (own)
    errors.push(
      `name: '${skill.name}' is already a tool of this game (${own.toolset}); a skill of that name could never be called. Choose another name.`,
    );
  if (await ctx.composites.find(skill.name, game))
    errors.push(`name: '${skill.name}' is a composite of this project; choose another name.`);
  const others = new Map(gameSkills(ctx, port, game).skills.map((s) => [s.name, s]));
  const samples: Record<string, unknown> = {};
  const untyped = new Set<string>();
  for (const a of skill.args) {
    const s = sample(a);
    if (s) samples[a.name] = s.value;
    else untyped.add(a.name);
  }
  for (const { at, step } of stepPaths(skill.steps)) {
    if (!('do' in step)) continue;
    const name = step.name;
    if (name === skill.name || PROJECT_WRITERS.has(name)) continue; // said above
    if (others.has(name) || (await ctx.composites.find(name, game))) continue;
    const row = findTool(manifest, name);
    if (!row) {
      if (manifest.source !== 'fallback')
        errors.push(
          `step ${at}: '${name}' is no tool of this game (${game ?? 'unnamed'}); list_toolsets shows its tools, and its skills and composites`,
        );
      continue;
    }
    const used = placeholders(step.arguments);
    if ([...used].some((n) => !names.includes(n) || untyped.has(n))) continue; // no value to check it with: checked when called
    try {
      checkGameToolArgs(row, substitute(step.arguments, samples) as Record<string, unknown>);
    } catch (e) {
      errors.push(`step ${at}: ${(e instanceof Error ? e.message : String(e)).replace(/\.$/, '')}`);
    }
  }
  return errors;
}

/** What parses of a malformed definition; a step that does not parse stands as one that checks nothing. */
function partial(raw: Record<string, unknown>): Skill {
  const inert: SkillStep = { expect: { path: '.', exists: true } };
  const list = (v: unknown) => (Array.isArray(v) ? v : []);
  return {
    gamebridgeSkill: SKILL_FORMAT_VERSION,
    name: typeof raw.name === 'string' ? raw.name : '',
    description: '',
    args: list(raw.args).flatMap((a) => {
      const r = skillArgSchema.safeParse(a);
      return r.success ? [r.data] : [];
    }),
    steps: list(raw.steps).map((s) => {
      const r = stepSchema.safeParse(s);
      return r.success ? r.data : inert;
    }),
  };
}

/** Parse and check a definition in full; throws listing every problem, each with its step. */
export async function checked(
  ctx: ToolContext,
  port: number,
  raw: Record<string, unknown>,
  tool: string,
): Promise<Skill> {
  const manifest = await ctx.manifest(port);
  const r = skillSchema.safeParse({
    gamebridgeSkill: SKILL_FORMAT_VERSION,
    ...(manifest.game.name ? { only: manifest.game.name } : {}),
    ...raw,
  });
  // every problem at once: the steps and arguments that parse are checked against the game even when others do not
  const errors = r.success
    ? await problemsOf(ctx, port, r.data, manifest)
    : [...r.error.issues.map(issueText), ...(await problemsOf(ctx, port, partial(raw), manifest))];
  if (errors.length)
    throw usageError(
      `${tool}: the skill '${String(raw.name)}' was not kept; ${errors.length} problem${errors.length === 1 ? '' : 's'}: ` +
        errors.map((e, i) => `(${i + 1}) ${e.replace(/\.$/, '')}`).join('; ') +
        '. Fix them all and define it again (the step format is in docs/COMPOSITES.md, "Skills").',
      { field: 'steps' },
    );
  return r.data!;
}

export function kept(skill: Skill, file: string): Record<string, unknown> {
  return {
    name: skill.name,
    file,
    only: skill.only ?? null,
    args: skill.args.map((a) => a.name),
    steps: skill.steps.length,
    summary: `Kept ${file}. Run it with call_tool {name: "${skill.name}", arguments: {${skill.args.map((a) => a.name).join(', ')}}}; it is listed in the game's skills toolset.`,
  };
}
