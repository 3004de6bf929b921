/**
 * gamebridge.json and its composites module are code the daemon runs. Another user's files
 * (planted with `runuser -u nobody`), a walk past the project's boundary, and a session that
 * merely starts must never run them; `launch_instance {config}` stays inside the project and
 * echoes no file contents. Real proxy + daemon, real SDK client.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freePort } from './helpers/ports.js';
import { EXAMPLE_GAME, Reaper, removeDir, startExampleGame, stopDaemon, tempHome, waitFor } from './helpers/procs.js';

const NOBODY = 65534;
const reaper = new Reaper();
const handles: McpHandle[] = [];
const dirs: string[] = [];
let home = '';

beforeEach(() => {
  home = tempHome('gb-decltrust-');
  dirs.push(home);
});

afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
  stopDaemon(home);
  await reaper.reap();
  for (const d of dirs.splice(0)) removeDir(d);
});

/** A composites module that leaves `marker` behind when it is imported. */
const evilModule = (marker: string) =>
  `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, String(process.pid));\nexport default [];\n`;
const declaration = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    name: 'Crate Stack',
    launch: { command: `"${process.execPath}" "${EXAMPLE_GAME}" --port {port}`, portRange: '20000-20001' },
    ...extra,
  });

async function open(cwd: string, env: Record<string, string> = {}): Promise<McpHandle> {
  const h = await connect({
    env: { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '20000', ...env },
    cwd,
    args: ['--no-scan'],
  });
  handles.push(h);
  reaper.track(h.pid);
  return h;
}

test("another user's gamebridge.json and module, planted in a world-writable parent, never run (runuser -u nobody)", async () => {
  const planted = execFileSync('runuser', ['-u', 'nobody', '--', 'mktemp', '-d', '/tmp/gb-planted-XXXXXX'], {
    encoding: 'utf8',
  }).trim();
  dirs.push(planted);
  execFileSync('runuser', ['-u', 'nobody', '--', 'chmod', '777', planted]);
  const marker = join(planted, 'ran');
  const asNobody = (file: string, text: string) =>
    execFileSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', `cat > '${file}'`], { input: text });
  asNobody(join(planted, 'evil.mjs'), evilModule(marker));
  asNobody(join(planted, 'gamebridge.json'), declaration({ composites: './evil.mjs' }));
  const victim = join(planted, 'mine');
  mkdirSync(victim, { mode: 0o700 });

  const port = await freePort();
  await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home });
  const h = await open(victim);
  await gameCall(h, port, 'get_state', { path: 'frame' }); // a tool that looks up composites
  await call(h, 'list_toolsets', { port });
  const launch = await call(h, 'launch_instance', {});
  expect(launch.isError).toBe(true);
  expect(launch.text).toMatch(/^BridgeUsageError: No gamebridge\.json found/);
  expect(launch.text).toContain(`${planted}: it is owned by uid ${NOBODY}`);
  expect(existsSync(marker)).toBe(false);
});

test('a gamebridge.json owned by someone else in your own project is refused, with the fix', async () => {
  const project = join(home, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'gamebridge.json'), declaration());
  chownSync(join(project, 'gamebridge.json'), NOBODY, NOBODY);
  const h = await open(project);
  const r = await call(h, 'launch_instance', {});
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(/^BridgeUsageError: .*gamebridge\.json is not used: it is owned by uid 65534, not by you/s);
  expect(r.text).toMatch(/chown/);
});

test('the walk stops at a repository root and at the home directory', async () => {
  const outer = join(home, 'outer');
  const repo = join(outer, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(join(repo, 'sub'));
  writeFileSync(join(outer, 'gamebridge.json'), declaration());
  const h = await open(join(repo, 'sub'));
  const r = await call(h, 'launch_instance', {});
  expect(r.text).toMatch(/^BridgeUsageError: No gamebridge\.json found\. Looked in: .*\/repo\/sub, .*\/repo\./);

  const userHome = join(outer, 'user');
  mkdirSync(join(userHome, 'work'), { recursive: true });
  const h2 = await open(join(userHome, 'work'), { HOME: userHome });
  const r2 = await call(h2, 'launch_instance', {});
  expect(r2.text).toMatch(/Looked in: .*\/user\/work, .*\/user\./);
});

test('the composites module is loaded by the first tool that needs it, not when a session starts', async () => {
  const project = join(home, 'project');
  mkdirSync(project);
  const marker = join(home, 'loaded');
  writeFileSync(join(project, 'composites.mjs'), evilModule(marker));
  writeFileSync(join(project, 'gamebridge.json'), declaration({ composites: './composites.mjs' }));
  const port = await freePort();
  await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home });
  const h = await open(project);
  await call(h, 'list_instances', { scan: false });
  await new Promise((r) => setTimeout(r, 500));
  expect(existsSync(marker)).toBe(false);
  await gameCall(h, port, 'get_state', { path: 'frame' });
  await waitFor('the module loaded by call_tool', () => existsSync(marker), 10000);
});

test("launch_instance {config} echoes no file's contents, outside the project or broken", async () => {
  const project = join(home, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'gamebridge.json'), declaration());
  const h = await open(project);
  const outside = await call(h, 'launch_instance', { config: '/etc/passwd' });
  expect(outside.isError).toBe(true);
  expect(outside.text).toMatch(/^BridgeUsageError: .*outside this session's project/s);
  expect(outside.text).not.toMatch(/root:/);
  writeFileSync(join(project, 'broken.json'), 'SECRET-CONTENTS-1234 not json');
  const broken = await call(h, 'launch_instance', { config: 'broken.json' });
  expect(broken.text).toMatch(/is not valid JSON/);
  expect(broken.text).not.toContain('SECRET-CONTENTS');
});
