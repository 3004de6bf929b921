/**
 * Limits the proxy enforces itself: a line over the daemon's frame limit is answered -32600
 * naming the limit (it used to close the link and be re-sent for ever), and stdin lines are
 * assembled in linear time.
 */
import { PassThrough, Writable } from 'node:stream';
import { MAX_LINE_BYTES, Stdio } from '../shared/stdio-lines.js';
import { liveDaemon } from './helpers/fault.js';
import { INIT, rawProxy } from './helpers/raw-proxy.js';
import { Reaper, removeDir, stopDaemon, tempHome } from './helpers/procs.js';

const reaper = new Reaper();
let home = '';
afterEach(async () => {
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
});

test('a line over the limit is answered -32600 with its id and the limit, without disturbing the daemon', async () => {
  home = tempHome('gb-limit-');
  const p = rawProxy(reaper, { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '20000' });
  p.send(INIT);
  await p.answer('init');
  const daemon = await liveDaemon(home);
  reaper.track(daemon.pid);
  // As the SDK writes it: the id comes last.
  const blob = 'a'.repeat(MAX_LINE_BYTES + 1024);
  p.child.stdin.write(
    `{"method":"tools/call","params":{"name":"call_tool","arguments":{"blob":"${blob}"}},"jsonrpc":"2.0","id":77}\n`,
  );
  p.send({ jsonrpc: '2.0', id: 78, method: 'ping' });
  const big = await p.answer(77, 30000);
  expect(big.error.code).toBe(-32600);
  expect(big.error.message).toContain(String(MAX_LINE_BYTES));
  await p.answer(78);
  expect((await liveDaemon(home)).pid).toBe(daemon.pid); // no reconnect, no restart
}, 90000);

test('stdin line assembly is linear: a line just under the limit, in 64 KiB chunks, costs well under a few seconds of CPU', async () => {
  const input = new PassThrough();
  const got: number[] = [];
  const stdio = new Stdio(
    { line: (l) => got.push(l.length), end: () => undefined },
    input,
    new Writable({ write: (_c, _e, cb) => cb() }),
  );
  stdio.start();
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const chunks = Math.floor((MAX_LINE_BYTES - 10) / chunk.length);
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < chunks; i++) input.write(chunk);
  input.write('\n');
  await new Promise((r) => setImmediate(r));
  while (got.length === 0 && Date.now() - t0 < 60000) await new Promise((r) => setTimeout(r, 10));
  const cpu = process.cpuUsage(cpu0);
  expect(got).toEqual([chunks * chunk.length]);
  expect((cpu.user + cpu.system) / 1000).toBeLessThan(5000); // CPU, not wall time: the machine may be busy
}, 90000);
