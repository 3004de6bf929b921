/**
 * Saved tests (docs/TESTS.md): the `.jsonl` format a session is saved as and the runner reads.
 * One header line, then one line per step: a `do` (a game-affecting call, replayed at its
 * recorded simulation frame) or an `expect` (a condition on the state, or a screenshot against
 * a baseline). Every line is checked with zod, strictly: an unknown field, a newer format
 * version or a malformed line is refused with the file and the line number, so a typo never
 * silently weakens a test. The daemon writes the format (save_test) and the CLI reads it.
 */
import { lstatSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod/v4';
import { distrustFolder, projectRoot } from './declaration-path.js';
import { usageError } from './errors.js';
import { readProjectFile } from './project-files.js';
import { trustFix } from './trust.js';

/** The format version this build reads and writes. */
export const TEST_FORMAT_VERSION = 1;

/** wait_for's operators: an expect names exactly one. */
export const OPERATORS = ['equals', 'notEquals', 'exists', 'gt', 'gte', 'lt', 'lte', 'contains', 'matches'] as const;
export type Operator = (typeof OPERATORS)[number];

/** Bounds: a test file is read whole, so it is kept to what a person could review. */
export const MAX_TEST_LINES = 20000;
const MAX_LINE_CHARS = 100000;
/** The folder saved tests live in, beside the project's gamebridge.json. */
export const TESTS_FOLDER = 'gamebridge-tests';
/** A test file's whole size: the lines and their length bound it only loosely. */
export const MAX_TEST_BYTES = 16 << 20;

const frame = z.int().min(0);
const ms = z.number().min(0);

export const testHeaderSchema = z.strictObject({
  gamebridgeTest: z.literal(TEST_FORMAT_VERSION),
  name: z.string().min(1).max(200),
  /** the game it was recorded on: informative only */
  game: z.strictObject({ name: z.string().min(1), version: z.string().optional() }).optional(),
  launch: z.strictObject({
    config: z.string().min(1),
    profile: z.string().min(1).optional(),
    /** a browser game's seed: the replay launches with it */
    seed: z.string().min(1).max(200).optional(),
  }),
  timing: z.enum(['frame-exact', 'real-time']),
  ignore: z.array(z.string().min(1)).default([]),
  recorded: z.string().optional(),
  /** `running`: the recording began on a game that was already running, not at a launch, so what it expected may depend on what came before */
  began: z.literal('running').optional(),
});

export const doStepSchema = z.strictObject({
  do: z.literal('call_tool'),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** the simulation frame the call was applied at (frame-exact replays step the clock to it) */
  atSimFrame: frame.optional(),
  /** milliseconds since the launch when it was applied (real-time replays keep the gaps) */
  atMs: ms.optional(),
  /** the UI node a click or set_value acted on, as recorded: what --update=locators re-binds its ref by */
  node: z.strictObject({ role: z.string().min(1).max(200), name: z.string().max(2000) }).optional(),
});

const conditionShape = {
  path: z.string().min(1),
  ...Object.fromEntries(OPERATORS.map((o) => [o, o === 'matches' ? z.string().optional() : z.unknown().optional()])),
} as Record<string, z.ZodType>;

export const conditionSchema = z.strictObject(conditionShape).superRefine((c, ctx) => {
  const ops = OPERATORS.filter((o) => (c as Record<string, unknown>)[o] !== undefined);
  if (ops.length !== 1)
    ctx.addIssue({
      code: 'custom',
      message: `an expect names exactly one operator of ${OPERATORS.join(', ')}; this one has ${ops.length ? ops.join(', ') : 'none'}`,
    });
});

export const screenshotSchema = z.strictObject({
  screenshot: z
    .string()
    .min(1)
    .regex(/\.png$/i, 'a screenshot baseline is a .png file'),
  maxDiffRatio: z.number().min(0).max(1).default(0.01),
});

export const expectStepSchema = z.strictObject({
  expect: z.union([screenshotSchema, conditionSchema]),
  atSimFrame: frame.optional(),
  atMs: ms.optional(),
  /** real-time replays wait this long for the condition to hold (default: the runner's timeout) */
  timeoutMs: z.int().min(0).max(600000).optional(),
});

export type TestHeader = z.output<typeof testHeaderSchema>;
export type DoStep = z.output<typeof doStepSchema>;
export type ExpectStep = z.output<typeof expectStepSchema>;
export type Condition = { path: string } & Partial<Record<Operator, unknown>>;
export type ScreenshotCheck = z.output<typeof screenshotSchema>;
export type TestStep = (DoStep & { kind: 'do' }) | (ExpectStep & { kind: 'expect' });

/** A parsed test: its header, its steps (each with the line it came from), and where it lives. */
export interface TestFile {
  file: string;
  dir: string;
  header: TestHeader;
  steps: Array<TestStep & { line: number }>;
}

export const isScreenshot = (e: ExpectStep['expect']): e is ScreenshotCheck => 'screenshot' in e;

/** The one operator of a condition, and its operand. */
export function operatorOf(c: Condition): { op: Operator; operand: unknown } {
  const op = OPERATORS.find((o) => c[o] !== undefined) ?? 'exists';
  return { op, operand: c[op] };
}

/** A condition as people read it: `game.score gte 40`. */
export function conditionText(c: Condition): string {
  const { op, operand } = operatorOf(c);
  return `${c.path} ${op}${op === 'exists' && operand === true ? '' : ' ' + JSON.stringify(operand)}`;
}

/** One zod issue as a sentence: the field and what is wrong with it. */
function explainIssue(issue: z.core.$ZodIssue): string {
  const at = issue.path.length ? `'${issue.path.join('.')}'` : '';
  if (issue.code === 'unrecognized_keys')
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${[...issue.path, k].join('.')}'`).join(', ')}`;
  if (issue.code === 'invalid_union')
    return `${at || 'expect'}: neither a condition {path, <operator>} nor a screenshot {screenshot, maxDiffRatio?}`;
  return `${at ? at + ': ' : ''}${issue.message}`;
}

function fail(file: string, line: number, why: string): never {
  throw usageError(`${file}:${line}: ${why}. The format is in docs/TESTS.md.`, { file, line });
}

/** A condition union failure is clearer as the condition's own issue when the line is not a screenshot. */
function stepIssue(r: z.ZodSafeParseError<unknown>, raw: Record<string, unknown>): string {
  const issue = r.error.issues[0];
  const e = raw.expect;
  if (issue.code === 'invalid_union' && e && typeof e === 'object' && !('screenshot' in e)) {
    const inner = conditionSchema.safeParse(e);
    if (!inner.success) return `expect: ${explainIssue(inner.error.issues[0])}`;
  }
  return explainIssue(issue);
}

/** Parse a test file's text; `file` names it in errors. */
export function parseTestText(text: string, file: string): TestFile {
  const lines = text.split('\n');
  if (lines.length > MAX_TEST_LINES) fail(file, MAX_TEST_LINES + 1, `a test holds at most ${MAX_TEST_LINES} lines`);
  let header: TestHeader | undefined;
  const steps: TestFile['steps'] = [];
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const src = lines[i].trim();
    if (!src) continue;
    if (src.length > MAX_LINE_CHARS) fail(file, n, `the line is longer than ${MAX_LINE_CHARS} characters`);
    let raw: unknown;
    try {
      raw = JSON.parse(src);
    } catch (e) {
      fail(file, n, `not a JSON object (${(e as Error).message})`);
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(file, n, 'each line is one JSON object');
    const obj = raw as Record<string, unknown>;
    if (!header) {
      if (!('gamebridgeTest' in obj))
        fail(file, n, 'the first line is the header {"gamebridgeTest": 1, "name", "game", "launch", "timing"}');
      const v = obj.gamebridgeTest;
      if (typeof v === 'number' && v > TEST_FORMAT_VERSION)
        fail(
          file,
          n,
          `this test is format version ${v}; this game-bridge-mcp reads version ${TEST_FORMAT_VERSION}. Update game-bridge-mcp to run it`,
        );
      const r = testHeaderSchema.safeParse(obj);
      if (!r.success) fail(file, n, `header: ${explainIssue(r.error.issues[0])}`);
      header = r.data;
      continue;
    }
    if ('do' in obj) {
      const r = doStepSchema.safeParse(obj);
      if (!r.success) fail(file, n, explainIssue(r.error.issues[0]));
      steps.push({ ...r.data, kind: 'do', line: n });
    } else if ('expect' in obj) {
      const r = expectStepSchema.safeParse(obj);
      if (!r.success) fail(file, n, stepIssue(r, obj));
      steps.push({ ...r.data, kind: 'expect', line: n });
    } else if ('gamebridgeTest' in obj) {
      fail(file, n, 'a second header: a test file has one header, on its first line');
    } else {
      fail(
        file,
        n,
        `a step is {"do": "call_tool", …} or {"expect": {…}}; this line has ${Object.keys(obj).join(', ') || 'nothing'}`,
      );
    }
  }
  if (!header) fail(file, 1, 'the file is empty: a test starts with its header line');
  return { file, dir: dirname(file), header, steps };
}

/**
 * Read and parse a test file (the path as given is used in errors). A test is code the runner
 * launches and files it writes, so it is refused as a gamebridge.json is: a link, another user's
 * file, a file in a folder (or below one) another user can write, or one bigger than the bound.
 */
export function readTestFile(file: string): TestFile {
  const what = 'the test was not run';
  const folder = distrustFolder(dirname(resolve(file)));
  if (folder)
    throw usageError(
      `${file}: the test file is not believed: ${folder.path} can be changed by another user (${folder.why}); ${what}. ${trustFix(folder.path)}`,
      { file },
    );
  const bytes = readProjectFile(file, MAX_TEST_BYTES, what);
  if (!bytes) throw usageError(`${file}: cannot read the test file (ENOENT).`, { file });
  return parseTestText(bytes.toString('utf8'), resolve(file));
}

/** A path inside a test (launch.config, a screenshot baseline), resolved against the test file's folder. */
export const testRelative = (t: TestFile, p: string): string => resolve(t.dir, p);

/**
 * The test's project: the repository it lies in, else the folder of the gamebridge.json above
 * it (shared/declaration-path.ts), else the folder holding its `gamebridge-tests/`. What the
 * test launches and every file it reads or writes lie in it.
 */
export function testProject(t: TestFile): string {
  const parts = t.dir.split(sep);
  const tests = parts.lastIndexOf(TESTS_FOLDER);
  return projectRoot(tests > 0 ? parts.slice(0, tests).join(sep) || sep : t.dir);
}

/**
 * A screenshot baseline of the test: inside its project, reached through no link (a link on
 * the way is refused by its name). Throws BridgeUsageError otherwise.
 */
export function baselinePath(t: TestFile, p: string): string {
  const root = testProject(t);
  const file = testRelative(t, p);
  const rel = relative(root, file);
  if (!rel || rel.startsWith('..') || isAbsolute(rel))
    throw usageError(
      `screenshot ${p}: ${file} is outside the test's project (${root}); nothing was read or written. Keep baselines beside the test.`,
      { file },
    );
  let at = root;
  for (const part of rel.split(sep).slice(0, -1)) {
    at = join(at, part);
    let link = false;
    try {
      link = lstatSync(at).isSymbolicLink();
    } catch {
      break; // a missing folder: there is no baseline there
    }
    if (link)
      throw usageError(
        `screenshot ${p}: ${at} is a symbolic link; nothing was read or written. Keep baselines in plain folders of the project.`,
        { file: at },
      );
  }
  return file;
}

/** The file's text: the header, then one line per step (what save_test and --update write). */
export function formatTest(header: TestHeader, steps: Array<DoStep | ExpectStep>): string {
  const { gamebridgeTest, name, game, launch, timing, ignore, recorded, began } = header;
  const head = {
    gamebridgeTest,
    name,
    ...(game ? { game } : {}),
    launch,
    timing,
    ignore,
    ...(recorded ? { recorded } : {}),
    ...(began ? { began } : {}),
  };
  return [head, ...steps].map((s) => JSON.stringify(stripKind(s))).join('\n') + '\n';
}

function stripKind(s: object): object {
  const { kind: _k, line: _l, ...rest } = s as Record<string, unknown>;
  return rest;
}
