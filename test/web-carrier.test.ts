/**
 * The page carrier's wire and guards, with a WebSocket client standing in for the page (the
 * real web kit in real Chromium is covered by web-browser.test.ts): relaying, offline answers,
 * key and single-page refusals, garbage, a page gone mid-request, Host and Origin checks.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import WebSocket from 'ws';
import { GameClient } from '../daemon/game/client.js';
import { startPageCarrier, type PageCarrier } from '../daemon/web/carrier.js';
import { connectionOfGroup } from '../daemon/launcher/game-pid.js';
import { asNobody, asOtherUserTest } from './helpers/nobody.js';
import { ROOT, waitFor } from './helpers/procs.js';

const carriers: PageCarrier[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  sockets.splice(0).forEach((s) => s.on('error', () => undefined).terminate());
  await Promise.all(carriers.splice(0).map((c) => c.close()));
});

async function carrier(relayTimeoutMs?: number): Promise<{ c: PageCarrier; logs: string[] }> {
  const logs: string[] = [];
  const c = await startPageCarrier({ port: 0, log: (l) => logs.push(l), relayTimeoutMs });
  carriers.push(c);
  return { c, logs };
}

/** A page: joins with `url`, says hello (unless told not to), answers each get with `answer`. */
function fakePage(
  url: string,
  answer: (path: string, id: number, ws: WebSocket) => void = () => undefined,
  hello = true,
  origin?: string,
): Promise<WebSocket> {
  const ws = new WebSocket(url, origin ? { origin } : {});
  sockets.push(ws);
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    if (m.t === 'get') answer(m.path, m.id, ws);
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      if (hello) ws.send(JSON.stringify({ t: 'hello', name: 'Fake', version: '0.1' }));
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

const reply = (ws: WebSocket, id: number, status: number, body: unknown) =>
  ws.send(JSON.stringify({ t: 'reply', id, status, body }));

/** GET on the carrier's port with exact headers (fetch would not let us set Host). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
  });
}

const closed = (ws: WebSocket) =>
  new Promise<{ code: number; reason: string }>((r) =>
    ws.once('close', (code, reason) => r({ code, reason: reason.toString() })),
  );

test('the port answers GameOffline (503) until a page joins, then the contract paths exactly as sent', async () => {
  const { c, logs } = await carrier();
  expect(c.fragment).toBe(`#gamebridge=${encodeURIComponent(c.wsUrl)}`);
  expect(c.wsUrl).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${c.port}/page\\?key=[0-9a-f]{32}$`));
  const offline = await get(c.port, '/health');
  expect(offline).toEqual({
    status: 503,
    body: { ok: false, error: expect.stringMatching(/^GameOffline: no page is joined/) },
  });

  const seen: string[] = [];
  await fakePage(c.wsUrl, (path, id, ws) => {
    seen.push(path);
    reply(ws, id, path.startsWith('/nope') ? 404 : 200, { ok: true, frame: 7, path });
  });
  const info = await c.waitForJoin(5000);
  expect(info).toMatchObject({ name: 'Fake', version: '0.1', origin: null, join: 1 });
  expect(await get(c.port, '/health')).toEqual({ status: 200, body: { ok: true, frame: 7, path: '/health' } });
  expect((await get(c.port, '/command?cmd=say&text=%26%20%C3%A9')).body.path).toBe(
    '/command?cmd=say&text=%26%20%C3%A9',
  );
  expect((await get(c.port, '/nope')).status).toBe(404);
  expect(seen).toEqual(['/health', '/command?cmd=say&text=%26%20%C3%A9', '/nope']);
  expect(logs.join('\n')).toMatch(/page joined: Fake 0\.1/);
});

test('a page with a wrong or missing key is refused (401) and the refusal logged', async () => {
  const { c, logs } = await carrier();
  const base = `ws://127.0.0.1:${c.port}/page`;
  await expect(fakePage(`${base}?key=${'0'.repeat(32)}`)).rejects.toThrow('HTTP 401');
  await expect(fakePage(base)).rejects.toThrow('HTTP 401');
  expect(logs.join('\n')).toMatch(/refused a page joining .*wrong or missing key/);
});

test('a second page is refused (409) while the first is joined', async () => {
  const { c, logs } = await carrier();
  await fakePage(c.wsUrl, (_p, id, ws) => reply(ws, id, 200, { ok: true, frame: 1 }));
  await c.waitForJoin(5000);
  await expect(fakePage(c.wsUrl)).rejects.toThrow('HTTP 409');
  expect(logs.join('\n')).toMatch(/refused a page joining .*another page is already joined \(Fake\)/);
  expect((await get(c.port, '/health')).body).toEqual({ ok: true, frame: 1 });
});

test('a second page may join after the first left', async () => {
  const { c } = await carrier();
  const first = await fakePage(c.wsUrl, (_p, id, ws) => reply(ws, id, 200, { ok: true, frame: 1 }));
  await c.waitForJoin(5000);
  const left = new Promise((r) => c.once('leave', r));
  first.close();
  await left;
  expect((await get(c.port, '/health')).status).toBe(503);
  await fakePage(c.wsUrl, (_p, id, ws) => reply(ws, id, 200, { ok: true, frame: 0 }));
  expect((await c.waitForJoin(5000)).join).toBe(2);
});

test.each([
  ['text that is not JSON', 'hello there', /text that is not JSON/],
  ['a binary frame', Buffer.from([1, 2, 3]), /a binary frame/],
  [
    'a first message that is not hello',
    JSON.stringify({ t: 'reply', id: 1, status: 200, body: {} }),
    /first message that is not/,
  ],
])('a page that sends %s is closed (1008) with a log line saying what it sent', async (_what, frame, expected) => {
  const { c, logs } = await carrier();
  const ws = await fakePage(c.wsUrl, undefined, false);
  const end = closed(ws);
  ws.send(frame);
  expect((await end).code).toBe(1008);
  expect(logs.join('\n')).toMatch(/closing the page: it sent garbage/);
  expect(logs.join('\n')).toMatch(expected);
  // The slot is free again.
  await fakePage(c.wsUrl);
  await c.waitForJoin(5000);
});

test('after hello, a reply to a request never sent or without a status is garbage but a late reply is not', async () => {
  const { c, logs } = await carrier(300);
  let lateId = 0;
  const ws = await fakePage(c.wsUrl, (_p, id) => (lateId = id));
  await c.waitForJoin(5000);
  const slow = await get(c.port, '/state');
  expect(slow).toEqual({
    status: 504,
    body: {
      ok: false,
      interrupted: true,
      error: expect.stringMatching(/GameOffline: the page did not answer \/state within 300 ms/),
    },
  });
  reply(ws, lateId, 200, {}); // late: ignored, the page stays
  await new Promise((r) => setTimeout(r, 100));
  expect(c.page).not.toBeNull();
  const end = closed(ws);
  reply(ws, 99, 200, {});
  expect((await end).code).toBe(1008);
  expect(logs.join('\n')).toMatch(/a reply to request 99, which was never sent/);

  const again = await fakePage(c.wsUrl, (_p, id, s) => s.send(JSON.stringify({ t: 'reply', id, body: {} })));
  const end2 = closed(again);
  await get(c.port, '/health');
  expect((await end2).code).toBe(1008);
  expect(logs.join('\n')).toMatch(/a reply without a numeric id, an HTTP status and a body/);
});

test('a page that goes away mid-request: the request answers 503 GameOffline at once', async () => {
  const { c } = await carrier();
  await fakePage(c.wsUrl, (_p, _id, ws) => ws.terminate());
  await c.waitForJoin(5000);
  const started = Date.now();
  const r = await get(c.port, '/command?cmd=drop&x=3');
  expect(r.status).toBe(503);
  expect(r.body.error).toMatch(/^GameOffline: the page went away before answering/);
  expect(r.body.interrupted).toBe(true); // the page had it: the bridge says CallInterrupted, never re-sends
  expect(Date.now() - started).toBeLessThan(5000);
});

test('a page that goes away mid-request leaves its port answering', async () => {
  const { c } = await carrier();
  await fakePage(c.wsUrl, (_p, _id, ws) => ws.terminate());
  await c.waitForJoin(5000);
  await get(c.port, '/command?cmd=drop&x=3');
  expect((await get(c.port, '/health')).status).toBe(503);
});

test('right after a page left, a request waits for one to join again (a reload is a quick restart, not offline)', async () => {
  const { c } = await carrier();
  const first = await fakePage(c.wsUrl, () => undefined);
  await c.waitForJoin(5000);
  first.close();
  await waitFor('the page gone', () => c.page === null);
  const asked = get(c.port, '/health');
  await new Promise((r) => setTimeout(r, 200));
  await fakePage(c.wsUrl, (_p, id, ws) => reply(ws, id, 200, { ok: true, frame: 1 }));
  expect(await asked).toEqual({ status: 200, body: { ok: true, frame: 1 } });
});

test('Host, Origin and Sec-Fetch-Site: only the game itself, tools and curl may call a relayed port', async () => {
  const { c } = await carrier();
  const pageOrigin = 'http://127.0.0.1:5173';
  const ws = new WebSocket(c.wsUrl, { headers: { Origin: pageOrigin } });
  sockets.push(ws);
  ws.on('open', () => ws.send(JSON.stringify({ t: 'hello', name: 'Fake', version: '1' })));
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    reply(ws, m.id, 200, { ok: true, frame: 1 });
  });
  expect((await c.waitForJoin(5000)).origin).toBe(pageOrigin);

  const host = await get(c.port, '/health', { Host: 'evil.example:80' });
  expect(host.status).toBe(403);
  expect(host.body.error).toMatch(/unexpected Host header/);
  expect((await get(c.port, '/health', { Host: `localhost:${c.port}` })).status).toBe(200);
  const foreign = await get(c.port, '/command?cmd=close', { Origin: 'https://evil.example' });
  expect(foreign.status).toBe(403);
  expect(foreign.body.error).toMatch(/origin 'https:\/\/evil.example' are refused/);
  expect((await get(c.port, '/state', { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
  expect((await get(c.port, '/state', { Origin: 'null' })).status).toBe(403);
  // A no-cors GET from another local server's page: same-site, and no Origin at all.
  expect((await get(c.port, '/command?cmd=close', { 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
  expect((await get(c.port, '/state', { 'Sec-Fetch-Site': 'none' })).status).toBe(200);
  expect((await get(c.port, '/state', { Origin: pageOrigin, 'Sec-Fetch-Site': 'same-site' })).status).toBe(200);
  expect((await get(c.port, '/state', { Origin: `http://127.0.0.1:${c.port}` })).status).toBe(200);
  // A page on another Host cannot even join.
  await expect(
    new Promise((resolve, reject) => {
      const evil = new WebSocket(c.wsUrl, { headers: { Host: 'evil.example' } });
      sockets.push(evil);
      evil.once('open', resolve);
      evil.once('unexpected-response', (_q, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    }),
  ).rejects.toThrow('HTTP 403');
});

test('a carrier holds its port against a second one until close(), which frees it and ends the page', async () => {
  const { c } = await carrier();
  await expect(startPageCarrier({ port: c.port })).rejects.toThrow(
    `cannot listen on 127.0.0.1:${c.port}: the port is already in use`,
  );
  const ws = await fakePage(c.wsUrl);
  await c.waitForJoin(5000);
  const end = closed(ws);
  await c.close();
  expect((await end).code).toBe(1001);
  const again = await startPageCarrier({ port: c.port, key: c.key });
  carriers.push(again);
  expect(again.wsUrl).toBe(c.wsUrl);
  await waitFor('rejoin possible', async () => (await get(again.port, '/health')).status === 503);
});

test('through the game client: a command whose page went away is CallInterrupted, never re-sent to the next page', async () => {
  const { c } = await carrier();
  const seen: string[] = [];
  await fakePage(c.wsUrl, (path, _id, ws) => {
    seen.push(path);
    ws.terminate();
  });
  await c.waitForJoin(5000);
  const client = new GameClient(c.port, { timeoutMs: 5000 });
  try {
    const e = await client.command('drop', { x: 3 }).catch((x: unknown) => x);
    expect(e).toMatchObject({ kind: 'CallInterrupted' });
    expect(String((e as Error).message)).toMatch(
      /page went away while the command was in flight.*may or may not have been applied/,
    );
    await fakePage(c.wsUrl, (path, id, ws) => {
      seen.push(path);
      reply(ws, id, 200, { ok: true, frame: 1 });
    });
    await c.waitForJoin(5000);
    expect((await client.health()).ok).toBe(true);
    expect(seen.filter((p) => p.startsWith('/command'))).toEqual(['/command?cmd=drop&x=3']);
  } finally {
    client.close();
  }
});

/** A carrier that takes joins from `pageOrigin` only, and from connections of this process's group only. */
async function openedPageCarrier(pageOrigin: string): Promise<{ c: PageCarrier; logs: string[] }> {
  const logs: string[] = [];
  // The "browser" here is this process's own group; another user's process is not in it.
  const c: PageCarrier = await startPageCarrier({
    port: 0,
    log: (l) => logs.push(l),
    pageOrigin,
    acceptPeer: (peerPort) => connectionOfGroup(peerPort, c.port, process.pid) !== false,
  });
  carriers.push(c);
  return { c, logs };
}

const joins = (url: string, origin?: string) =>
  fakePage(url, undefined, true, origin).then(
    (ws) => (ws.close(), 'joined'),
    (e: Error) => e.message,
  );

test('a join only from the origin of the page the bridge opened: the key alone is not enough', async () => {
  const { c, logs } = await openedPageCarrier('http://127.0.0.1:40404');
  expect(await joins(c.wsUrl, 'http://127.0.0.1:40405')).toBe('HTTP 403');
  expect(await joins(c.wsUrl)).toBe('HTTP 403');
  expect(logs.join('\n')).toMatch(/a page of origin http:\/\/127\.0\.0\.1:40405 is not the page the bridge opened/);
  expect(await joins(c.wsUrl, 'http://127.0.0.1:40404')).toBe('joined');
});

asOtherUserTest(
  "a join with the right key and origin from another user's process is refused: it is not the browser the bridge opened",
  async () => {
    const pageOrigin = 'http://127.0.0.1:40404';
    const logs: string[] = [];
    // The "browser": a process in a group of its own, as Chromium is; acceptPeer asks about that group.
    let browserPid = 0;
    const c: PageCarrier = await startPageCarrier({
      port: 0,
      log: (l) => logs.push(l),
      pageOrigin,
      acceptPeer: (peerPort) => connectionOfGroup(peerPort, c.port, browserPid) !== false,
    });
    carriers.push(c);
    const script = `
    const { default: WebSocket } = await import(${JSON.stringify(join(ROOT, 'node_modules', 'ws', 'wrapper.mjs'))});
    const ws = new WebSocket(${JSON.stringify(c.wsUrl)}, { headers: { origin: ${JSON.stringify(pageOrigin)} } });
    ws.on('open', () => (console.log('joined'), process.exit(0)));
    ws.on('unexpected-response', (_q, res) => (console.log('refused ' + res.statusCode), process.exit(0)));
    ws.on('error', (e) => (console.log('error ' + e.message), process.exit(0)));`;
    expect((await asNobody(script)).trim()).toBe('refused 403');
    expect(logs.join('\n')).toMatch(/does not come from the browser the bridge opened/);
    expect(c.page).toBeNull();
    // The same from the "browser's" own process joins.
    const browser = spawn(process.execPath, ['--input-type=module', '-e', script], { detached: true });
    browserPid = browser.pid!;
    let out = '';
    browser.stdout!.on('data', (d) => (out += d));
    await new Promise((r) => browser.once('exit', r));
    expect(out.trim()).toBe('joined');
  },
);
