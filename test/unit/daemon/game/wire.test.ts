/**
 * The wire a GameClient speaks over (daemon/game/wire.ts): HTTP to a game's port, or in-process
 * to a page this process carries, chosen per call; and "no page" as a typed value on both, which
 * the client turns into GameOffline (CallInterrupted for a command the page left with).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GameClient } from '../../../../daemon/game/client.js';
import { LocalSurfaces } from '../../../../daemon/game/local-surfaces.js';
import { HttpWire, InProcessWire, isNoPage } from '../../../../daemon/game/wire.js';
import { noPageBody } from '../../../../daemon/web/carrier.js';

const servers: http.Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

/** A real HTTP game on a free loopback port that answers every path with `status` and `body`. */
async function httpGame(status: number, body: unknown): Promise<number> {
  const server = http.createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

const target = (port: number) => ({ port, maxBytes: 1024 * 1024 });

test('a port with no surface in this process is asked over HTTP', async () => {
  const port = await httpGame(200, { ok: true, frame: 3, over: 'http' });
  const client = new GameClient(port, { timeoutMs: 2000, local: new LocalSurfaces() });
  expect(await client.health()).toMatchObject({ over: 'http' });
  client.close();
});

test('a port whose page this process carries is asked in-process, though an HTTP game listens there', async () => {
  const port = await httpGame(200, { ok: true, frame: 3, over: 'http' });
  const surfaces = new LocalSurfaces();
  const client = new GameClient(port, { timeoutMs: 2000, local: surfaces });
  const end = surfaces.serve(port, async () => ({ status: 200, body: { ok: true, frame: 4, over: 'in-process' } }));
  expect(await client.health()).toMatchObject({ over: 'in-process' });
  end();
  expect(await client.health()).toMatchObject({ over: 'http' });
  client.close();
});

test('in-process, a carrier with no page answers a typed no-page value', async () => {
  const wire = new InProcessWire(async () => ({ noPage: 'no page is joined' }), target(1));
  const a = await wire.get('/health', 1000);
  expect(isNoPage(a) && a.noPage).toBe('no page is joined');
});

test("over HTTP, a carrier's 503 no-page body is read back into the same typed value", async () => {
  const port = await httpGame(503, noPageBody({ noPage: 'the page went away', interrupted: true }));
  const wire = new HttpWire(target(port));
  expect(await wire.get('/state', 2000)).toEqual({ noPage: 'the page went away', interrupted: true });
  wire.close();
});

test('over HTTP, a 503 that is not a carrier without a page stays an answer', async () => {
  const port = await httpGame(503, { ok: false, error: 'busy' });
  const wire = new HttpWire(target(port));
  expect(await wire.get('/state', 2000)).toMatchObject({ status: 503 });
  wire.close();
});

test('the client reads no page as GameOffline', async () => {
  const surfaces = new LocalSurfaces();
  surfaces.serve(7, async () => ({ noPage: 'no page is joined' }));
  const client = new GameClient(7, { timeoutMs: 1000, local: surfaces });
  expect(await client.state().catch((e: unknown) => e)).toMatchObject({ kind: 'GameOffline' });
});

test('the client reads a page gone with a command as CallInterrupted', async () => {
  const surfaces = new LocalSurfaces();
  surfaces.serve(7, async () => ({ noPage: 'the page went away', interrupted: true }));
  const client = new GameClient(7, { timeoutMs: 1000, local: surfaces });
  expect(await client.command('drop').catch((e: unknown) => e)).toMatchObject({ kind: 'CallInterrupted' });
});
