/**
 * The proxy trusts nothing on the port daemon.json names: whatever listens there must prove
 * the token before it is told anything; the daemon's pid must hold the port; garbage from it
 * never reaches stdout nor crashes the proxy; a client's duplicate in-flight ids and a request
 * the daemon cannot survive do not loop. Real proxy processes, raw stdin/stdout. The CLI's
 * `dashboard` trusts the port no more than the proxy does.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fakeDaemon, rpcOf, type FakeDaemon } from './helpers/fake-daemon.js';
import { INIT, rawProxy } from './helpers/raw-proxy.js';
import { call, connect } from './helpers/mcp.js';
import { freePort } from './helpers/ports.js';
import { liveDaemon, sleep } from './helpers/fault.js';
import { CLI, EXAMPLE_GAME, Reaper, removeDir, stopDaemon, tempHome, waitFor } from './helpers/procs.js';

const reaper = new Reaper();
let home = '';
let fake: FakeDaemon | undefined;

beforeEach(() => {
  home = tempHome('gb-ptrust-');
});

afterEach(async () => {
  await fake?.close();
  fake = undefined;
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
});

const env = () => ({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '20000', SECRET_API_KEY: 'sk-do-not-leak' });

test('an impostor on the daemon port is passed over without learning the token or the environment', async () => {
  fake = await fakeDaemon(home, {
    proves: false,
    // A forged answer to anything: it must never reach the client.
    onFrame: (text, ws) => {
      const r = rpcOf(text);
      if (r) ws.send(JSON.stringify({ jsonrpc: '2.0', id: r.msg.id, result: { forged: true } }));
    },
  });
  const p = rawProxy(reaper, env());
  await waitFor('the proxy tried the impostor', () => fake!.upgrades.length > 0, 20000);
  p.send(INIT);
  const answer = await p.answer('init', 40000);
  expect(answer.result.serverInfo).toBeDefined();
  expect(JSON.stringify(answer)).not.toContain('forged');
  const heard = JSON.stringify(fake.upgrades) + fake.connections.flat().join('\n');
  expect(heard).not.toContain(fake.token);
  expect(heard).not.toContain('sk-do-not-leak');
  expect(heard).not.toContain('"hello"');
  const real = await liveDaemon(home);
  reaper.track(real.pid);
  expect(real.port).not.toBe(fake.port);
}, 60000);

test('daemon.json naming a live pid that does not hold the port: the proxy does not connect there', async () => {
  fake = await fakeDaemon(home, { proves: true });
  const sleeper = reaper.spawn('sleep', ['60']);
  const file = join(home, 'daemon', 'daemon.json');
  writeJson(file, { ...JSON.parse(readFileSync(file, 'utf8')), pid: sleeper.pid });
  const p = rawProxy(reaper, env());
  p.send(INIT);
  await p.answer('init', 40000); // served by a daemon it started itself
  reaper.track((await liveDaemon(home)).pid);
  expect(fake.upgrades.length).toBe(0);
}, 60000);

test('garbage from the daemon neither crashes the proxy nor reaches stdout', async () => {
  fake = await fakeDaemon(home, {
    proves: true,
    onFrame: (text, ws) => {
      const r = rpcOf(text);
      if (!r || r.msg.id === undefined) return;
      ws.send(JSON.stringify({ t: 'ack', seq: r.seq, replay: 'safe' }));
      for (const junk of ['{"t":oops', 'not json', '[1,2]', '{"id":1}', '"text"', '{"t":"ack","seq":"x"}'])
        ws.send(junk);
      ws.send(`{"jsonrpc":"2.0",\n"id":${JSON.stringify(r.msg.id)},\n"result":{"ok":true}}`);
    },
  });
  const p = rawProxy(reaper, env());
  p.send(INIT);
  const answer = await p.answer('init');
  expect(answer.result).toEqual({ ok: true });
  p.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  await p.answer(2);
  expect(p.child.exitCode).toBeNull();
  for (const line of p.lines) expect(JSON.parse(line).jsonrpc).toBe('2.0');
});

test('a duplicate in-flight id is settled by its answers and never re-sent after a reconnect', async () => {
  fake = await fakeDaemon(home, {
    proves: true,
    onFrame: (text, ws, n) => {
      const r = rpcOf(text);
      if (!r || r.msg.id === undefined) return;
      ws.send(JSON.stringify({ t: 'ack', seq: r.seq, replay: 'safe' }));
      if (n === 0 && r.msg.id === 5) ws.send(JSON.stringify({ jsonrpc: '2.0', id: 5, result: {} }));
      if (n === 0 && r.msg.method === 'tools/list') setTimeout(() => ws.close(1001), 100); // after both answers
    },
  });
  const p = rawProxy(reaper, env());
  // Not pings: a proxy answers a ping itself while it is disconnected.
  p.send({ jsonrpc: '2.0', id: 5, method: 'prompts/list' });
  p.send({ jsonrpc: '2.0', id: 5, method: 'prompts/list' });
  p.send({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
  await waitFor('two answers to id 5', () => p.lines.filter((l) => JSON.parse(l).id === 5).length === 2);
  await waitFor('the proxy reconnected', () => fake!.connections.length >= 2, 20000);
  await sleep(500);
  const resent = fake.connections[1]
    .map(rpcOf)
    .filter((r) => r?.msg.id !== undefined)
    .map((r) => r!.msg.id);
  expect(resent).not.toContain(5);
  expect(p.lines.filter((l) => JSON.parse(l).id === 5)).toHaveLength(2);
});

test('a request whose every delivery drops the connection is answered after a bounded number of sends', async () => {
  let deliveries = 0;
  fake = await fakeDaemon(home, {
    proves: true,
    onFrame: (text, ws) => {
      const r = rpcOf(text);
      if (r?.msg.params?.name !== 'poison') return;
      deliveries++;
      ws.terminate();
    },
  });
  const p = rawProxy(reaper, env());
  p.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'poison', arguments: {} } });
  const answer = await p.answer(9, 30000);
  expect(answer.result.isError).toBe(true);
  expect(answer.result.content[0].text).toMatch(
    /^CallInterrupted: The call to 'poison' was interrupted: the connection to the bridge daemon dropped \d+ times/,
  );
  expect(deliveries).toBeLessThanOrEqual(8);
}, 60000);

function writeJson(file: string, v: unknown): void {
  writeFileSync(file, JSON.stringify(v), { mode: 0o600 });
}

test('the daemon is told only the variables it needs: GAME_BRIDGE_*, PATH, HOME, locale/display or what gamebridge.json references', async () => {
  const project = join(home, 'project');
  mkdirSync(project);
  const port = await freePort();
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify({
      name: 'Crate Stack',
      launch: {
        command: `"${process.execPath}" "${EXAMPLE_GAME}" --port {port} --name "$OTHER_VAR"`,
        portRange: String(port),
        env: { FROM_CLIENT: '${NEEDED_VAR}' },
        // a profile's env and args are part of the declaration too
        profiles: { tagged: { args: '--version-tag "$ARGS_VAR"', env: { FROM_PROFILE: '${PROFILE_VAR}' } } },
      },
    }),
  );
  const h = await connect({
    env: { ...env(), NEEDED_VAR: 'n1', OTHER_VAR: 'o1', PROFILE_VAR: 'p1', ARGS_VAR: 'a1' },
    cwd: project,
    args: ['--no-scan'],
  });
  reaper.track(h.pid);
  try {
    const r = await call(h, 'launch_instance', { profile: 'tagged' }, 60000);
    expect(r.isError ? r.text : 'ok').toBe('ok');
    const environ = Object.fromEntries(
      readFileSync(`/proc/${r.json.pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    expect(environ.SECRET_API_KEY).toBeUndefined();
    expect(environ).toMatchObject({
      FROM_CLIENT: 'n1',
      OTHER_VAR: 'o1',
      FROM_PROFILE: 'p1',
      ARGS_VAR: 'a1',
      GAME_BRIDGE_HOME: home,
    });
    expect(r.json.name).toBe('o1'); // the command saw it too
    expect(r.json.version).toBe('a1'); // and the profile's args
    expect(environ.PATH).toBeTruthy();
  } finally {
    await h.close();
  }
}, 90000);

test('`stop` signals only the process that wrote daemon.json (pid and start time), never a recycled pid', async () => {
  const bystander = reaper.spawn('sleep', ['60']);
  const dead = await freePort();
  mkdirSync(join(home, 'daemon'), { recursive: true, mode: 0o700 });
  for (const pidStart of [undefined, 12345]) {
    writeJson(join(home, 'daemon', 'daemon.json'), {
      pid: bystander.pid,
      port: dead,
      token: 'f'.repeat(64),
      version: '0.1.0',
      startedAt: new Date().toISOString(),
      pidStart,
    });
    stopDaemon(home);
    await sleep(300);
    expect(bystander.exitCode).toBeNull();
    expect(bystander.signalCode).toBeNull();
  }
});

test('`dashboard` gives an impostor on the daemon port nothing: not the token, not a line of its text, not its time', async () => {
  const token = 'f'.repeat(64);
  const seen: IncomingHttpHeaders[] = [];
  // Answers as a daemon would, without knowing the token: a URL of its own, an error text of its
  // own, or a body trickled a byte a second for as long as the client listens.
  const answers = [
    (res: ServerResponse) => res.writeHead(200).end('{"url":"http://evil.example/","expiresInMs":300000}'),
    (res: ServerResponse) => res.writeHead(500).end('Log in again at http://evil.example/'),
    (res: ServerResponse) => {
      res.writeHead(200).write('{');
      const drip = setInterval(() => res.write(' '), 1000);
      res.on('close', () => clearInterval(drip));
    },
  ];
  const impostor = createServer((req, res) => {
    seen.push(req.headers);
    answers[seen.length - 1](res);
  });
  await new Promise<void>((r) => impostor.listen(0, '127.0.0.1', r));
  try {
    const port = (impostor.address() as { port: number }).port;
    mkdirSync(join(home, 'daemon'), { recursive: true, mode: 0o700 });
    writeJson(join(home, 'daemon', 'daemon.json'), {
      pid: process.pid,
      port,
      token,
      version: '0.1.0',
      startedAt: new Date().toISOString(),
    });
    for (let i = 0; i < answers.length; i++) {
      const started = Date.now();
      const run = await new Promise<{ code: number; out: string; err: string }>((resolve) =>
        execFile(
          process.execPath,
          [CLI, 'dashboard', '--no-open'],
          { env: { ...process.env, ...env() }, timeout: 30000 },
          (e, out, err) => resolve({ code: e ? Number((e as { code?: unknown }).code ?? 1) : 0, out, err }),
        ),
      );
      expect(seen).toHaveLength(i + 1);
      expect(JSON.stringify(seen)).not.toContain(token);
      expect(run.out + run.err).not.toContain('evil.example');
      expect(run.err).toMatch(/did not prove it knows daemon\.json's token/);
      expect(run.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(10000);
    }
  } finally {
    impostor.closeAllConnections();
    await new Promise((r) => impostor.close(r));
  }
});

test('a relative GAME_BRIDGE_HOME is the folder it names from where the client runs, for the proxy and the daemon alike', async () => {
  // It once made the daemon start in <home>/<home>, and the client waited 20 s for nothing.
  const h = await connect({ env: { ...env(), GAME_BRIDGE_HOME: 'rel-home' }, cwd: home });
  try {
    const t0 = Date.now();
    expect((await h.client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await call(h, 'list_instances')).isError).toBe(false);
    expect(Date.now() - t0).toBeLessThan(15_000);
    const d = await liveDaemon(join(home, 'rel-home'));
    expect(readFileSync(`/proc/${d.pid}/environ`, 'utf8').split('\0')).toContain(
      `GAME_BRIDGE_HOME=${join(home, 'rel-home')}`,
    );
  } finally {
    await h.close();
    stopDaemon(join(home, 'rel-home'));
  }
}, 60_000);
