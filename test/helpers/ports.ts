/**
 * Ports for tests: each test allocates its own, never a fixed number.
 *
 * They come from 20000–32767, below the kernel's ephemeral range (32768–60999 here): the local
 * end of every outgoing connection on the machine (our own polls, other suites, other users) is
 * drawn from that range, so a port picked there can be taken by a client socket between the
 * check and the bind. A port that is not used at once is held (a listening socket of ours)
 * until the test hands it over with `release`.
 */
import net from 'node:net';

/** First and last port tests draw from. */
export const TEST_PORT_MIN = 20000;
export const TEST_PORT_MAX = 32767;

export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** Listen on `port` (nothing is served): the port is ours until the server closes. */
function holdOne(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const s = net.createServer((sock) => sock.destroy());
    s.once('error', () => resolve(undefined));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(s));
  });
}

const closeServer = (s: net.Server) => new Promise<void>((r) => s.close(() => r()));

/** Ports held by this test; `release` hands one (or all) over just before a game binds it. */
export interface HeldPorts {
  readonly ports: number[];
  release(...ports: number[]): Promise<void>;
}

/** `count` consecutive ports below the ephemeral range, held until released. */
export async function holdRange(count: number): Promise<HeldPorts> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = TEST_PORT_MIN + Math.floor(Math.random() * (TEST_PORT_MAX - TEST_PORT_MIN - count + 2));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    const servers = await Promise.all(ports.map(holdOne));
    if (servers.every(Boolean)) {
      const held = new Map(ports.map((p, i) => [p, servers[i]!]));
      return {
        ports,
        async release(...which: number[]) {
          for (const p of which.length ? which : [...held.keys()]) {
            const s = held.get(p);
            held.delete(p);
            if (s) await closeServer(s);
          }
        },
      };
    }
    await Promise.all(servers.map((s) => s && closeServer(s)));
  }
  throw new Error(`no ${count} consecutive free ports found below ${TEST_PORT_MAX + 1}`);
}

/** `count` consecutive ports that are free now, for a test that binds them at once. */
export async function freeRange(count: number): Promise<number[]> {
  const held = await holdRange(count);
  await held.release();
  return held.ports;
}

/** One port that is free now, below the ephemeral range. */
export async function freePort(): Promise<number> {
  return (await freeRange(1))[0];
}
