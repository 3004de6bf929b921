/**
 * Something listening where daemon.json points, for the proxy's side of the wire: a real
 * WebSocket server in the test process (so its pid holds the port, as a daemon's would) that
 * either knows the token and proves it, or is an impostor that merely listens. Every upgrade
 * and every frame it receives is recorded; `onFrame` decides what it sends back.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { daemonProof } from '../../shared/auth.js';
import { VERSION } from '../../shared/version.js';

export interface FakeDaemon {
  port: number;
  token: string;
  upgrades: IncomingHttpHeaders[];
  /** every text received, per connection (in order of connection) */
  connections: string[][];
  close(): Promise<void>;
}

export interface FakeOptions {
  /** prove the token in welcome (a real daemon would); false: an impostor */
  proves: boolean;
  /** called for every text after the first connection's welcome; may answer on `ws` */
  onFrame?(text: string, ws: WebSocket, connection: number): void;
}

export async function fakeDaemon(home: string, opts: FakeOptions): Promise<FakeDaemon> {
  const token = 'f'.repeat(64);
  const upgrades: IncomingHttpHeaders[] = [];
  const connections: string[][] = [];
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as { port: number }).port;
  wss.on('connection', (ws, req) => {
    upgrades.push(req.headers);
    const n = connections.push([]) - 1;
    const nonce = /^GameBridge ([0-9a-f]{32}) /.exec(String(req.headers.authorization ?? ''))?.[1];
    const proof = opts.proves && nonce ? { proof: daemonProof(token, nonce) } : {};
    ws.send(JSON.stringify({ t: 'welcome', version: VERSION, pid: process.pid, ...proof }));
    ws.on('message', (data) => {
      const text = data.toString();
      connections[n].push(text);
      opts.onFrame?.(text, ws, n);
    });
  });
  mkdirSync(join(home, 'daemon'), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home, 'daemon', 'daemon.json'),
    JSON.stringify({ pid: process.pid, port, token, version: VERSION, startedAt: new Date().toISOString() }),
    { mode: 0o600 },
  );
  return {
    port,
    token,
    upgrades,
    connections,
    close: () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
}

/** The rpc frame's seq and message, or undefined for another frame. */
export function rpcOf(
  text: string,
): { seq: number; msg: { id?: unknown; method?: string; params?: { name?: string } } } | undefined {
  try {
    const f = JSON.parse(text) as { t?: string; seq: number; msg: { id?: unknown; method?: string } };
    return f.t === 'rpc' ? f : undefined;
  } catch {
    return undefined;
  }
}
