/**
 * The tab opener (daemon/web/page-opener.ts) against DevTools endpoints that misbehave the way a
 * dying or stalled Chromium does, each a real server on a loopback port: the opener must fail
 * within its time limit with a reason, never hang the launch that waits on it.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { openTab } from '../daemon/web/page-opener.js';

const servers: Array<{ close(): void }> = [];
const sockets: Array<net.Socket | WebSocket> = [];
afterEach(() => {
  for (const s of sockets.splice(0))
    if (s instanceof net.Socket) s.destroy();
    else s.terminate();
  for (const s of servers.splice(0)) s.close();
});

/** A DevTools-like WebSocket endpoint that hands each connection to `onConnection`. */
async function devtools(onConnection: (ws: WebSocket) => void): Promise<string> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(wss);
  wss.on('connection', (ws) => {
    sockets.push(ws);
    onConnection(ws);
  });
  await new Promise((resolve) => wss.once('listening', resolve));
  return `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/devtools/browser/x`;
}

const VIEWPORT = { width: 1280, height: 720 };
const quiet = () => undefined;

test('a browser that accepts the DevTools connection but never shows a tab: rejected at the time limit', async () => {
  const endpoint = await devtools((ws) => ws.on('message', () => undefined)); // answers nothing
  const started = Date.now();
  await expect(openTab(endpoint, VIEWPORT, quiet, 400)).rejects.toThrow('the tab was not ready within 400 ms');
  expect(Date.now() - started).toBeLessThan(5000);
});

test('a browser that goes away mid-setup: rejected at once, naming the closed connection', async () => {
  // it answers the discovery request, then dies before any tab shows up
  const endpoint = await devtools((ws) =>
    ws.once('message', (raw) => {
      ws.send(JSON.stringify({ id: (JSON.parse(raw.toString()) as { id: number }).id, result: {} }));
      setTimeout(() => ws.close(), 50);
    }),
  );
  const started = Date.now();
  await expect(openTab(endpoint, VIEWPORT, quiet, 20000)).rejects.toThrow('the browser closed its DevTools connection');
  expect(Date.now() - started).toBeLessThan(5000);
});

test('a port that accepts TCP but never completes the WebSocket handshake: rejected at the time limit', async () => {
  const server = net.createServer((sock) => sockets.push(sock)); // reads nothing, writes nothing
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/devtools/browser/x`;
  await expect(openTab(endpoint, VIEWPORT, quiet, 400)).rejects.toThrow(/400 ms|timed out/);
});

test('a frame that is not JSON is ignored, and the tab still opens', async () => {
  const endpoint = await devtools((ws) =>
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as { id: number; method: string };
      ws.send('not json {');
      if (m.method === 'Target.setDiscoverTargets')
        ws.send(
          JSON.stringify({ method: 'Target.targetCreated', params: { targetInfo: { type: 'page', targetId: 't1' } } }),
        );
      ws.send(JSON.stringify({ id: m.id, result: m.method === 'Target.attachToTarget' ? { sessionId: 's1' } : {} }));
    }),
  );
  const tab = await openTab(endpoint, VIEWPORT, quiet, 5000);
  expect(tab.errors()).toEqual([]);
  tab.close();
});
