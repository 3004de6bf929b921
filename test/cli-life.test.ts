/**
 * The people-facing subcommands, for real: `init --template multiplayer` writes profiles the
 * launcher reads; `launch` starts games through the daemon with progress lines (stderr is not a
 * terminal here), `status` shows them as tables (`--json` as before), `logs` prints a game's
 * output and `logs -f` follows it and says when the game dies.
 */
import { reportFigures } from './helpers/fault.js';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { readDeclaration } from '../daemon/launcher/index.js';
import { freeRange } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { CLI, Reaper, removeDir, stopDaemon, tempHome, waitFor, waitGone } from './helpers/procs.js';

const reaper = new Reaper();
let home: string;

beforeEach(() => {
  home = tempHome('gb-cli-life-');
});

afterEach(async () => {
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
});

/** Run the CLI from `cwd` with this test's home; never rejects. */
function cli(args: string[], cwd = home): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_')) env[k] = v;
  env.GAME_BRIDGE_HOME = home;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A project folder in the home whose gamebridge.json launches Crate Stack, with a client profile. */
async function project(): Promise<string> {
  return writeProject(join(home, 'project'), {
    ports: await freeRange(4),
    launch: { profiles: { client: { args: '--slow-start 2500 --name "Client {index}"' } } },
  }).cwd;
}

test('init --template multiplayer writes a server and a client profile the launcher reads', async () => {
  const r = await cli([
    'init',
    '--template',
    'multiplayer',
    '--name',
    'Arena',
    '--command',
    './arena --port {port}',
    '--port-range',
    '7900-7909',
  ]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('profiles: "server" and "client"');
  const decl = readDeclaration(join(home, 'gamebridge.json'));
  expect(Object.keys(decl.profiles)).toEqual(['server', 'client']);
  expect(decl.profiles.client).toMatchObject({
    args: '--connect 127.0.0.1:7900 --player {index}',
    env: { PLAYER_INDEX: '{index}' },
  });
});

test("the CLI's launch --profile --count, status, logs and logs -f show the games a person launched", async () => {
  const cwd = await project();
  const launched = await cli(['launch', '--profile', 'client', '--count', '2'], cwd);
  reportFigures('evidence', `LAUNCH (exit ${launched.code})\nstderr:\n${launched.stderr}stdout:\n${launched.stdout}`);
  expect(launched.code).toBe(0);
  expect(launched.stderr).toMatch(/^launching from .*project…\n/);
  // while the games slept before binding, the progress said so, with their own last words
  expect(launched.stderr).toMatch(
    /… Waiting for Crate Stack to answer on port \d+ \(profile client, index [01]\) \(\d+s of 30s\); last output: crate-stack: slow start: waiting 2500ms before binding\n/,
  );
  expect(launched.stderr).toMatch(/✔ 2 instances are up \([\d.]+s\)\n/);
  const rows = launched.stdout.split('\n').filter((l) => /^\s+\d+\s+\d+\s+Client [01]/.test(l));
  expect(rows).toHaveLength(2);
  const [portA, pidA] = rows[0].trim().split(/\s+/).map(Number);
  const [portB, pidB] = rows[1].trim().split(/\s+/).map(Number);
  for (const pid of [pidA, pidB]) reaper.track(pid);

  const status = await cli(['status']);
  reportFigures('evidence', `STATUS\n${status.stdout}`);
  expect(status.code).toBe(0);
  expect(status.stdout).toMatch(/0 session\(s\), 2 game\(s\) running/);
  expect(status.stdout).toMatch(
    new RegExp(
      `\\n  ${portA}\\s+${pidA}\\s+Client 0\\s+client #0\\s+\\S+\\s+detached\\s+\\S+instance-${portA}-\\d+\\.log\\n`,
    ),
  );
  const json = JSON.parse((await cli(['status', '--json'])).stdout);
  expect(json.instances.map((i: { port: number }) => i.port).sort()).toEqual([portA, portB].sort());

  const logs = await cli(['logs', String(portA)]);
  expect(logs.code).toBe(0);
  expect(logs.stdout).toContain(`crate-stack: listening on 127.0.0.1:${portA}`);

  // -f: follows, and says when the game dies
  const env: Record<string, string> = { ...(process.env as Record<string, string>), GAME_BRIDGE_HOME: home };
  const follow = reaper.spawn(process.execPath, [CLI, 'logs', String(portB), '-f'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let followed = '';
  follow.stdout!.on('data', (d: Buffer) => (followed += d.toString()));
  await waitFor('the log so far', () => followed.includes(`listening on 127.0.0.1:${portB}`), 30000);
  process.kill(pidB, 'SIGKILL');
  await waitFor('the exit told', () => followed.includes(`[game-bridge] The game on port ${portB}`), 15000, 100);
  expect(followed).toMatch(
    new RegExp(
      `\\[game-bridge\\] The game on port ${portB} \\(Client 1, profile client #1, pid ${pidB}\\) was killed by signal SIGKILL`,
    ),
  );
  follow.kill('SIGTERM');
  expect(await waitGone(follow.pid!, 5000)).toBe(true);

  const after = await cli(['status']);
  expect(after.stdout).toMatch(
    new RegExp(
      `Games that exited \\(until relaunched or pruned\\)\\n.*\\n  ${portB}\\s+${pidB}\\s+Client 1\\s+killed by signal SIGKILL`,
    ),
  );
  expect(await cli(['logs', '1'])).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/no log for port 1 under /),
  });
}, 120000);

test('what a game reports is printed inert: escapes and line clears in its name and version reach no terminal from launch, status, logs or stop', async () => {
  const evil = 'Evil\u001b[2J\u001b[HGame\r\u001b[2K\u009b31m\u202e';
  const cwd = writeProject(join(home, 'project'), {
    ports: await freeRange(2),
    name: evil,
    gameArgs: `--name "${evil}" --version-tag "1.0\u001b]0;owned\u0007"`,
  }).cwd;
  const outputs: string[] = [];
  const launched = await cli(['launch'], cwd);
  expect(launched.code).toBe(0);
  const port = Number(/is up on port (\d+)/.exec(launched.stderr)?.[1]);
  outputs.push(launched.stdout, launched.stderr);
  const status = await cli(['status']);
  expect(status.stdout).toContain('Evil\\x1b[2J\\x1b[HGame\\r\\x1b[2K\\x9b31m\\u202e');
  outputs.push(status.stdout, status.stderr);
  const logs = await cli(['logs', String(port)]);
  expect(logs.code).toBe(0);
  outputs.push(logs.stderr); // the header; the log itself is the game's own output, printed as it wrote it
  const stop = await cli(['stop']);
  expect(stop.stdout).toMatch(/stopped game Evil\\x1b\[2J/);
  outputs.push(stop.stdout, stop.stderr);
  for (const text of outputs) {
    // nothing but newlines (and launch's own spinner, which is off when stderr is not a terminal)
    expect(text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  }
}, 120000);

test('the CLI says which games it acts on: logs names them and whose log it prints, launch where it runs, stop the games before the daemon', async () => {
  const cwd = await project();
  const first = await cli(['launch'], cwd);
  expect(first.code).toBe(0);
  const [port, pid] = first.stdout
    .split('\n')
    .find((l) => /^\s+\d+\s+\d+\s+Crate Stack/.test(l))!
    .trim()
    .split(/\s+/)
    .map(Number);
  reaper.track(pid);

  const bare = await cli(['logs']);
  expect(bare.code).toBe(2);
  expect(bare.stderr).not.toMatch(/non-option/);
  expect(bare.stderr).toMatch(
    new RegExp(`logs needs the port of a launched game.*Launched from .*: ${port} \\(Crate Stack, running\\)`),
  );

  const logs = await cli(['logs', String(port)]);
  expect(logs.code).toBe(0);
  expect(logs.stderr).toMatch(
    new RegExp(
      `^\\[game-bridge\\] Crate Stack on port ${port} \\(pid ${pid}\\), running since \\S+; log \\S+instance-${port}-\\d+\\.log\\n$`,
    ),
  );
  expect(logs.stdout).toContain(`crate-stack: listening on 127.0.0.1:${port}`);

  const second = await cli(['launch'], cwd);
  expect(second.code).toBe(0);
  expect(second.stdout).toMatch(
    new RegExp(
      `^Crate Stack is already running on port ${port} \\(pid ${pid}\\), launched from \\S+gamebridge\\.json\\.\\n`,
    ),
  );
  expect(second.stdout).toMatch(/start another copy: .* launch --count 1\n$/);
  const status = JSON.parse((await cli(['status', '--json'])).stdout);
  expect(status.instances).toHaveLength(1);

  const stop = await cli(['stop']);
  expect(stop.stdout).toMatch(
    new RegExp(`^stopped game Crate Stack on port ${port} \\(pid ${pid}\\)\\ndaemon pid \\d+ stopped\\n$`),
  );
}, 120000);
