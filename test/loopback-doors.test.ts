/**
 * Every HTTP door the daemon opens goes through one loopback guard (shared/loopback.ts): the
 * daemon's own listener (a real daemon), a page carrier and a static site (in this process).
 * Each is tried the same ways: a wrong Host, a foreign Origin and another local site's browser
 * request, a peer that is not loopback, more connections than its cap, and a request whose
 * headers never end. An audit held ~20k idle connections on the carrier and the static server,
 * which had no bounds, and the daemon ran out of descriptors.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPageCarrier } from '../daemon/web/carrier.js';
import { serveStatic } from '../daemon/web/static.js';
import { endHttpDaemon, startHttpDaemon, type HttpDaemon } from './helpers/http-daemon.js';
import { Reaper, removeDir, waitFor } from './helpers/procs.js';

const CAP = 8;
const reaper = new Reaper();
let daemon: HttpDaemon | undefined;
const closers: Array<() => Promise<void>> = [];
const sockets: Socket[] = [];
const www = mkdtempSync(join(tmpdir(), 'gb-doors-'));
writeFileSync(join(www, 'index.html'), '<!doctype html><title>door</title>');

interface Door {
  port: number;
  /** a path the door answers to a plain request (200; 401 without a token; 503 with no page joined) */
  path: string;
}
const doors: Record<string, Door> = {};

beforeAll(async () => {
  process.env.GAME_BRIDGE_MAX_CONNECTIONS = String(CAP);
  try {
    daemon = await startHttpDaemon(reaper);
  } finally {
    delete process.env.GAME_BRIDGE_MAX_CONNECTIONS;
  }
  const carrier = await startPageCarrier({ port: 0, log: () => undefined, maxConnections: CAP, rejoinGraceMs: 0 });
  const site = await serveStatic({ root: www, maxConnections: CAP });
  closers.push(
    () => carrier.close(),
    () => site.close(),
  );
  doors.daemon = { port: daemon.port, path: '/status' };
  doors.carrier = { port: carrier.port, path: '/health' };
  doors.static = { port: site.port, path: '/index.html' };
}, 60_000);

afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

afterAll(async () => {
  for (const close of closers) await close();
  await endHttpDaemon(reaper, daemon);
  removeDir(www);
});

/** One raw HTTP/1.1 GET with `headers` (Host is 127.0.0.1:<port> unless given); its status. */
function status(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    sockets.push(s);
    const all = { Host: `127.0.0.1:${port}`, Connection: 'close', ...headers };
    let text = '';
    s.on('data', (d) => (text += d.toString()));
    s.on('error', reject);
    s.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    s.write(
      `GET ${path} HTTP/1.1\r\n${Object.entries(all)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`,
    );
  });
}

/** Open `n` connections that send `text` and then nothing; what is known of each. */
async function strays(port: number, n: number, text = ''): Promise<Array<{ closed: boolean }>> {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<{ closed: boolean }>((resolve) => {
          const s = connect(port, '127.0.0.1');
          const seen = { closed: false };
          sockets.push(s);
          s.on('error', () => undefined);
          s.resume();
          s.on('close', () => (seen.closed = true));
          s.on('connect', () => (s.write(text), resolve(seen)));
        }),
    ),
  );
}

/** An address of this machine that is not loopback (the container's own interface). */
function outsideAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal);
  if (!found) throw new Error('this machine has no non-loopback IPv4 address to try the doors from');
  return found.address;
}

const DOORS = ['daemon', 'carrier', 'static'] as const;

describe.each(DOORS)('the %s door', (name) => {
  test('a wrong Host is refused (DNS rebinding)', async () => {
    const { port, path } = doors[name];
    expect(await status(port, path, { Host: `rebind.example:${port}` })).toBe(403);
    expect(await status(port, path, { Host: `127.0.0.1:${port + 1}` })).toBe(403);
    // ...while its own Host is let through to the door's own checks (a token, a joined page).
    expect([200, 401, 503]).toContain(await status(port, path));
  });

  test("a foreign Origin, a cross-site request and another local site's request are refused", async () => {
    const { port, path } = doors[name];
    expect(await status(port, path, { Origin: 'http://evil.example' })).toBe(403);
    expect(await status(port, path, { Origin: `http://127.0.0.1:${port + 1}` })).toBe(403);
    expect(await status(port, path, { 'Sec-Fetch-Site': 'cross-site' })).toBe(403);
    // A no-cors GET or an <img> from another port's page: same-site, and no Origin at all.
    expect(await status(port, path, { 'Sec-Fetch-Site': 'same-site' })).toBe(403);
    expect(await status(port, path, { 'Sec-Fetch-Site': 'same-site', Origin: `http://127.0.0.1:${port}` })).not.toBe(
      403,
    );
  });

  test('a peer that is not loopback cannot connect', async () => {
    const { port } = doors[name];
    const address = outsideAddress();
    const outcome = await new Promise<string>((resolve) => {
      const s = connect(port, address);
      sockets.push(s);
      s.on('connect', () => resolve('connected'));
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(outcome).toBe('ECONNREFUSED');
  });

  test(`connections past its cap (${CAP} here) are closed at once`, async () => {
    const { port } = doors[name];
    const held = await strays(port, CAP * 3);
    await new Promise((r) => setTimeout(r, 500));
    const open = held.filter((s) => !s.closed).length;
    expect(open).toBeLessThanOrEqual(CAP);
    expect(open).toBeGreaterThan(0);
    for (const s of sockets.splice(0)) s.destroy();
  });

  test('it serves again once the connections that filled its cap go', async () => {
    const { port, path } = doors[name];
    await strays(port, CAP * 3);
    for (const s of sockets.splice(0)) s.destroy();
    await waitFor('the door to serve again', async () => (await status(port, path).catch(() => 0)) !== 0, 10_000);
  });

  test('a request whose headers never end is dropped within seconds', async () => {
    const { port } = doors[name];
    const [half] = await strays(port, 1, `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    await waitFor('the half-open request dropped', () => half.closed, 12_000);
  }, 20_000);
});
