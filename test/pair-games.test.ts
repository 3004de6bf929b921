/**
 * Replay across a daemon crash with real games (docs/ARCHITECTURE.md): a safe call is re-sent and
 * gets the right answer, an unsafe one is answered with CallInterrupted and reaches the game
 * exactly once, and a launched game outlives its client and the daemon and is re-adopted.
 */
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gameState, unreadBytesAt } from './helpers/fault.js';
import { fixtureGame, fixtureHealth, getJson, startFixture } from './helpers/fixture-game.js';
import { call, gameCall } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { freePort } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { alive, CLI, startExampleGame, waitFor, waitGone } from './helpers/procs.js';

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
  const port = await startFixture(reaper, suite.env, suite.trackGroup);
  const h = await open();
  await gameCall(h, port, 'health');
  const first = await daemonPid();
  const waiting = gameCall(h, port, 'wait_for', { path: 'game.bumps.y', equals: 1, timeoutMs: 30000 }, 60000);
  const polled = (await fixtureHealth(port)).statePolls;
  await waitFor(
    'the wait_for polling the game',
    async () => (await fixtureHealth(port)).statePolls >= polled + 2,
    20000,
  );
  process.kill(first, 'SIGKILL');
  await waitGone(first);
  await getJson(port, '/command?cmd=bump&tag=y');
  const r = await waiting;
  expect(r.isError).toBe(false);
  expect(r.text).toContain('"matched":true');
  expect((await fixtureGame(port)).bumps.y).toBe(1);
  expect(await daemonPid(first)).not.toBe(first);
});

for (const [what, gameArgs, via] of [
  ['a tool of its manifest', [], 'manifest'],
  ['a raw command its manifest does not list', ['--no-tools'], 'passthrough'],
] as const) {
  test(`an unsafe call (${what}) acked before kill -9 is answered CallInterrupted and reaches the game exactly once`, async () => {
    const port = await freePort();
    await startExampleGame(reaper, port, [...gameArgs], suite.env);
    const h = await open();
    expect((await gameCall(h, port, 'peek')).json.via).toBe(via); // the manifest is cached: the replay verdict reads it
    const first = await daemonPid();
    await gameCommand(port, 'cmd=freeze&ms=4000'); // the game stalls, HTTP included
    const bumping = gameCall(h, port, 'bump', { tag: 'x' }, 60000);
    // The daemon acks a request before it runs it: once the bump waits unread at the frozen
    // game, it was acked (as unsafe, unless the verdict is wrong) and is in flight.
    await waitFor('the bump waiting at the frozen game', () => unreadBytesAt(port) > 0, 3000);
    process.kill(first, 'SIGKILL');
    const r = await bumping;
    expect(r.text).toMatch(/^CallInterrupted: /);
    await waitFor('the bump applied after the freeze', async () => (await gameState(port)).game.bumps.x === 1, 20000);
    // A re-sent bump would have reached the game before this one, sent after the answer.
    const after = await gameCall(h, port, 'bump', { tag: 'after' }, 30000);
    expect(after.isError ? after.text : 'ok').toBe('ok');
    expect((await gameState(port)).game.bumps).toEqual({ x: 1, after: 1 });
  });
}

test('a launched game lives through its client and a daemon kill -9 until `stop` reaps it', async () => {
  const gamePort = await freePort();
  const project = writeProject(join(suite.home, 'project'), { name: 'Crates', ports: [gamePort] }).root;
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
  const status = JSON.parse(
    (await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...suite.env } })).stdout,
  );
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
  const proxy = spawn(process.execPath, [CLI], {
    env: { ...process.env, ...suite.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  reaper.track(proxy.pid);
  let out = '';
  proxy.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const send = (m: object) => proxy.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  const answered = (id: number) => out.split('\n').some((l) => l.includes(`"id":${id},`) || l.endsWith(`"id":${id}}`));
  send({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await waitFor('initialize answered', () => answered(1));
  send({ method: 'notifications/initialized' });
  // a safe call that would answer (CommandTimeout) 2.5 s after it starts, if it ever ran again
  send({
    id: 5,
    method: 'tools/call',
    params: {
      name: 'call_tool',
      arguments: { port, name: 'wait_for', arguments: { path: 'game.never', exists: true, timeoutMs: 2500 } },
    },
  });
  send({ method: 'notifications/cancelled', params: { requestId: 5, reason: 'the user gave up' } });
  // The proxy reads its stdin in order: once the ping is answered, it has seen the cancellation.
  send({ id: 4, method: 'ping' });
  await waitFor('the ping after the cancellation answered', () => answered(4));
  const first = await daemonPid();
  process.kill(first, 'SIGKILL');
  send({ id: 6, method: 'ping' });
  send({ id: 7, method: 'tools/list' });
  await waitFor('tools/list answered by a new daemon', () => answered(7), 20000);
  // The same wait, sent after the reconnect: a re-sent request 5 went out before it, so it
  // would be answered first.
  send({
    id: 8,
    method: 'tools/call',
    params: {
      name: 'call_tool',
      arguments: { port, name: 'wait_for', arguments: { path: 'game.never', exists: true, timeoutMs: 2500 } },
    },
  });
  await waitFor('the second wait answered', () => answered(8), 20000);
  expect(answered(5)).toBe(false);
  proxy.stdin.end();
});
