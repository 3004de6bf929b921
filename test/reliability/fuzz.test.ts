/**
 * Bad input, fuzzed (docs/RELIABILITY.md section 3): seeded and reproducible (SEED=n). Stdin frames to the
 * real proxy, manifests of random shapes, junk in the registry, games that misbehave on the
 * wire, and hostile tool arguments. Each gets a clear error or a correct answer, the session
 * keeps serving, and the daemon's memory stays bounded (VmRSS before/after).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { normaliseManifest } from '../../daemon/bridge/index.js';
import { call, connect, type McpHandle } from '../helpers/mcp.js';
import { freePort } from '../helpers/ports.js';
import { CLI, removeDir, tempHome, waitFor, waitGone } from '../helpers/procs.js';
import { daemonFacts, liveDaemon, prng, reapAndReport, reportFigures, rssKb, SOAK, seedFor } from '../helpers/fault.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SEED = seedFor(0xf022);
const ROUNDS = SOAK ? 2000 : 300;
const TIMEOUT = SOAK ? 10 * 60_000 : 100_000;
const figures: Record<string, number> = {};

let home: string;
let env: Record<string, string>;
const handles: McpHandle[] = [];
const started = new Set<number>();
const servers: Server[] = [];

beforeAll(() => {
  home = tempHome('gb-fuzz-');
  env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '600000' };
});

afterAll(async () => {
  reportFigures('FUZZ FIGURES', JSON.stringify({ seed: SEED, ...figures }));
  for (const h of handles) await h.close();
  for (const s of servers) s.close();
  const d = daemonFacts(home);
  if (d) await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...env } }).catch(() => undefined);
  if (d) await waitGone(d.pid, 15000);
  const left = await reapAndReport(home, started);
  removeDir(home);
  expect(left).toEqual([]);
});

const SPECIAL = [
  '',
  ' ',
  '\u0000',
  '\n',
  '\r\n',
  '"',
  "'",
  '\\',
  '`',
  '$(id)',
  '; rm -rf /',
  '../../etc/passwd',
  '%00',
  '%2e%2e%2f',
  '{port}',
  '\u202e',
  '😀',
  '\ud800',
  'a'.repeat(5000),
  '<script>',
  '${HOME}',
  '*',
  '?',
  '|',
  '&&',
  '\t',
];

function randomJson(r: ReturnType<typeof prng>, depth = 0): unknown {
  const k = r.int(0, depth > 3 ? 4 : 7);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r.pick([0, -1, 1.5, 1e308, -0, 65536, 2 ** 53 + 1]);
    case 2:
      return r.pick(SPECIAL);
    case 3:
      return r.chance(0.5);
    case 4:
      return r.pick(['string', 'number', 'integer', 'boolean', 'object', 'array', 'any', 'enum', 'x']);
    case 5:
      return Array.from({ length: r.int(0, 4) }, () => randomJson(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const keys = [
        'name',
        'description',
        'toolsets',
        'tools',
        'args',
        'type',
        'required',
        'readOnly',
        'game',
        'version',
        'enum',
        'default',
        '__proto__',
        'constructor',
        'hidden',
        'title',
      ];
      for (let i = r.int(0, 5); i > 0; i--) o[r.pick(keys)] = randomJson(r, depth + 1);
      return o;
    }
  }
}

test('manifests of random shapes: normaliseManifest never throws and always yields toolsets', () => {
  const r = prng(SEED);
  let n = 0;
  for (let i = 0; i < ROUNDS * 10; i++) {
    const raw = r.chance(0.7) ? { toolsets: randomJson(r), game: randomJson(r) } : randomJson(r);
    const m = normaliseManifest(raw, r.chance(0.5) ? 'game' : 'file');
    expect(Array.isArray(m.toolsets)).toBe(true);
    n++;
  }
  figures.manifests = n;
});

/** A raw proxy on stdin/stdout, collecting every line it writes. */
function rawProxy(): { proc: ChildProcessWithoutNullStreams; lines: unknown[]; send(text: string): void } {
  const proc = spawn(process.execPath, [CLI, '--no-scan'], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.add(proc.pid!);
  const lines: unknown[] = [];
  let buf = '';
  proc.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      lines.push(JSON.parse(line)); // stdout carries only JSON: a non-JSON line fails the test here
    }
  });
  proc.stderr.resume();
  return { proc, lines, send: (text) => void proc.stdin.write(text + '\n') };
}

const answered = (lines: unknown[], id: unknown) =>
  lines.filter((l) => (l as { id?: unknown }).id === id && !('method' in (l as object))).length;

test(
  'stdin frames: junk, wrong types, missing and duplicate ids, unknown methods, batches, 10 MB: every request answered once, the session keeps serving',
  async () => {
    const r = prng(SEED + 1);
    const p = rawProxy();
    p.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
      }),
    );
    await waitFor('initialize', () => answered(p.lines, 'init') === 1, 30000);
    p.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const daemon = await liveDaemon(home);
    started.add(daemon.pid);
    const rssBefore = rssKb(daemon.pid);

    const expectOne: string[] = [];
    const kinds = new Map<string, number>();
    let cases = 0;
    const junk = [
      '',
      'not json',
      '{',
      '}',
      '[',
      '{"jsonrpc":"2.0"',
      'null',
      'true',
      '42',
      '"str"',
      '[]',
      '[1,2]',
      '{"id":{}}',
      '\u0000\u0001',
      '{"jsonrpc":"2.0","id":1,"method":',
    ];
    for (let i = 0; i < ROUNDS; i++) {
      const id = `f${i}`;
      const kind = r.int(0, 9);
      kinds.set(id, kind);
      cases++;
      if (kind === 0) p.send(r.pick(junk) + (r.chance(0.3) ? r.pick(SPECIAL).replace(/\n/g, '') : ''));
      else if (kind === 1)
        p.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: r.pick(['no/such', 'tools/nope', '', 'rpc.discover', '__proto__']),
          }),
        );
      else if (kind === 2)
        p.send(JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'list_instances' } })); // no id: a notification, no answer
      else if (kind === 3) p.send(JSON.stringify({ jsonrpc: r.pick(['1.0', 2, null]), id, method: 'ping' }));
      else if (kind === 4) p.send(JSON.stringify({ jsonrpc: '2.0', id: r.pick([{}, [], true, 1.5]), method: 'ping' }));
      else if (kind === 5)
        p.send(
          JSON.stringify([
            { jsonrpc: '2.0', id, method: 'ping' },
            { jsonrpc: '2.0', method: 'x' },
          ]),
        );
      else if (kind === 6)
        p.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: r.pick([null, 5, 'x', [], { name: 5 }, { name: 'call_tool', arguments: 'x' }]),
          }),
        );
      else if (kind === 7) {
        // a duplicate id while the first is still in flight: each copy is answered (or refused), never lost
        const dup = {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'list_instances', arguments: { scan: false } },
        };
        p.send(JSON.stringify(dup));
        p.send(JSON.stringify(dup));
        expectOne.push(id);
      } else {
        p.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: {
              name: r.pick([
                'call_tool',
                'describe_toolset',
                'list_toolsets',
                'instance_log',
                'stop_instance',
                'launch_instance',
              ]),
              arguments: randomJson(r),
            },
          }),
        );
        expectOne.push(id);
      }
      if (kind === 1 || kind === 3 || kind === 6) expectOne.push(id);
    }
    // a 10 MB message
    p.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'big',
        method: 'tools/call',
        params: {
          name: 'call_tool',
          arguments: { port: 1, name: 'x', arguments: { blob: 'x'.repeat(10 * 1024 * 1024) } },
        },
      }),
    );
    expectOne.push('big');
    cases++;
    p.send(JSON.stringify({ jsonrpc: '2.0', id: 'sentinel', method: 'tools/list' }));
    await waitFor('the sentinel answer', () => answered(p.lines, 'sentinel') === 1, 60000);
    await waitFor('every request answered', () => expectOne.every((id) => answered(p.lines, id) >= 1), 60000).catch(
      () => undefined,
    );
    const missing = expectOne.filter((id) => answered(p.lines, id) === 0).map((id) => `${id} kind ${kinds.get(id)}`);
    // kind 7 sends the same id twice on purpose (two answers); every other request gets exactly one
    const twice = expectOne.filter((id) => kinds.get(id) !== 7 && answered(p.lines, id) > 1);
    expect(missing).toEqual([]);
    expect(twice).toEqual([]);
    for (const l of p.lines) expect((l as { jsonrpc?: string }).jsonrpc).toBe('2.0');
    const errs = p.lines.filter((l) => (l as { error?: unknown }).error) as Array<{
      error: { code: number; message: string };
    }>;
    for (const e of errs) expect(e.error.message.length).toBeGreaterThan(0);
    const rssAfter = rssKb(daemon.pid);
    figures.stdinFrames = cases;
    figures.daemonRssKbBefore = rssBefore;
    figures.daemonRssKbAfterStdin = rssAfter;
    expect(rssAfter).toBeLessThan(rssBefore + 300 * 1024);
    p.proc.stdin.end();
  },
  TIMEOUT,
);

test('registry junk: garbage, huge, symlinks, odd names: list_instances still answers', async () => {
  const reg = join(home, 'junk-registry');
  mkdirSync(reg, { recursive: true });
  const r = prng(SEED + 2);
  let n = 0;
  for (let i = 0; i < 40; i++, n++) {
    const bytes = Buffer.from(Array.from({ length: r.int(0, 2000) }, () => r.int(0, 255)));
    writeFileSync(join(reg, `${r.int(1, 99999)}.json`), r.chance(0.5) ? bytes : JSON.stringify(randomJson(r)));
  }
  writeFileSync(join(reg, '4242.json'), JSON.stringify({ pid: 4242, port: 99999, x: 'y'.repeat(5 * 1024 * 1024) }));
  symlinkSync('/etc/passwd', join(reg, '1.json'));
  symlinkSync(join(reg, 'loop.json'), join(reg, 'loop.json'));
  mkdirSync(join(reg, 'dir.json'));
  for (const odd of [
    'with space.json',
    'ünïcode.json',
    '-rf.json',
    '..json',
    '.hidden.json',
    'x'.repeat(200) + '.json',
  ])
    writeFileSync(join(reg, odd), '{"port": 0}');
  n += 10;
  const h = await connect({ env: { ...env, GAME_BRIDGE_INSTANCES: reg }, args: ['--no-scan'] });
  handles.push(h);
  if (h.pid) started.add(h.pid);
  const res = await call(h, 'list_instances', { scan: false }, 60000);
  expect(res.isError ? res.text : 'ok').toBe('ok');
  figures.registryFiles = n;
});

/** Tiny in-test HTTP "games" that misbehave in one way each. */
async function badGame(kind: string): Promise<number> {
  const port = await freePort();
  const s = createServer((req, res) => {
    if (kind === 'garbage')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{{{ not json ]]]');
    if (kind === 'close') return void req.socket.destroy();
    if (kind === 'hang') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ok": tr'); // and never another byte
      return;
    }
    if (kind === 'slowloris') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(t));
      return;
    }
    if (kind === 'huge') {
      if (req.url?.startsWith('/health'))
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"name":"huge"}');
      if (req.url?.startsWith('/tools')) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.from('"' + 'z'.repeat(1024 * 1024 - 2) + '",');
      res.write('{"frame":1,"blob":[');
      let sent = 0;
      const pump = () => {
        while (sent < 50) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('"end"]}');
      };
      pump();
      res.on('error', () => undefined);
      return;
    }
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', () => resolve()));
  return port;
}

test(
  'games that answer garbage, close, hang mid-response, drip (slowloris) or send a 50 MB /state: a clear error each, the session keeps serving, memory bounded',
  async () => {
    const h = await connect({ env, args: ['--no-scan', '--timeout', '1500'] });
    handles.push(h);
    if (h.pid) started.add(h.pid);
    await h.client.listTools();
    const daemon = await liveDaemon(home);
    const before = rssKb(daemon.pid);
    let n = 0;
    const rows: string[] = [];
    for (const kind of ['garbage', 'close', 'hang', 'slowloris', 'huge']) {
      const port = await badGame(kind);
      for (const [tool, args] of [
        ['list_toolsets', { port }],
        ['call_tool', { port, name: 'get_state', arguments: {} }],
        ['call_tool', { port, name: 'health', arguments: {} }],
        ['call_tool', { port, name: 'nudge', arguments: { x: 1 } }],
      ] as const) {
        n++;
        if (process.env.FUZZ_TRACE) process.stderr.write(`TRACE ${kind} ${tool}\n`);
        const r = await call(h, tool, args as Record<string, unknown>, 60000);
        rows.push(
          `${kind} ${tool} ${(args as unknown as { name?: string }).name ?? ''}: ${r.isError ? r.text.split(':')[0] : 'ok'}`,
        );
        if (r.isError) expect(r.text).toMatch(/^[A-Z][A-Za-z]+: /); // Class: what happened. what to do.
        expect((await h.client.ping()) !== undefined).toBe(true);
      }
    }
    figures.badGameCalls = n;
    const after = rssKb(daemon.pid);
    figures.daemonRssKbBeforeBadGames = before;
    figures.daemonRssKbAfterBadGames = after;
    reportFigures('BAD GAMES', `\n${rows.join('\n')}`);
    expect(after).toBeLessThan(before + 300 * 1024);
    expect(
      rows
        .filter(
          (row) =>
            row.startsWith('hang') ||
            row.startsWith('slowloris') ||
            row.startsWith('close') ||
            row.startsWith('garbage'),
        )
        .every((row) => !row.endsWith(': ok') || row.includes('list_toolsets')),
    ).toBe(true);
  },
  TIMEOUT,
);

test(
  'hostile tool arguments: special characters, ports outside 1–65535, paths with ..: a clear error each',
  async () => {
    const project = join(home, 'proj');
    mkdirSync(project, { recursive: true });
    const h = await connect({ env, args: ['--no-scan'], cwd: project });
    handles.push(h);
    if (h.pid) started.add(h.pid);
    const r = prng(SEED + 3);
    const ports: unknown[] = [0, -1, 65536, 70000, 1.5, '80', 'abc', null, 1e20, NaN, true, [], {}];
    let n = 0;
    for (const port of ports) {
      for (const tool of ['list_toolsets', 'call_tool', 'stop_instance', 'instance_log', 'describe_toolset']) {
        n++;
        const res = await call(h, tool, { port, name: 'get_state', toolset: 'bridge', arguments: {} });
        expect(`${tool} ${JSON.stringify(port)}: ${res.isError}`).toBe(`${tool} ${JSON.stringify(port)}: true`);
        expect(res.text).toMatch(/^[A-Z][A-Za-z]+: /);
      }
    }
    for (let i = 0; i < (SOAK ? 400 : 60); i++) {
      n++;
      if (process.env.FUZZ_TRACE) process.stderr.write(`TRACE hostile ${i}\n`);
      const res = await call(
        h,
        r.pick(['call_tool', 'describe_toolset', 'launch_instance', 'list_instances', 'instance_log']),
        {
          port: r.pick([1, 65535, 7820]),
          name: r.pick(SPECIAL),
          toolset: r.pick(SPECIAL),
          config: r.pick(['../../../../etc/passwd', '..', '../..', r.pick(SPECIAL), '/dev/zero', '/proc/self/environ']),
          arguments: { x: r.pick(SPECIAL) },
          lines: r.pick([-1, 0, 1e9, 'x']),
        },
      );
      if (res.isError) expect(res.text).toMatch(/^[A-Z][A-Za-z]+: /);
    }
    // launch_instance runs only what a gamebridge.json says: a path to anything else is refused
    for (const config of ['/etc/passwd', '../../../../etc/passwd', '/dev/zero', join(home, 'daemon', 'daemon.json')]) {
      n++;
      if (process.env.FUZZ_TRACE) process.stderr.write(`TRACE launch ${config}\n`);
      const res = await call(h, 'launch_instance', { config });
      expect(res.isError).toBe(true);
    }
    expect((await call(h, 'list_instances', { scan: false })).isError).toBe(false);
    figures.hostileArgs = n;
  },
  TIMEOUT,
);
