/**
 * Sessions through the real pair (docs/ARCHITECTURE.md): several clients share one daemon with their own
 * settings, games belong to the session that launched them, outlive it detached, are adopted
 * by the next session that uses them, and `stop` leaves nothing behind.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, gameCall, type McpHandle } from './helpers/mcp.js';
import { daemonFacts } from './helpers/fault.js';
import { pairSuite } from './helpers/pair.js';
import { freeRange } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { alive, CLI, groupGone, waitFor, waitGone } from './helpers/procs.js';

const run = promisify(execFile);
const suite = pairSuite('gb-sess-');
const daemonJson = () => daemonFacts(suite.home);
const open = (cwd: string, args: string[] = []) => suite.open(cwd, args);

/** A project named `name` launching the example game (under that name) on `range`; its src/ folder. */
function project(name: string, range: number[], extra = ''): string {
  return writeProject(join(suite.home, name), {
    name,
    ports: range,
    gameArgs: `--name ${name} ${extra}`.trim(),
    subdir: 'src',
  }).cwd;
}

async function launch(h: McpHandle): Promise<{ port: number; pid: number; name: string }> {
  const r = await call(h, 'launch_instance', {}, 60000);
  if (r.isError) throw new Error(r.text);
  suite.trackGroup(r.json.pid);
  return r.json as { port: number; pid: number; name: string };
}

test('two clients in two projects share one daemon with their own settings and concurrent launches get their own ports', async () => {
  const ports = await freeRange(8);
  const a = await open(project('Alpha', ports));
  const b = await open(project('Beta', ports), ['--timeout', '3000']);
  const pidAfterA = daemonJson()!.pid;
  const launched = await Promise.all([launch(a), launch(b), launch(a), launch(b)]);
  expect(daemonJson()!.pid).toBe(pidAfterA);
  expect(new Set(launched.map((l) => l.port)).size).toBe(4);
  // each launched from its own client's project
  expect(launched.map((l) => l.name).sort()).toEqual(['Alpha', 'Alpha', 'Beta', 'Beta']);
  const statusOut = JSON.parse(
    (await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...suite.env } })).stdout,
  );
  expect(statusOut.sessions.length).toBe(2);
  // ownership as each client sees it
  const seenByA = (await call(a, 'list_instances')).json.live as Array<{
    port: number;
    owner: string;
    launchedByThisBridge: boolean;
  }>;
  for (const l of launched) {
    const row = seenByA.find((r) => r.port === l.port)!;
    expect(row.launchedByThisBridge).toBe(true);
    expect(row.owner).toBe(l.name === 'Alpha' ? 'you' : 'another session');
  }
  // another live session's game: refused without force, stopped with it
  const betaGame = launched.find((l) => l.name === 'Beta')!;
  const refused = await call(a, 'stop_instance', { port: betaGame.port });
  expect(refused.text).toMatch(/^BridgeUsageError: .*another live session.*force: true/);
  const forced = await call(a, 'stop_instance', { port: betaGame.port, force: true });
  expect(forced.json).toMatchObject({ port: betaGame.port, stopped: true });
});

test("a closed client's game keeps running detached until a new client adopts it, reads its log and stops it", async () => {
  const ports = await freeRange(3);
  const cwd = project('Gamma', ports);
  const first = await open(cwd);
  const game = await launch(first);
  await first.close();
  await waitFor('session gone', async () => {
    const s = JSON.parse(
      (await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...suite.env } })).stdout,
    );
    return s.sessions.length === 0;
  });
  expect(alive(game.pid)).toBe(true);
  const second = await open(cwd);
  const row = ((await call(second, 'list_instances')).json.live as any[]).find((r) => r.port === game.port);
  expect(row).toMatchObject({ launchedByThisBridge: true, owner: 'detached' });
  const used = await gameCall(second, game.port, 'start');
  expect(used.json.applied).toBe(true);
  const row2 = ((await call(second, 'list_instances')).json.live as any[]).find((r) => r.port === game.port);
  expect(row2.owner).toBe('you');
  const log = await call(second, 'instance_log', { port: game.port, lines: 20 });
  expect(log.json.lines.join('\n')).toMatch(/applied #\d+ start/);
  const stopped = await call(second, 'stop_instance', { port: game.port });
  expect(stopped.json).toMatchObject({ stopped: true, how: 'closed cleanly' });
  expect(await waitGone(game.pid)).toBe(true);
});

test('after kill -9 of the daemon a launched game is re-adopted: logs still readable, stoppable', async () => {
  const ports = await freeRange(3);
  const cwd = project('Delta', ports);
  const h = await open(cwd);
  const game = await launch(h);
  const before = daemonJson()!.pid;
  process.kill(before, 'SIGKILL');
  await waitGone(before);
  expect(alive(game.pid)).toBe(true);
  // the same client goes on: the proxy restarts the daemon, which re-adopts the game
  const log = await call(h, 'instance_log', { port: game.port, lines: 10 });
  expect(log.isError ? log.text : '').toBe('');
  expect(log.json.lines.join('\n')).toMatch(/listening on 127\.0\.0\.1/);
  expect(daemonJson()!.pid).not.toBe(before);
  const stopped = await call(h, 'stop_instance', { port: game.port });
  expect(stopped.json).toMatchObject({ stopped: true });
  expect(await waitGone(game.pid)).toBe(true);
});

test('`game-bridge-mcp stop` leaves zero game processes and zero registry entries', async () => {
  const ports = await freeRange(4);
  const cwd = project('Epsilon', ports, '--child');
  const h = await open(cwd);
  const games = [await launch(h), await launch(h)];
  expect(readdirSync(join(suite.home, 'instances')).length).toBe(2);
  const daemonPid = daemonJson()!.pid;
  await h.close();
  const said = await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...suite.env } });
  // the person is told which games went with the daemon
  for (const g of games) expect(said.stdout).toContain(`stopped game Epsilon on port ${g.port} (pid ${g.pid})`);
  expect(await waitGone(daemonPid, 15000)).toBe(true);
  for (const g of games) expect(await waitGone(g.pid, 5000)).toBe(true);
  // nothing left in the games' process groups either (the --child grandchildren)
  for (const g of games) expect(await groupGone(g.pid)).toBe(true);
  expect(readdirSync(join(suite.home, 'instances'))).toEqual([]);
});

test('a proxy started with a bad flag says so on stderr and in every tool call, never silently', async () => {
  const h = await open(suite.home, ['--prot', '7820']);
  const { tools } = await h.client.listTools();
  expect(tools.length).toBe(7);
  const r = await call(h, 'list_instances');
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(
    /^BridgeUsageError: This bridge was started with bad arguments \(.*Unknown argument: prot.*\)\. Fix the game-bridge-mcp arguments/,
  );
  await waitFor('stderr line', () => /Unknown argument: prot/.test(h.stderr()));
});

test('a misspelt flag (--prot) is named with the flag it meant, on stderr at start-up, before any call', async () => {
  const h = await open(suite.home, ['--prot', '7820']);
  await waitFor('stderr line', () => /Unknown argument: prot \(did you mean --port\?\)/.test(h.stderr()));
  const r = await call(h, 'list_instances');
  expect(r.text).toMatch(/Unknown argument: prot \(did you mean --port\?\)/);
});

test('kill -9 of the daemon mid-launch: the launch is interrupted and the next daemon reaps the half-started game', async () => {
  const ports = await freeRange(3);
  const cwd = project('Zeta', ports, '--slow-start 6000');
  const h = await open(cwd);
  const launching = call(h, 'launch_instance', {}, 60000);
  const launchedFile = join(suite.home, 'daemon', 'launched.json');
  const entry = await waitFor('a starting entry in launched.json', () => {
    try {
      return (
        JSON.parse(readFileSync(launchedFile, 'utf8')).instances as Array<{ pid: number; starting?: boolean }>
      ).find((i) => i.starting);
    } catch {
      return undefined;
    }
  });
  suite.trackGroup(entry.pid);
  const before = daemonJson()!.pid;
  process.kill(before, 'SIGKILL');
  const r = await launching;
  expect(r.text).toMatch(/^CallInterrupted: The call to 'launch_instance' was interrupted/);
  // the proxy restarted a daemon, which found the half-started game and reaped it
  await waitFor('a new daemon', () => daemonJson() && daemonJson()!.pid !== before);
  expect(await waitGone(entry.pid, 15000)).toBe(true);
  const list = await call(h, 'list_instances');
  expect(list.json.live).toEqual([]);
});
