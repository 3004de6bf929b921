/** The launch port allocator on real loopback sockets: free twice over, reserved before any await. */
import http from 'node:http';
import net from 'node:net';
import { answersHttp, canBind, PortAllocator } from '../../../../daemon/launcher/ports.js';
import { holdRange } from '../../../helpers/ports.js';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Occupy `port` with `server` (a plain TCP listener, or an HTTP server answering /health). */
function occupy(server: net.Server, port: number): Promise<void> {
  servers.push(server);
  return new Promise((r) => server.listen({ port, host: '127.0.0.1' }, () => r()));
}

test('the first port of the range that is free twice over and not reserved is given, in order', async () => {
  const held = await holdRange(4);
  const [a, b, c] = held.ports;
  await held.release();
  const alloc = new PortAllocator(2000);
  expect(await alloc.allocate(held.ports)).toEqual({ port: a, inRange: true });
  expect(await alloc.allocate(held.ports)).toEqual({ port: b, inRange: true }); // a is held by the first launch
  alloc.release(a);
  expect(await alloc.allocate(held.ports)).toEqual({ port: a, inRange: true });
  alloc.reserve(c); // re-adopted
  expect(await alloc.allocate(held.ports)).toEqual({ port: held.ports[3], inRange: true });
});

test('a port something listens on, or that answers HTTP, is taken', async () => {
  const held = await holdRange(3);
  const [tcp, game, free] = held.ports;
  await held.release();
  await occupy(
    net.createServer((s) => s.destroy()),
    tcp,
  );
  const alloc = new PortAllocator(2000);
  expect(await alloc.isFree(tcp)).toBe(false);
  expect(await alloc.isFree(free)).toBe(true);
  await occupy(
    http.createServer((_q, r) => r.end('{"ok":true}')),
    game,
  );
  expect(await alloc.isFree(game)).toBe(false);
  expect(await alloc.allocate(held.ports)).toEqual({ port: free, inRange: true });
});

test('concurrent allocations never share a port, even when every probe says free', async () => {
  // isFree answers "free" for every port, after a pause: only the reservation made before the
  // pause keeps two allocations apart.
  class AlwaysFree extends PortAllocator {
    override async isFree(): Promise<boolean> {
      await new Promise((r) => setTimeout(r, 20));
      return true;
    }
  }
  const alloc = new AlwaysFree();
  const range = [41000, 41001, 41002, 41003, 41004];
  const got = await Promise.all(range.map(() => alloc.allocate(range)));
  expect(got.map((g) => g.port).sort()).toEqual(range);
  expect(got.every((g) => g.inRange)).toBe(true);
});

test('a full range falls back to an OS-assigned port outside it, reserved too', async () => {
  const held = await holdRange(2);
  const alloc = new PortAllocator(2000);
  const got = await alloc.allocate(held.ports); // both held: taken
  expect(got.inRange).toBe(false);
  expect(held.ports).not.toContain(got.port);
  expect(got.port).toBeGreaterThan(0);
  await held.release();
  const second = await alloc.allocate([got.port]);
  expect(second.port).not.toBe(got.port); // the fallback port is reserved like any other
});

test('ports to avoid (an exited game keeps its facts there) come after the rest of the range', async () => {
  const held = await holdRange(3);
  const [a, b, c] = held.ports;
  await held.release();
  const alloc = new PortAllocator(2000);
  expect(await alloc.allocate(held.ports, new Set([a]))).toEqual({ port: b, inRange: true });
  expect(await alloc.allocate(held.ports, new Set([a]))).toEqual({ port: c, inRange: true });
  expect(await alloc.allocate(held.ports, new Set([a]))).toEqual({ port: a, inRange: true }); // last, but still in range
});

test('a pinned port (a restart taking it back) is handed to no launch until unpinned', async () => {
  const held = await holdRange(2);
  const [a, b] = held.ports;
  await held.release();
  const alloc = new PortAllocator(2000);
  alloc.pin(a);
  expect(await alloc.allocate([a, b])).toEqual({ port: b, inRange: true });
  alloc.release(b);
  alloc.unpin(a);
  expect(await alloc.allocate([a, b])).toEqual({ port: a, inRange: true });
});

test("claim reserves a free port at once, so another launch's claim of it is refused", async () => {
  const held = await holdRange(1);
  const [p] = held.ports;
  await held.release();
  const alloc = new PortAllocator(2000);
  await alloc.claim(p, 0);
  expect(await alloc.allocate([p]).then((g) => g.inRange)).toBe(false); // reserved by the claim
  await expect(alloc.claim(p, 0)).rejects.toThrow(new RegExp(`^Port ${p} is held by another launch of this bridge`));
});

test('claim gives up on a port still busy after waitMs, releasing it', async () => {
  const held = await holdRange(1);
  const [busy] = held.ports;
  await held.release();
  const alloc = new PortAllocator(2000);
  const listener = net.createServer((s) => s.destroy());
  await occupy(listener, busy);
  const t = Date.now();
  await expect(alloc.claim(busy, 300)).rejects.toThrow(
    new RegExp(`^Port ${busy} is still in use by a process this bridge did not launch`),
  );
  expect(Date.now() - t).toBeGreaterThanOrEqual(300);
  await new Promise((r) => listener.close(r));
  servers.splice(servers.indexOf(listener), 1);
  await alloc.claim(busy, 0); // the failed claim left no reservation behind
});

test('claim waits for a busy port to go quiet', async () => {
  const held = await holdRange(1);
  const [freed] = held.ports;
  await held.release();
  const alloc = new PortAllocator(2000);
  const late = net.createServer((s) => s.destroy());
  await new Promise<void>((r) => late.listen({ port: freed, host: '127.0.0.1' }, () => r()));
  setTimeout(() => late.close(), 250);
  await alloc.claim(freed, 10000);
  expect(await alloc.allocate([freed]).then((g) => g.inRange)).toBe(false);
});

test('a free port is not "answering" when the event loop stalls past the probe timeout', async () => {
  const held = await holdRange(1);
  const [port] = held.ports;
  await held.release();
  const asking = answersHttp(port, 50);
  const until = Date.now() + 300;
  while (Date.now() < until); // the timer and the refusal are both due when the loop wakes
  expect(await asking).toBe(false);
});

test('a listener that accepts and never answers is "answering" (taken)', async () => {
  const held = await holdRange(1);
  const [port] = held.ports;
  await held.release();
  const accepted: net.Socket[] = [];
  await occupy(
    net.createServer((sock) => void accepted.push(sock)),
    port,
  );
  expect(await answersHttp(port, 100)).toBe(true);
  for (const sock of accepted) sock.destroy();
});

test('canBind: a free port binds (and is let go at once), a held one does not', async () => {
  const held = await holdRange(1);
  const [p] = held.ports;
  expect(await canBind(p)).toBe(false);
  await held.release();
  expect(await canBind(p)).toBe(true);
  expect(await canBind(p)).toBe(true); // the first check closed what it bound
});

test("claim's refusals name the port in their facts, for the agent to act on", async () => {
  const held = await holdRange(1);
  const [p] = held.ports;
  await held.release();
  const alloc = new PortAllocator(2000);
  await alloc.claim(p, 0);
  const twice = await alloc.claim(p, 0).then(
    () => undefined,
    (e: { data?: unknown }) => e,
  );
  expect(twice?.data).toEqual({ kind: 'BridgeUsageError', port: p });
  alloc.release(p);
  const listener = net.createServer((s) => s.destroy());
  await occupy(listener, p);
  const busy = await alloc.claim(p, 0).then(
    () => undefined,
    (e: { data?: unknown }) => e,
  );
  expect(busy?.data).toEqual({ kind: 'BridgeUsageError', port: p });
});
