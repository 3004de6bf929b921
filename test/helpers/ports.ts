/** Ports for tests: each test allocates its own, never a fixed number. */
import net from 'node:net';

export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** An OS-assigned free port (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen({ port: 0, host: '127.0.0.1' }, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** `count` consecutive ports that are all free right now, from a random base. */
export async function freeRange(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = 20000 + Math.floor(Math.random() * 30000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    const ok = await Promise.all(ports.map(canBind));
    if (ok.every(Boolean)) return ports;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}
