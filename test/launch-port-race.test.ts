/**
 * A launch's port taken by another process between the bridge choosing it and the game binding
 * it (another daemon launching from the same range at the same moment): the launch stops what it
 * started and launches again on another free port, naming the port that was taken. Through the
 * real CLI, daemon and SDK client, with the example game; the holder is a separate process, outside
 * the game's process tree, that reads the chosen port from the game's command line as it appears.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, cleanedAfterAll, connect } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { exampleGameCommand, writeProject } from './helpers/project.js';
import { tempHome, waitFor } from './helpers/procs.js';

jest.setTimeout(120_000);

const { homes, handles } = cleanedAfterAll();

/**
 * Takes the port of the first command line marked `gb-race-answer <port>` (answering /health as
 * another game) and of the first marked `gb-race-silent <port>` (accepting connections, answering
 * nothing); later marked ports are left alone. Prints "bound <port>" once it listens.
 */
const HOLDER = `
import http from 'node:http';
import net from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
const taken = new Set();
setTimeout(() => process.exit(0), 120_000);
for (;;) {
  for (const pid of readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) {
    let cmd = '';
    try { cmd = readFileSync('/proc/' + pid + '/cmdline', 'utf8'); } catch { continue; }
    const m = /gb-race-(answer|silent)\\0(\\d+)/.exec(cmd);
    if (!m || taken.has(m[1])) continue;
    taken.add(m[1]);
    const server = m[1] === 'answer'
      ? http.createServer((q, s) => s.end(JSON.stringify({ ok: true, name: 'Other Game', frame: 1, capabilities: [] })))
      : net.createServer(() => {});
    server.listen(Number(m[2]), '127.0.0.1', () => console.log('bound ' + m[2]));
  }
  await new Promise((r) => setTimeout(r, 10));
}
`;

let holder: ChildProcess;
const holderLines: string[] = [];

beforeAll(() => {
  holder = spawn(process.execPath, ['--input-type=module', '-e', HOLDER], { stdio: ['ignore', 'pipe', 'inherit'] });
  holder.stdout!.on('data', (d: Buffer) => holderLines.push(...d.toString().split('\n').filter(Boolean)));
});

afterAll(() => {
  holder.kill('SIGKILL');
});

/** Launches the example game, one second late, from a project whose command carries `marker`. */
async function launchMarked(marker: string) {
  const home = tempHome('gb-race-');
  homes.push(home);
  const ports = await freeRange(2);
  const game = exampleGameCommand().replace('--port {port}', '--port "$1"');
  const { cwd } = writeProject(join(home, 'project'), {
    ports,
    command: `sh -c 'sleep 1; exec ${game}' ${marker} {port}`,
  });
  const h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd, args: ['--no-scan'] });
  handles.push(h);
  const r = await call(h, 'launch_instance', {}, 90_000);
  return { h, r, ports };
}

test('a launch whose port another game takes first launches again on the next free port', async () => {
  const { h, r, ports } = await launchMarked('gb-race-answer');
  await waitFor('the holder to bind', () => holderLines.includes(`bound ${ports[0]}`), 5000);
  expect(r.isError).toBeFalsy();
  expect(r.json).toMatchObject({ port: ports[1], name: 'Crate Stack', portsTaken: [ports[0]] });
  // The game that answered is the launched one: the daemon's own game, not the holder's.
  const live = (await call(h, 'list_instances')).json.live as Array<{ port: number; pid: number }>;
  expect(live.map((i) => i.port)).toEqual([ports[1]]);
  expect(live[0].pid).not.toBe(holder.pid);
});

test('a launch whose game exits because its port was taken launches again on the next free port', async () => {
  const { r, ports } = await launchMarked('gb-race-silent');
  await waitFor('the holder to bind', () => holderLines.includes(`bound ${ports[0]}`), 5000);
  expect(r.isError).toBeFalsy();
  expect(r.json).toMatchObject({ port: ports[1], name: 'Crate Stack', portsTaken: [ports[0]] });
});
