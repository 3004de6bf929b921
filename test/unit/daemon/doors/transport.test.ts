/**
 * The daemon's transport over a real WebSocket: a request runs only once its ack has left the
 * daemon. When the connection dies between the request and its ack, the proxy never learns the
 * request's replay verdict and re-sends it to the next daemon, so running it here too would apply
 * an unsafe call twice.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { WsTransport } from '../../../../daemon/doors/transport.js';

const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'call_tool' } };

const open: Array<{ server: WebSocketServer; proxySide: WebSocket }> = [];

afterEach(() => {
  for (const { server, proxySide } of open.splice(0)) {
    proxySide.terminate();
    for (const c of server.clients) c.terminate();
    server.close();
  }
});

async function connected(): Promise<{ server: WebSocketServer; daemonSide: WebSocket; proxySide: WebSocket }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const proxySide = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const [daemonSide] = (await once(server, 'connection')) as [WebSocket];
  await once(proxySide, 'open');
  open.push({ server, proxySide });
  return { server, daemonSide, proxySide };
}

async function transportOn(ws: WebSocket): Promise<{ t: WsTransport; ran: JSONRPCMessage[] }> {
  const t = new WsTransport(ws, () => 'unsafe');
  const ran: JSONRPCMessage[] = [];
  t.onmessage = (m) => ran.push(m);
  t.onerror = () => undefined;
  await t.start();
  return { t, ran };
}

const settle = () => new Promise((r) => setTimeout(r, 200));

test('a request whose ack was written runs, after the ack', async () => {
  const { daemonSide, proxySide } = await connected();
  const { t, ran } = await transportOn(daemonSide);
  const acks: unknown[] = [];
  proxySide.on('message', (d) => acks.push(JSON.parse(String(d))));
  t.receive({ t: 'rpc', seq: 1, msg: request } as never);
  await settle();
  expect(acks).toEqual([{ t: 'ack', seq: 1, replay: 'unsafe' }]);
  expect(ran).toEqual([request]);
});

test('a request whose ack could not be written never runs', async () => {
  const { daemonSide } = await connected();
  const { t, ran } = await transportOn(daemonSide);
  // The connection dies under the daemon before the ack goes out: the socket is gone, though
  // the WebSocket has not yet noticed (its readyState is still OPEN).
  (daemonSide as unknown as { _socket: { destroy(): void } })._socket.destroy();
  expect(daemonSide.readyState).toBe(WebSocket.OPEN);
  t.receive({ t: 'rpc', seq: 1, msg: request } as never);
  await settle();
  expect(ran).toEqual([]);
});
