/**
 * A client that stops reading stdout: the proxy stops reading the daemon's socket, so acks
 * queue up in the daemon. The daemon must not run a request whose ack has not left it: after a
 * kill -9 the proxy re-sends every unacked request, and an unsafe one that already ran would be
 * applied twice. Counted at a scripted game.
 */
import { freePort } from './helpers/ports.js';
import { INIT, INITIALIZED, rawProxy } from './helpers/raw-proxy.js';
import { liveDaemon, sleep } from './helpers/fault.js';
import { healthOk, Reaper, removeDir, stopDaemon, tempHome, waitFor, waitGone } from './helpers/procs.js';

const reaper = new Reaper();
let home = '';

afterAll(async () => {
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
});

/**
 * A game whose /state is ~16 KB (answers fill buffers fast) and which counts each bump tag, in
 * its own process: the test process is busy reading tens of MB and must not starve it.
 */
const BULKY_GAME = `
const http = require('node:http');
const bumps = {}; let reads = 0; let id = 0; const blob = 'x'.repeat(15000);
http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const json = (b) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(b));
  if (url.pathname === '/health') return json({ ok: true, frame: 1 });
  if (url.pathname === '/state') { reads++; return json({ frame: 1, completedCommandId: id, blob }); }
  if (url.pathname === '/command') { const t = url.searchParams.get('tag') || ''; bumps[t] = (bumps[t] || 0) + 1; return json({ accepted: true, commandId: ++id, frame: 1 }); }
  if (url.pathname === '/counts') return json({ bumps, reads });
  res.writeHead(404).end();
}).listen(Number(process.argv[1]), '127.0.0.1');
`;

async function counts(port: number): Promise<{ bumps: Record<string, number>; reads: number }> {
  return (await (await fetch(`http://127.0.0.1:${port}/counts`)).json()) as {
    bumps: Record<string, number>;
    reads: number;
  };
}

test('an unsafe call to a client that does not read stdout is applied at most once across a daemon kill -9', async () => {
  home = tempHome('gb-ackflush-');
  const port = await freePort();
  reaper.spawn(process.execPath, ['-e', BULKY_GAME, String(port)]);
  await waitFor('the bulky game', () => healthOk(port));
  const stateReads = async () => (await counts(port)).reads;
  const bumped = async () => (await counts(port)).bumps.once ?? 0;
  // A long timeout: after the reconnect the bump waits behind a thousand re-sent reads.
  const p = rawProxy(reaper, { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000' }, [
    '--no-scan',
    '--timeout',
    '120000',
  ]);
  p.send(INIT);
  await p.answer('init');
  p.send(INITIALIZED);
  const first = await liveDaemon(home);
  reaper.track(first.pid);

  p.stopReading();
  const reads = 3000; // ~48 MB of answers: more than the pipe and both sockets hold
  for (let i = 0; i < reads; i++)
    p.send({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'call_tool', arguments: { port, name: 'get_state' } },
    });
  // Until the daemon stops reading the game: every buffer between it and the client is full.
  while ((await stateReads()) === 0) await sleep(100);
  for (let last = -1; (await stateReads()) !== last;) {
    last = await stateReads();
    await sleep(1500);
  }
  p.send({
    jsonrpc: '2.0',
    id: 'bump',
    method: 'tools/call',
    params: {
      name: 'call_tool',
      arguments: { port, name: 'raw_command', arguments: { cmd: 'bump', args: { tag: 'once' } } },
    },
  });
  await sleep(2000); // time enough to run it, were it run before its ack left
  const beforeKill = await bumped();
  process.kill(first.pid, 'SIGKILL');
  await waitGone(first.pid);

  p.startReading();
  const answer = await p.answer('bump', 120000);
  reaper.track((await liveDaemon(home, first.pid)).pid);
  const after = await bumped();
  const text = answer.result.isError ? String(answer.result.content?.[0]?.text) : 'ok';
  // Never applied twice, whichever way the race between the flood and the kill went.
  expect(after).toBeLessThanOrEqual(1);
  if (text === 'ok') {
    // Its ack never left the daemon: it was not run before the kill, and the re-send ran it once.
    expect({ beforeKill, after }).toEqual({ beforeKill: 0, after: 1 });
  } else {
    // Its ack had left (a little room opened in the buffers): the proxy cannot know whether it
    // ran, so it is not re-sent and the client is told to read the state first.
    expect(text).toMatch(/^CallInterrupted: .*may or may not have been applied; read the state/);
    expect(after).toBe(beforeKill);
  }
}, 240000);
