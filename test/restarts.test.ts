/**
 * "The game restarted" only when it did: the real CLI (--no-daemon, SDK client) against a
 * scripted game whose replies can be held back, so the order in which concurrent replies
 * arrive is chosen by the test.
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freePort } from './helpers/ports.js';
import { removeDir, tempHome } from './helpers/procs.js';
import { sleep } from './helpers/fault.js';

interface Script {
  /** frames count up from here, one per 10 ms */
  frameBase: number;
  /** the next /state is answered this late, with the frame of its arrival */
  holdNextState?: number;
  /** /command's commandId completes this long after it arrived (Infinity: never) */
  completeAfterMs: number;
  /** /state requests served so far */
  statePolls?: number;
}

/** A contract game that serves /health, /state, /command and no /tools, on `port`. */
function scriptedGame(port: number, script: Script): Promise<Server> {
  const t0 = Date.now();
  const frame = () => script.frameBase + Math.floor((Date.now() - t0) / 10);
  let commandId = 0;
  let completedAt = Infinity;
  const srv = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/health') return send({ ok: true, frame: frame() });
    if (url.pathname === '/command') {
      commandId++;
      completedAt = Date.now() + script.completeAfterMs;
      return send({ accepted: true, commandId, frame: frame() });
    }
    if (url.pathname === '/state') {
      script.statePolls = (script.statePolls ?? 0) + 1;
      const snapshot = () => ({
        frame: frame(),
        completedCommandId: Date.now() >= completedAt ? commandId : commandId - 1,
      });
      const hold = script.holdNextState;
      if (hold === undefined) return send(snapshot());
      script.holdNextState = undefined;
      const early = snapshot(); // taken now, sent late: a reply that was simply slower
      return void setTimeout(() => send(early), hold);
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => srv.listen(port, '127.0.0.1', () => resolve(srv)));
}

let home = '';
let srv: Server | undefined;
let h: McpHandle | undefined;

afterEach(async () => {
  await h?.close();
  await new Promise((r) => (srv ? srv.close(r) : r(undefined)));
  srv = undefined;
  removeDir(home);
});

async function setUp(script: Script): Promise<number> {
  home = tempHome('gb-restarts-');
  const port = await freePort();
  srv = await scriptedGame(port, script);
  h = await connect({ env: { GAME_BRIDGE_HOME: home }, args: ['--no-daemon', '--no-scan'] });
  return port;
}

test('a get_state reply that arrives late, with a lower frame, does not fail a command in flight', async () => {
  const script: Script = { frameBase: 50, completeAfterMs: 600 };
  const port = await setUp(script);
  await gameCall(h!, port, 'health');
  script.holdNextState = 400;
  const reading = gameCall(h!, port, 'get_state', {});
  await sleep(60); // the held read went first; the command's polls overtake it
  const command = await gameCall(h!, port, 'spin', {});
  expect(command.isError ? command.text : 'ok').toBe('ok');
  expect(command.json.confirmation).toBe('completedCommandId');
  expect((await reading).isError).toBe(false);
});

test('a frame lower than one this call already saw fails the call with the restart error', async () => {
  const script: Script = { frameBase: 5000, completeAfterMs: Infinity };
  const port = await setUp(script);
  const command = gameCall(h!, port, 'spin', {});
  while (!script.statePolls) await sleep(10); // the command is sent and being polled
  script.frameBase = -1_000_000; // the "new process" counts from its own start
  const r = await command;
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(
    /^CallInterrupted: Command 'spin' on port \d+ was interrupted: the game restarted while it was pending \(frame went from \d+ back to -?\d+\)/,
  );
});

test('another pid in the registry fails a wait_for in flight: another process answers', async () => {
  const script: Script = { frameBase: 100, completeAfterMs: 0 };
  const port = await setUp(script);
  const dir = join(home, 'instances');
  const entry = (pid: number) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${pid}.json`), JSON.stringify({ name: 'Scripted', port, pid, host: '127.0.0.1' }));
  };
  entry(process.pid);
  await call(h!, 'list_instances', { scan: false });
  const waiting = gameCall(h!, port, 'wait_for', { path: 'never', exists: true, timeoutMs: 20000 });
  while (!script.statePolls) await sleep(10);
  rmSync(join(dir, `${process.pid}.json`));
  entry(process.ppid);
  await call(h!, 'list_instances', { scan: false });
  const r = await waiting;
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(
    /^CallInterrupted: wait_for never on port \d+ was interrupted: the game restarted while it was pending \(another process now answers/,
  );
});
