/**
 * Port choice for launches. A port is taken when it is free twice over: a bind on
 * 127.0.0.1 succeeds AND nothing answers /health on it (a game half-way through start-up owns
 * its port even while a bind test still succeeds). One allocator serves every client of the
 * daemon, so a port is reserved synchronously before any await: two concurrent launches
 * can never be handed the same port.
 */
import net from 'node:net';
import { HOST } from '../game/client.js';
import { probePort } from '../game/probe.js';
import { usageError } from '../../shared/errors.js';

export class PortAllocator {
  private reserved = new Set<number>();
  /** ports a restart is taking back: no other launch may be handed them meanwhile */
  private pinned = new Set<number>();

  constructor(private probeTimeoutMs = 500) {}

  /** Mark a port as ours (a launched or re-adopted instance holds it). */
  reserve(port: number): void {
    this.reserved.add(port);
  }

  release(port: number): void {
    this.reserved.delete(port);
  }

  /**
   * First port of `range` that is free twice over, else an OS-assigned one. Reserved on return.
   * Ports in `avoid` (an exited game's, whose facts stay addressable by port) come last.
   */
  async allocate(range: number[], avoid: Set<number> = new Set()): Promise<{ port: number; inRange: boolean }> {
    const order = [...range.filter((p) => !avoid.has(p)), ...range.filter((p) => avoid.has(p))];
    for (const port of order) {
      if (this.reserved.has(port) || this.pinned.has(port)) continue;
      this.reserved.add(port); // claim before awaiting: a concurrent allocate skips it
      if (await this.isFree(port)) return { port, inRange: true };
      this.reserved.delete(port);
    }
    for (let i = 0; i < 20; i++) {
      const port = await osAssignedPort();
      if (this.reserved.has(port) || this.pinned.has(port)) continue;
      this.reserved.add(port);
      return { port, inRange: false };
    }
    throw usageError(
      'No port could be found for the launch: the OS kept handing out ports this bridge already holds. Stop a game (stop_instance) and try again.',
    );
  }

  /** Keep `port` from every allocate() until unpin (a restart stops the game, then takes the port back). */
  pin(port: number): void {
    this.pinned.add(port);
  }

  unpin(port: number): void {
    this.pinned.delete(port);
  }

  /** Reserve this very port once it is free twice over, waiting up to `waitMs` for it to go quiet. */
  async claim(port: number, waitMs: number): Promise<void> {
    if (this.reserved.has(port))
      throw usageError(
        `Port ${port} is held by another launch of this bridge; call launch_instance without restart to get a fresh port.`,
        { port },
      );
    this.reserved.add(port);
    const end = Date.now() + waitMs;
    for (;;) {
      if (await this.isFree(port)) return;
      if (Date.now() >= end) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    this.reserved.delete(port);
    throw usageError(
      `Port ${port} is still in use by a process this bridge did not launch, so the game cannot be restarted there. Free the port (list_instances shows what answers on it), or call launch_instance for a fresh port.`,
      { port },
    );
  }

  async isFree(port: number): Promise<boolean> {
    if (!(await canBind(port))) return false;
    return !(await answersHttp(port, this.probeTimeoutMs));
  }
}

export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: HOST, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/**
 * Anything that accepts a connection on the port (a game answering /health, or anything else
 * holding it) counts as taken; a refusal means nobody is there. The probe tells a refused connect
 * from an accepted one even when a stalled event loop lets its timer fire late.
 */
export async function answersHttp(port: number, timeoutMs: number): Promise<boolean> {
  return (await probePort(port, timeoutMs)).kind !== 'free';
}

export function osAssignedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen({ port: 0, host: HOST }, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
