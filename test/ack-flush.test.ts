/**
 * A client that stops reading stdout: the proxy stops reading the daemon's socket, so acks
 * queue up in the daemon. The daemon must not run a request whose ack has not left it: after a
 * kill -9 the proxy re-sends every unacked request, and an unsafe one that already ran would be
 * applied twice. Counted at a scripted game.
 */
import { createServer, type Server } from 'node:http';
import { freePort } from './helpers/ports.js';
import { INIT, INITIALIZED, rawProxy } from './helpers/raw-proxy.js';
import { liveDaemon, sleep } from './helpers/fault.js';
import { Reaper, removeDir, stopDaemon, tempHome, waitGone } from './helpers/procs.js';

const reaper = new Reaper();
let home = '';
let game: Server | undefined;

afterAll(async () => {
  stopDaemon(home);
  await reaper.reap();
  await new Promise((r) => (game ? game.close(r) : r(undefined)));
  removeDir(home);
});

/** A game whose /state is ~16 KB (answers fill buffers fast) and which counts each bump tag. */
async function bulkyGame(port: number): Promise<{ bumps: Map<string, number> }> {
  const bumps = new Map<string, number>();
  const blob = 'x'.repeat(15000);
  let id = 0;
  game = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (b: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(b));
    if (url.pathname === '/health') return json({ ok: true, frame: 1 });
    if (url.pathname === '/state') return json({ frame: 1, completedCommandId: id, blob });
    if (url.pathname === '/command') {
      const tag = url.searchParams.get('tag') ?? '';
      bumps.set(tag, (bumps.get(tag) ?? 0) + 1);
      return json({ accepted: true, commandId: ++id, frame: 1 });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => game!.listen(port, '127.0.0.1', () => r()));
  return { bumps };
}

test('while the client does not read stdout, an unsafe call is not run before its ack has left; after kill -9 it is applied once', async () => {
  home = tempHome('gb-ackflush-');
  const port = await freePort();
  const { bumps } = await bulkyGame(port);
  const p = rawProxy(reaper, { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000' });
  p.send(INIT);
  await p.answer('init');
  p.send(INITIALIZED);
  const first = await liveDaemon(home);
  reaper.track(first.pid);

  p.stopReading();
  const reads = 3000; // ~48 MB of answers: more than the pipe and both sockets hold
  for (let i = 0; i < reads; i++) p.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'call_tool', arguments: { port, name: 'get_state' } } });
  await sleep(3000);
  p.send({ jsonrpc: '2.0', id: 'bump', method: 'tools/call', params: { name: 'call_tool', arguments: { port, name: 'raw_command', arguments: { cmd: 'bump', args: { tag: 'once' } } } } });
  await sleep(2000);
  const beforeKill = bumps.get('once') ?? 0;
  process.kill(first.pid, 'SIGKILL');
  await waitGone(first.pid);

  p.startReading();
  const answer = await p.answer('bump', 120000);
  reaper.track((await liveDaemon(home, first.pid)).pid);
  expect(beforeKill).toBe(0); // its ack was stuck behind the answers nobody read: not run
  expect(bumps.get('once')).toBe(1);
  expect(answer.result.isError ?? false).toBe(false);
}, 240000);
