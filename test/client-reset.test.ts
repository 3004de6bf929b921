/**
 * A request whose connection is reset: the port is looked at again to tell a game gone (or
 * coming back) from another service. A port that resets for a moment (a game killed -9 and
 * relaunched) is not "not a game"; one that resets every connection for good is.
 */
import net from 'node:net';
import { GameClient } from '../daemon/game/client.js';
import { holdRange } from './helpers/ports.js';

const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A listener that resets every connection it accepts (RST, no answer). */
async function resetter(): Promise<{ port: number; server: net.Server }> {
  const held = await holdRange(1);
  const [port] = held.ports;
  await held.release();
  const server = net.createServer((sock) => sock.resetAndDestroy());
  servers.push(server);
  await new Promise<void>((r) => server.listen({ port, host: '127.0.0.1' }, () => r()));
  return { port, server };
}

test('a port that resets for a moment and then closes: GameOffline, not NotAGameSurface', async () => {
  const { port, server } = await resetter();
  setTimeout(() => server.close(), 400);
  const client = new GameClient(port, { timeoutMs: 3000 });
  const e = await client.state().catch((x: unknown) => x);
  client.close();
  expect(e).toMatchObject({ kind: 'GameOffline' });
});

test('a port that resets every connection for good: NotAGameSurface', async () => {
  const { port } = await resetter();
  const client = new GameClient(port, { timeoutMs: 3000 });
  const e = await client.state().catch((x: unknown) => x);
  client.close();
  expect(e).toMatchObject({ kind: 'NotAGameSurface' });
});
