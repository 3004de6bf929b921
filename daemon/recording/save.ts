/**
 * A recording as a saved test (docs/TESTS.md): every recorded call becomes a `do`, every check
 * that held an `expect`, and the file goes to `gamebridge-tests/<name>.jsonl` beside the
 * project's gamebridge.json. Paths inside it are relative to its own folder, so the project can
 * move. It never replaces another file unless asked to, and writes only inside the project
 * (shared/project-files.ts: no links, no folder another user can write).
 */
import { lstatSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { usageError } from '../../shared/errors.js';
import { projectFolder, writeProjectFile } from '../../shared/project-files.js';
import {
  formatTest,
  TEST_FORMAT_VERSION,
  TESTS_FOLDER,
  type DoStep,
  type ExpectStep,
  type TestHeader,
} from '../../shared/test-file.js';
import type { Recording, RecordedStep } from './recordings.js';

export const TESTS_DIR = TESTS_FOLDER;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** How call_tool answers a name that is not a bridge tool: the game's tool, a raw command, a composite, a skill, a page's WebMCP tool. */
const NOT_BRIDGE = new Set(['manifest', 'passthrough', 'composite', 'skill', 'webmcp']);

export interface SaveInput {
  name: string;
  overwrite: boolean;
  recording: Recording;
  /** the gamebridge.json the test launches (the recorded launch's, else the session's) */
  config: string;
  profile?: string;
  game: { name: string; version?: string };
  /** the game has the agent clock: the test replays frame by frame */
  frameExact: boolean;
  ignore?: string[];
}

export interface Saved {
  path: string;
  steps: number;
  calls: number;
  expects: number;
  /** checks that did not hold: left out of the test */
  leftOut: number;
  /** steps the recording no longer held (more than its bound) */
  dropped: number;
  timing: TestHeader['timing'];
  /** where the recording began: at a launch, or on a game that was already running (adopted) */
  began: 'launch' | 'running';
}

const lstatOf = (p: string) => {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
};

export function checkTestName(name: string, tool: string): void {
  if (!NAME.test(name))
    throw usageError(
      `${tool}: '${name}' is not a test name: use letters, digits, '.', '_' and '-' (up to 100), e.g. "first-drop".`,
    );
}

/** The arguments as a replay gives them: the routing port goes (a replay's game has its own port). */
export function replayArgs(s: Extract<RecordedStep, { kind: 'do' }>): Record<string, unknown> {
  const { port: _p, ...args } = s.arguments;
  const name = s.name.replace(/^bridge\./, '');
  // step {until} ran a known number of frames: the replay runs exactly those, then checks
  if (name === 'step' && args.until !== undefined) {
    const { until: _u, ...rest } = args;
    return { ...rest, frames: Number(s.answer?.stepped ?? args.frames) };
  }
  return args;
}

export function testSteps(rec: Recording, frameExact: boolean): { steps: Array<DoStep | ExpectStep>; leftOut: number } {
  const steps: Array<DoStep | ExpectStep> = [];
  let leftOut = 0;
  const t0 = rec.launch?.at ?? rec.startedAt;
  const when = (s: RecordedStep) =>
    frameExact ? (s.simFrame !== undefined ? { atSimFrame: s.simFrame } : {}) : { atMs: Math.max(0, s.at - t0) };
  for (const s of rec.steps.list()) {
    if (s.kind === 'do') {
      // The bridge's own tools are named as such, however they reached the game (its kit, the browser):
      // a game may have a tool of the same name (its own pause).
      const via = s.answer?.via;
      const bridge = typeof via === 'string' && !NOT_BRIDGE.has(via);
      const name = bridge && !s.name.includes('.') ? `bridge.${s.name}` : s.name;
      // a click's node by role and name: a later build may rename its ref, not what a player sees
      const target = s.answer?.target as { role?: unknown; name?: unknown } | undefined;
      const node =
        typeof target?.role === 'string' && typeof target.name === 'string'
          ? { node: { role: target.role, name: target.name } }
          : {};
      steps.push({ do: 'call_tool', name, arguments: replayArgs(s), ...when(s), ...node });
    } else if (!s.held) {
      leftOut++;
    } else {
      steps.push({ expect: s.condition as ExpectStep['expect'], ...when(s) });
    }
  }
  return { steps, leftOut };
}

/** Write the test; answers what was written. */
export function saveTest(input: SaveInput): Saved {
  checkTestName(input.name, 'save_test');
  const dir = join(dirname(input.config), TESTS_DIR);
  const path = join(dir, `${input.name}.jsonl`);
  const { steps, leftOut } = testSteps(input.recording, input.frameExact);
  if (!steps.length)
    throw usageError(
      'save_test: this session has done nothing to the game on that port yet (no calls, no checks that held): play first, then save.',
    );
  projectFolder(dirname(input.config), TESTS_DIR);
  if (lstatOf(path) && !input.overwrite)
    throw usageError(
      `save_test: ${path} already exists; nothing was written. Pass overwrite: true to replace it, or pick another name.`,
      { file: path },
    );
  const rel = relative(dir, input.config).split(sep).join('/');
  const header: TestHeader = {
    gamebridgeTest: TEST_FORMAT_VERSION,
    name: input.name,
    game: input.game,
    launch: {
      config: rel,
      ...(input.profile ? { profile: input.profile } : {}),
      ...(input.recording.launch?.seed !== undefined ? { seed: input.recording.launch.seed } : {}),
    },
    timing: input.frameExact ? 'frame-exact' : 'real-time',
    ignore: input.ignore ?? [],
    recorded: new Date().toISOString(),
    ...(input.recording.launch ? {} : { began: 'running' as const }),
  };
  writeProjectFile(path, formatTest(header, steps));
  const expects = steps.filter((s) => 'expect' in s).length;
  return {
    path,
    steps: steps.length,
    calls: steps.length - expects,
    expects,
    leftOut,
    dropped: input.recording.steps.dropped,
    timing: header.timing,
    began: header.began ?? 'launch',
  };
}
