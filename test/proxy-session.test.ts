/**
 * A proxy's connection to the real daemon, frame by frame: what a proxy sends right behind its
 * `hello`, while the daemon is still opening the session (a client's flags load their parser
 * first), is served, in order, once the session is open.
 */
import WebSocket from 'ws';
import { clientCredentials } from '../shared/auth.js';
import { VERSION } from '../shared/version.js';
import { daemonFacts } from './helpers/fault.js';
import { pairSuite } from './helpers/pair.js';
import { waitFor } from './helpers/procs.js';

const suite = pairSuite('gb-psess-');

const rpc = (seq: number, msg: object) => JSON.stringify({ t: 'rpc', seq, msg: { jsonrpc: '2.0', ...msg } });

/** Raw connection: hello with `argv`, then at once (same tick) initialize, initialized and tools/list; the JSON-RPC answers. */
async function helloThenRequests(argv: string[]): Promise<Map<unknown, { result?: { tools?: unknown[] } }>> {
  await suite.open(); // a real proxy starts the daemon
  await suite.daemonPid();
  const { port, token } = daemonFacts(suite.home)!;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, {
    headers: { Authorization: clientCredentials(token).authorization },
    perMessageDeflate: false,
  });
  const answers = new Map<unknown, { result?: { tools?: unknown[] } }>();
  try {
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('{"t":"welcome"')) {
        const hello = {
          t: 'hello',
          version: VERSION,
          sessionId: 'raw',
          pid: process.pid,
          cwd: suite.home,
          argv,
          env: {},
        };
        // one write for all four frames, so the daemon reads them in one chunk, as from a busy proxy
        const socket = (ws as unknown as { _socket: import('node:net').Socket })._socket;
        socket.cork();
        ws.send(JSON.stringify(hello));
        ws.send(
          rpc(1, {
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
          }),
        );
        ws.send(rpc(2, { method: 'notifications/initialized' }));
        ws.send(rpc(3, { id: 2, method: 'tools/list', params: {} }));
        process.nextTick(() => socket.uncork());
      } else if (!text.startsWith('{"t":')) {
        const msg = JSON.parse(text) as { id?: unknown; result?: { tools?: unknown[] } };
        if (msg.id !== undefined) answers.set(msg.id, msg);
      }
    });
    await waitFor('initialize and tools/list answered', () => answers.has(1) && answers.has(2));
    return answers;
  } finally {
    ws.close();
  }
}

test('requests sent right behind a hello with flags are all answered', async () => {
  const answers = await helloThenRequests(['--timeout', '3000', '--no-scan']);
  expect(answers.get(2)?.result?.tools).toHaveLength(7);
});

test('requests sent right behind a hello without flags are all answered', async () => {
  const answers = await helloThenRequests([]);
  expect(answers.get(2)?.result?.tools).toHaveLength(7);
});
