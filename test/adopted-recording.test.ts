/**
 * A saved test recorded on a game the session adopted (docs/TESTS.md, "Recording and saving"):
 * Tiny, launched by one session and scored on, then played by a second session that never
 * launched it. save_test says the recording did not start from a launch and marks the test so;
 * the runner, whose replay starts from a fresh launch, then says the test began elsewhere
 * instead of calling the difference a bug. Real daemon, proxies and CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTestText } from '../shared/test-file.js';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, removeDir, ROOT, runCli, tempHome } from './helpers/procs.js';
import { reapAndReport } from './helpers/fault.js';
import { writeProject, type Project } from './helpers/project.js';

let home: string;
let p: Project;
let launcher: McpHandle;
let adopter: McpHandle;
let port: number;
const env = () => bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' });

const ok = async (h: McpHandle, name: string, args: Record<string, unknown> = {}) => {
  const r = await gameCall(h, port, name, args);
  if (r.isError) throw new Error(r.text);
  return r.json;
};

beforeAll(async () => {
  home = tempHome('gb-adopted-');
  p = writeProject(tempHome('gb-adopted-proj-'), {
    ports: await freeRange(4),
    name: 'Tiny',
    command: `"${process.execPath}" "${join(ROOT, 'examples', 'tiny-game', 'tiny-game.mjs')}" {port}`,
  });
  launcher = await connect({ env: env(), cwd: p.root, name: 'launcher' });
  port = (await call(launcher, 'launch_instance')).json.port as number;
  await ok(launcher, 'add', { n: 42 });
  adopter = await connect({ env: env(), cwd: p.root, name: 'adopter' });
  await ok(adopter, 'add', { n: 1 });
  await ok(adopter, 'assert', { path: 'game.score', equals: 43 });
}, 120000);

afterAll(async () => {
  await launcher?.close();
  await adopter?.close();
  await reapAndReport(home);
  removeDir(home);
  removeDir(p.root);
});

test('save_test on a game the session did not launch says the recording did not start from a launch', async () => {
  const saved = await ok(adopter, 'save_test', { name: 'adopted' });
  expect(saved.began).toBe('running');
  expect(saved.summary).toMatch(/did not start from a launch/);
  expect(saved.summary).toContain(`launch_instance {restart: ${port}}`);
  const t = parseTestText(readFileSync(saved.path as string, 'utf8'), saved.path as string);
  expect(t.header.began).toBe('running');
});

test('save_test on a game the session launched says nothing of the kind', async () => {
  const saved = await ok(launcher, 'save_test', { name: 'launched' });
  expect(saved.began).toBe('launch');
  expect(saved.summary).not.toMatch(/did not start from a launch/);
  const t = parseTestText(readFileSync(saved.path as string, 'utf8'), saved.path as string);
  expect(t.header.began).toBeUndefined();
});

test('the runner tells a test that began on a running game apart from a game that changed', async () => {
  const r = await runCli(['test', 'gamebridge-tests/adopted.jsonl'], { cwd: p.root, env: env() });
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/expected:\s+equals 43/);
  expect(r.out).toMatch(/was recorded on a game that was already running/);
  expect(r.out).not.toMatch(/bug to report/);
});

test('--update writes what a fresh launch does into such a test, which then starts at its launch', async () => {
  const r = await runCli(['test', '--update', 'gamebridge-tests/adopted.jsonl'], { cwd: p.root, env: env() });
  expect(r.code).toBe(0);
  const file = join(p.root, 'gamebridge-tests', 'adopted.jsonl');
  const t = parseTestText(readFileSync(file, 'utf8'), file);
  expect(t.header.began).toBeUndefined();
  expect(t.steps.find((s) => 'expect' in s)).toMatchObject({ expect: { path: 'game.score', equals: 1 } });
});
