/**
 * A proxy's connection to the real daemon, frame by frame: what a proxy sends right behind its
 * `hello`, while the daemon is still opening the session (a client's flags load their parser
 * first), is served, in order, once the session is open, and the connection is read again after it.
 */
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { clientCredentials } from '../shared/auth.js';
import { VERSION } from '../shared/version.js';
import { daemonFacts } from './helpers/fault.js';
import { pairSuite } from './helpers/pair.js';
import { waitFor } from './helpers/procs.js';

const suite = pairSuite('gb-psess-');

type Answer = { result?: { tools?: unknown[] } };
const rpc = (seq: number, msg: object) => JSON.stringify({ t: 'rpc', seq, msg: { jsonrpc: '2.0', ...msg } });
const INITIALIZE = {
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw, authenticated connection to this test's daemon (a real proxy starts it first); every JSON-RPC answer by id. */
async function rawConnection(): Promise<{ ws: WebSocket; welcomed: Promise<void>; answers: Map<unknown, Answer> }> {
  await suite.open();
  await suite.daemonPid();
  const { port, token } = daemonFacts(suite.home)!;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, {
    headers: { Authorization: clientCredentials(token).authorization },
    perMessageDeflate: false,
  });
  const answers = new Map<unknown, Answer>();
  const welcomed = new Promise<void>((resolve) => {
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('{"t":"welcome"')) resolve();
      else if (!text.startsWith('{"t":')) {
        const msg = JSON.parse(text) as Answer & { id?: unknown };
        if (msg.id !== undefined) answers.set(msg.id, msg);
      }
    });
  });
  return { ws, welcomed, answers };
}

const hello = (sessionId: string, argv: string[]) =>
  JSON.stringify({ t: 'hello', version: VERSION, sessionId, pid: process.pid, cwd: suite.home, argv, env: {} });

/** hello with `argv` and, in the same write, initialize, initialized and tools/list; then one more request on its own. */
async function helloThenRequests(argv: string[]): Promise<Map<unknown, Answer>> {
  const { ws, welcomed, answers } = await rawConnection();
  try {
    await welcomed;
    // one write for all four frames, so the daemon reads them in one chunk, as from a busy proxy
    const socket = (ws as unknown as { _socket: Socket })._socket;
    socket.cork();
    ws.send(hello('raw', argv));
    ws.send(rpc(1, INITIALIZE));
    ws.send(rpc(2, { method: 'notifications/initialized' }));
    ws.send(rpc(3, { id: 2, method: 'tools/list', params: {} }));
    process.nextTick(() => socket.uncork());
    await waitFor('initialize and tools/list answered', () => answers.has(1) && answers.has(2));
    // the connection is read again once the session is open
    ws.send(rpc(4, { id: 3, method: 'tools/list', params: {} }));
    await waitFor('a later request answered', () => answers.has(3));
    return answers;
  } finally {
    ws.close();
  }
}

test('requests sent right behind a hello with flags are all answered', async () => {
  const answers = await helloThenRequests(['--timeout', '3000', '--no-scan']);
  expect(answers.get(2)?.result?.tools).toHaveLength(7);
  expect(answers.get(3)?.result?.tools).toHaveLength(7);
});

test('requests sent right behind a hello without flags are all answered', async () => {
  const answers = await helloThenRequests([]);
  expect(answers.get(2)?.result?.tools).toHaveLength(7);
  expect(answers.get(3)?.result?.tools).toHaveLength(7);
});
