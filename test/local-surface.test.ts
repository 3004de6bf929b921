/**
 * A page carrier's port answered in-process for the daemon's own calls (daemon/game/local-surfaces.ts):
 * the carrier's answers exactly as over HTTP, with GameClient's bounds (timeout, abort, body cap).
 * A WebSocket client stands in for the page, as in web-carrier.test.ts.
 */
import http from 'node:http';
import WebSocket from 'ws';
import { GameClient, MAX_BODY_BYTES } from '../daemon/game/client.js';
import { LocalSurfaces, type LocalSurface } from '../daemon/game/local-surfaces.js';
import { startPageCarrier, type PageCarrier } from '../daemon/web/carrier.js';
import { freePort } from './helpers/ports.js';

/** The surfaces served in this test process, as the daemon state's are; the clients below are handed them. */
const surfaces = new LocalSurfaces();
const carriers: PageCarrier[] = [];
const sockets: WebSocket[] = [];
const ends: Array<() => void> = [];
afterEach(async () => {
  ends.splice(0).forEach((end) => end());
  sockets.splice(0).forEach((s) => s.on('error', () => undefined).terminate());
  await Promise.all(carriers.splice(0).map((c) => c.close()));
});

/** A carrier with a page joined that answers each request with `answer` (or hangs up on a command when told). */
async function carried(
  answer: (path: string) => unknown,
  dropOnCommand = false,
): Promise<{ c: PageCarrier; seen: string[] }> {
  const c = await startPageCarrier({ port: 0, log: () => undefined });
  carriers.push(c);
  const seen: string[] = [];
  const ws = new WebSocket(c.wsUrl);
  sockets.push(ws);
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    if (m.t !== 'get') return;
    seen.push(m.path);
    if (dropOnCommand && m.path.startsWith('/command')) return void ws.terminate();
    ws.send(JSON.stringify({ t: 'reply', id: m.id, status: 200, body: answer(m.path) }));
  });
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ t: 'hello', name: 'Fake', version: '0.1' }));
  await c.waitForJoin(5000);
  return { c, seen };
}

/** GET over HTTP, the way any other client reaches the port. */
function httpGet(port: number, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

/** Serve `surface` on a port where nothing listens: only the in-process path can answer there. */
async function servedOnFreePort(surface: LocalSurface): Promise<{ port: number; client: GameClient; end: () => void }> {
  const port = await freePort();
  const end = surfaces.serve(port, surface);
  ends.push(end);
  return { port, client: new GameClient(port, { timeoutMs: 300, local: surfaces }), end };
}

test('the carrier answers the daemon in-process exactly as over HTTP', async () => {
  const { c } = await carried((path) => ({ ok: true, frame: 3, path, score: 10 }));
  const { client } = await servedOnFreePort((t) => c.answer(t));
  expect(await client.state()).toEqual((await httpGet(c.port, '/state')).body);
  expect(await client.health()).toEqual({ ok: true, frame: 3, path: '/health', score: 10 });
  expect(await c.answer('/x'.repeat(40_000))).toMatchObject({ status: 414 });
});

test('the page sees each in-process request once', async () => {
  const { c, seen } = await carried((path) => ({ ok: true, frame: 3, path }));
  const { client } = await servedOnFreePort((t) => c.answer(t));
  await client.state();
  await client.health();
  expect(seen).toEqual(['/state', '/health']);
});

test('a surface no longer served in-process leaves nothing listening on its port', async () => {
  const { c } = await carried((path) => ({ ok: true, frame: 3, path }));
  const { client, end } = await servedOnFreePort((t) => c.answer(t));
  expect(await client.health()).toMatchObject({ ok: true });
  end();
  // no longer served in-process: nothing listens on that port
  expect(await client.health().catch((e: unknown) => e)).toMatchObject({ kind: 'GameOffline' });
});

test('in-process, a page gone with a command is still CallInterrupted', async () => {
  const { c } = await carried(() => ({ ok: true, frame: 1 }), true);
  const { client } = await servedOnFreePort((t) => c.answer(t));
  expect(await client.command('drop').catch((e: unknown) => e)).toMatchObject({ kind: 'CallInterrupted' });
});

test('in-process, a port with no page is GameOffline', async () => {
  const empty = await startPageCarrier({ port: 0, log: () => undefined, rejoinGraceMs: 0 });
  carriers.push(empty);
  const offline = await servedOnFreePort((t) => empty.answer(t));
  expect(await offline.client.state().catch((e: unknown) => e)).toMatchObject({ kind: 'GameOffline' });
});

test("in-process answers keep GameClient's bounds: its timeout, an abort, the body cap", async () => {
  const hanging = await servedOnFreePort(() => new Promise(() => undefined));
  const started = Date.now();
  expect(await hanging.client.state().catch((e: unknown) => e)).toMatchObject({ kind: 'GameOffline' });
  expect(Date.now() - started).toBeLessThan(5000);

  const aborted = new AbortController();
  aborted.abort();
  expect(await hanging.client.state(aborted.signal).catch((e: unknown) => e)).toMatchObject({
    kind: 'BridgeUsageError',
    message: expect.stringMatching(/cancelled/),
  });

  const inFlight = new AbortController();
  setTimeout(() => inFlight.abort(), 20);
  expect(await hanging.client.state(inFlight.signal).catch((e: unknown) => e)).toMatchObject({
    kind: 'BridgeUsageError',
  });

  const huge = await servedOnFreePort(async () => ({ status: 200, body: { blob: 'x'.repeat(MAX_BODY_BYTES) } }));
  expect(await huge.client.state().catch((e: unknown) => e)).toMatchObject({ kind: 'NotAGameSurface' });
});

test('ending a surface that was replaced leaves the new one in place', async () => {
  const port = await freePort();
  const endFirst = surfaces.serve(port, async () => ({ status: 200, body: { ok: true, which: 1 } }));
  const endSecond = surfaces.serve(port, async () => ({ status: 200, body: { ok: true, which: 2 } }));
  ends.push(endSecond);
  endFirst();
  expect(await new GameClient(port, { timeoutMs: 300, local: surfaces }).health()).toMatchObject({ which: 2 });
});
