/**
 * What anyone on the machine can do to the daemon's port without a token is bounded: half-open
 * requests are dropped within seconds, connections are capped, refusals are logged at a bounded
 * rate, and daemon.log is rotated. (An audit held ~20k half-open requests open; the daemon, at
 * its descriptor limit, failed a real client, and logged every refusal.)
 */
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { liveDaemon, sleep } from './helpers/fault.js';
import { INIT, rawProxy, type RawProxy } from './helpers/raw-proxy.js';
import { Reaper, removeDir, stopDaemon, tempHome, waitFor } from './helpers/procs.js';

const reaper = new Reaper();
let home = '';
const sockets: Socket[] = [];
async function teardown(): Promise<void> {
  for (const s of sockets.splice(0)) s.destroy();
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
}

/** A daemon started the ordinary way (its stderr is daemon.log), with `env` on top. */
async function daemonWith(env: Record<string, string>): Promise<{ port: number; token: string; proxy: RawProxy }> {
  home = tempHome('gb-dlim-');
  const proxy = rawProxy(reaper, { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000', ...env });
  proxy.send(INIT);
  await proxy.answer('init');
  const d = await liveDaemon(home);
  reaper.track(d.pid);
  return { port: d.port, token: d.token, proxy };
}

/** Open `n` connections that send `text` and then nothing; resolves once all are connected. */
async function openStrays(port: number, n: number, text: string): Promise<Array<{ closed: boolean }>> {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<{ closed: boolean }>((resolve) => {
          const s = connect(port, '127.0.0.1');
          const seen = { closed: false };
          sockets.push(s);
          s.on('error', () => undefined);
          s.resume(); // read what the daemon says, so its close is seen
          s.on('close', () => (seen.closed = true));
          s.on('connect', () => (s.write(text), resolve(seen)));
        }),
    ),
  );
}

describe('half-open requests', () => {
  let strays: Array<{ closed: boolean }> = [];
  let toolsServed = 0;
  beforeAll(async () => {
    const { port, proxy } = await daemonWith({});
    strays = await openStrays(port, 300, `GET /status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    proxy.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    toolsServed = (await proxy.answer(2)).result.tools.length;
  }, 60000);
  afterAll(teardown);

  test('do not keep a real client from being served', () => {
    expect(toolsServed).toBeGreaterThan(0);
  });

  test('are dropped within seconds', async () => {
    await waitFor('the daemon to drop every half-open request', () => strays.every((s) => s.closed), 12000);
  }, 30000);
});

describe('past the connection cap', () => {
  afterAll(teardown);

  test('connections are closed at once', async () => {
    const { port } = await daemonWith({ GAME_BRIDGE_MAX_CONNECTIONS: '40' });
    const strays = await openStrays(port, 100, '');
    await sleep(1000);
    const open = strays.filter((s) => !s.closed).length;
    expect(open).toBeLessThanOrEqual(40);
    expect(open).toBeGreaterThan(0);
  }, 60000);
});

describe('daemon.log under refused upgrades', () => {
  let log = '';
  beforeAll(async () => {
    const { port } = await daemonWith({ GAME_BRIDGE_LOG_MAX_BYTES: '65536' });
    log = join(home, 'daemon', 'daemon.log');
    const bad = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer nope\r\n\r\n`;
    for (let round = 0; round < 4; round++) await openStrays(port, 50, bad);
    await sleep(500);
  }, 60000);
  afterAll(teardown);

  test('refused upgrades are logged at a bounded rate', () => {
    const refusals = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('refused an upgrade')).length;
    expect(refusals).toBeGreaterThan(0);
    expect(refusals).toBeLessThanOrEqual(10);
  });

  test('daemon.log is rotated past its limit', async () => {
    // Whatever fills the file, the daemon keeps it under its limit and the previous part aside.
    appendFileSync(log, 'x'.repeat(200 * 1024) + '\n');
    await waitFor('daemon.log to be rotated', () => statSync(log).size < 65536 && existsSync(`${log}.1`), 10000);
    expect(statSync(`${log}.1`).size).toBeGreaterThan(200 * 1024);
  }, 30000);
});
