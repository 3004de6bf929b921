/** The launch port allocator on real loopback sockets: free twice over, reserved before any await. */
import http from 'node:http';
import net from 'node:net';
import { PortAllocator } from '../../daemon/launcher/ports.js';
import { holdRange } from '../helpers/ports.js';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Occupy `port` with `server` (a plain TCP listener, or an HTTP server answering /health). */
function occupy(server: net.Server, port: number): Promise<void> {
  servers.push(server);
  return new Promise((r) => server.listen({ port, host: '127.0.0.1' }, () => r()));
}

test('the first port of the range that is free twice over, in order; a reserved one is skipped', async () => {
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
  await occupy(net.createServer((s) => s.destroy()), tcp);
  const alloc = new PortAllocator(2000);
  expect(await alloc.isFree(tcp)).toBe(false);
  expect(await alloc.isFree(free)).toBe(true);
  await occupy(http.createServer((_q, r) => r.end('{"ok":true}')), game);
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
