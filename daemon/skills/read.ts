/**
 * Reading a project's skill files (gamebridge-skills/<name>.json): each problem named with its
 * file and line, and a file edited badly keeping the definition last read well, so a typo saved
 * by hand loses nothing. Every folder read is looked at for hand edits (watch.ts).
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import jsonMap from 'json-source-map';
import type { z } from 'zod/v4';
import { usageError } from '../../shared/errors.js';
import { readProjectFile } from '../../shared/project-files.js';
import { issueText, MAX_SKILL_BYTES, skillSchema, skillsDir, structuralProblems, type Skill } from './skill-file.js';
import { MAX_SKILLS, watchSkills } from './watch.js';

/** The 1-based line an offset of a text is on. */
const lineAt = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

type Pointers = ReturnType<typeof jsonMap.parse>['pointers'];

/** The line a zod issue points at in the file: its field's, else the nearest enclosing one's. */
function issueLine(pointers: Pointers, issue: z.core.$ZodIssue): number {
  return lineOf(pointers, issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path);
}

/** The line of a JSON path in the file, else of the nearest enclosing one. */
function lineOf(pointers: Pointers, at: ReadonlyArray<PropertyKey>): number {
  let path = at.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1'));
  for (; ; path = path.slice(0, -1)) {
    const at = pointers[path.map((p) => '/' + p).join('')];
    if (at) return (at.key ?? at.value).line + 1;
    if (!path.length) return 1;
  }
}

/** One skill file, checked; a malformed or untrusted one throws naming the file, and the line of each problem. */
export function readSkill(file: string): Skill | undefined {
  const buf = readProjectFile(file, MAX_SKILL_BYTES, 'the skill was not loaded');
  if (!buf) return undefined;
  const text = buf.toString('utf8');
  let parsed: ReturnType<typeof jsonMap.parse>;
  try {
    parsed = jsonMap.parse(text);
  } catch (e) {
    const why = (e as Error).message;
    const pos = /position (\d+)/.exec(why)?.[1];
    const line = pos === undefined ? 1 : lineAt(text, Number(pos));
    throw usageError(`${file}:${line}: not JSON (${why}); fix or delete it.`, { file, line });
  }
  const r = skillSchema.safeParse(parsed.data);
  // held to what define_skill holds a skill to before it keeps one (all but what needs the game)
  const problems = (
    r.success
      ? structuralProblems(r.data).map((p) => ({ line: lineOf(parsed.pointers, p.path), why: p.why }))
      : r.error.issues.map((i) => ({ line: issueLine(parsed.pointers, i), why: issueText(i) }))
  ).sort((a, b) => a.line - b.line);
  if (problems.length) {
    const n = problems.length;
    throw usageError(
      `${file}:${problems[0].line}: ${n === 1 ? '' : `${n} problems: `}` +
        problems.map((p, i) => `${n === 1 ? '' : `(${i + 1}) `}${i ? `line ${p.line}, ` : ''}${p.why}`).join('; ') +
        '. The format is in docs/COMPOSITES.md.',
      { file, line: problems[0].line },
    );
  }
  return r.data!;
}

/**
 * What the daemon last read of each skill file: its size and change time, and its last good
 * definition, which a file edited badly keeps serving until it is fixed (a typo saved by hand
 * loses nothing).
 */
const seen = new Map<string, { stamp: string; skill?: Skill; problem?: string }>();

function current(file: string, name: string): { skill?: Skill; problem?: string } {
  let stamp = '';
  try {
    const st = statSync(file);
    stamp = `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
  } catch {
    /* gone meanwhile: read below says so */
  }
  const was = seen.get(file);
  if (was && stamp && was.stamp === stamp) return was;
  let now: { stamp: string; skill?: Skill; problem?: string };
  try {
    const s = readSkill(file);
    if (s && s.name !== name) throw usageError(`${file}: its name '${s.name}' differs from its file's`, { file });
    now = { stamp, skill: s };
  } catch (e) {
    const kept = was?.skill;
    const why = (e as Error).message.replace(/\.$/, '');
    now = {
      stamp,
      skill: kept,
      problem: kept ? `${why}. Until it is fixed the skill '${kept.name}' runs as it was last read.` : `${why}.`,
    };
  }
  seen.set(file, now);
  return now;
}

/** Every skill of a project for one game, and why any file was not loaded. Never throws. */
export function loadSkills(projectRoot: string, gameName: string | undefined): { skills: Skill[]; problems: string[] } {
  const dir = skillsDir(projectRoot);
  watchSkills(dir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch {
    names = [];
  }
  const files = new Set(
    names
      .sort()
      .slice(0, MAX_SKILLS)
      .map((n) => join(dir, n)),
  );
  for (const file of seen.keys()) if (dirname(file) === dir && !files.has(file)) seen.delete(file);
  const skills: Skill[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const { skill, problem } = current(file, file.slice(dir.length + 1, -'.json'.length));
    if (problem) problems.push(problem);
    if (skill && (skill.only === undefined || skill.only === gameName)) skills.push(skill);
  }
  return { skills, problems };
}
