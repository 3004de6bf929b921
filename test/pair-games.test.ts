/**
 * Replay across a daemon crash with real games (SPEC §6.3, §6.4): a safe call is re-sent and
 * gets the right answer, an unsafe one is answered with CallInterrupted and reaches the game
 * exactly once, and a launched game outlives its client and the daemon and is re-adopted.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, gameCall } from './helpers/mcp.js';
import { gameState, sleep } from './helpers/fault.js';
import { pairSuite } from './helpers/pair.js';
import { freePort } from './helpers/ports.js';
import { alive, CLI, EXAMPLE_GAME, startExampleGame, waitFor, waitGone } from './helpers/procs.js';

const run = promisify(execFile);
const suite = pairSuite('gb-pairg-');
const { reaper } = suite;
const open = (cwd?: string) => suite.open(cwd);
const daemonPid = (notPid?: number) => suite.daemonPid(notPid);

async function gameCommand(port: number, query: string): Promise<void> {
  const r = (await (await fetch(`http://127.0.0.1:${port}/command?${query}`)).json()) as { accepted: boolean };
  expect(r.accepted).toBe(true);
}

test('a safe call in flight (wait_for) survives kill -9 of the daemon and gets the right answer', async () => {
  const port = await freePort();
  await startExampleGame(reaper, port, [], suite.env);
  const h = await open();
  await gameCall(h, port, 'health');
  const first = await daemonPid();
  const waiting = gameCall(h, port, 'wait_for', { path: 'game.bumps.y', equals: 1, timeoutMs: 30000 }, 60000);
  await sleep(1500); // acked (safe) and waiting on the game
  process.kill(first, 'SIGKILL');
  await waitGone(first);
  await gameCommand(port, 'cmd=bump&tag=y');
  const r = await waiting;
  expect(r.isError).toBe(false);
  expect(r.text).toContain('"matched":true');
  expect((await gameState(port)).game.bumps.y).toBe(1);
  expect(await daemonPid(first)).not.toBe(first);
});

test('an unsafe call acked before kill -9 is answered CallInterrupted and reaches the game exactly once', async () => {
  const port = await freePort();
  await startExampleGame(reaper, port, [], suite.env);
  const h = await open();
  await gameCall(h, port, 'peek'); // manifest cached: the next call goes straight to /command
  const first = await daemonPid();
  await gameCommand(port, 'cmd=freeze&ms=4000'); // the game stalls, so the bump's sync wait is long
  const bumping = gameCall(h, port, 'bump', { tag: 'x' }, 60000);
  // The ack comes back within milliseconds; 1.5 s leaves room for a loaded machine while the
  // game is still frozen (so the bump is in flight, not yet applied, when the daemon dies).
  await sleep(1500);
  process.kill(first, 'SIGKILL');
  const r = await bumping;
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(/^CallInterrupted: /);
  await waitFor('the bump applied after the freeze', async () => (await gameState(port)).game.bumps.x === 1, 20000);
  await sleep(1500); // nothing re-sent it
  expect((await gameState(port)).game.bumps.x).toBe(1);
  // the session goes on with the new daemon
  const again = await gameCall(h, port, 'get_state', { path: 'game.bumps.x' });
  expect(again.isError).toBe(false);
});

test('a launched game outlives its client and a daemon kill -9, is re-adopted, and `stop` reaps it', async () => {
  const project = join(suite.home, 'project');
  mkdirSync(project);
  const gamePort = await freePort();
  writeFileSync(join(project, 'gamebridge.json'), JSON.stringify({ name: 'Crates', launch: { command: `node "${EXAMPLE_GAME}" --port {port}`, portRange: String(gamePort), readyTimeoutMs: 30000 } }));
  const h = await open(project);
  const launched = await call(h, 'launch_instance', {}, 60000);
  expect(launched.isError ? launched.text : 'ok').toBe('ok');
  const gamePid = launched.json.pid as number;
  suite.trackGroup(gamePid);
  expect(launched.json.port).toBe(gamePort);
  await h.close();
  const first = await daemonPid();
  process.kill(first, 'SIGKILL');
  await waitGone(first);
  expect(alive(gamePid)).toBe(true);
  const h2 = await open(project);
  await h2.client.listTools();
  const second = await daemonPid(first);
  const status = JSON.parse((await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...suite.env } })).stdout);
  expect(status.pid).toBe(second);
  expect(status.instances.map((i: { port: number }) => i.port)).toContain(gamePort);
  const bumped = await gameCall(h2, gamePort, 'bump', { tag: 'z' });
  expect(bumped.isError).toBe(false);
  await h2.close();
  await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...suite.env } });
  expect(await waitGone(gamePid, 15000)).toBe(true);
  expect(alive(second)).toBe(false);
});

test('a request the client cancelled is not re-sent after a daemon restart', async () => {
  const port = await freePort();
  await startExampleGame(reaper, port, [], suite.env);
  const proxy = spawn(process.execPath, [CLI], { env: { ...process.env, ...suite.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  reaper.track(proxy.pid);
  let out = '';
  proxy.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const send = (m: object) => proxy.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  const answered = (id: number) => out.split('\n').some((l) => l.includes(`"id":${id},`) || l.endsWith(`"id":${id}}`));
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  await waitFor('initialize answered', () => answered(1));
  send({ method: 'notifications/initialized' });
  // a safe call that would answer (CommandTimeout) 2.5 s after it starts, if it ever ran again
  send({ id: 5, method: 'tools/call', params: { name: 'call_tool', arguments: { port, name: 'wait_for', arguments: { path: 'game.never', exists: true, timeoutMs: 2500 } } } });
  await sleep(500);
  send({ method: 'notifications/cancelled', params: { requestId: 5, reason: 'the user gave up' } });
  await sleep(300);
  const first = await daemonPid();
  process.kill(first, 'SIGKILL');
  send({ id: 6, method: 'ping' });
  send({ id: 7, method: 'tools/list' });
  await waitFor('tools/list answered by a new daemon', () => answered(7), 20000);
  await sleep(3500); // a re-sent wait_for would have answered by now
  expect(answered(5)).toBe(false);
  proxy.stdin.end();
});
