/**
 * The kit conformance suite: every kit's example game (the list in examples.ts) on its real
 * runtime, over real HTTP, through the same checks: the contract endpoints and frame growth,
 * refusals and garbage, command confirmation and command results, held inputs with
 * game-enforced leases, the clock with exact steps, session epochs, the UI and world trees
 * with ui.* and their re-check, the screenshot, the registry entry and `close`, a busy port,
 * and the keep-alive round trip (reported, not asserted). A check an entry does not declare
 * (no "ui", no command results) is skipped by name; a missing runtime skips the kit here and
 * fails under CI=true. docs/KITS.md's conformance table is checked against the list.
 */
import http from 'node:http';
import net from 'node:net';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodePng } from '../helpers/png.js';
import { freePort } from '../helpers/ports.js';
import { ROOT, Reaper, exitCode, removeDir, tempHome, waitFor, waitGone } from '../helpers/procs.js';
import { KIT_EXAMPLES, type Cmd, type KitExample, type Running } from './examples.js';
import { CAPABILITIES, CAPABILITY_NAMES, listedInHealth, reservedCommands } from '../../shared/capabilities.js';
import { applied, command, getJson, killWithHome, untilState } from './kit-game.js';

const CI = process.env.CI === 'true';

async function appliedAll(port: number, cmds: Cmd[]): Promise<any> {
  let s: any = null;
  for (const c of cmds) s = await applied(port, ...c);
  return s;
}

/** The result /state gives for command `id`. */
async function resultOf(port: number, id: number): Promise<any> {
  const s = await untilState(port, `command #${id} completed`, (st) => st.completedCommandId >= id);
  return s.commandResults?.find((r: any) => r.id === id);
}

/** Waits until /health's frame has grown by `n`. */
async function framesPass(port: number, n: number): Promise<void> {
  const f0 = (await getJson(port, '/health')).frame;
  await waitFor(`${n} frames`, async () => (await getJson(port, '/health')).frame >= f0 + n, 15000, 5);
}

function collectIds(nodes: any[], out: string[] = []): string[] {
  for (const n of nodes) {
    out.push(n.id);
    if (n.children) collectIds(n.children, out);
  }
  return out;
}

/** The keys a /ui node may carry (docs/CONTRACT.md); anything else is a kit's own. */
const UI_NODE_KEYS = new Set([
  'id',
  'role',
  'name',
  'value',
  'min',
  'max',
  'checked',
  'selected',
  'focused',
  'visible',
  'enabled',
  'rect',
  'children',
]);

/** Every node's problems: keys outside the contract, or fields at their default (which are left out). */
function nodeProblems(nodes: any[], out: string[] = []): string[] {
  for (const n of nodes) {
    for (const k of Object.keys(n)) if (!UI_NODE_KEYS.has(k)) out.push(`${n.id}: '${k}' is not a contract key`);
    if (n.visible === true) out.push(`${n.id}: visible true (the default)`);
    if (n.enabled === true) out.push(`${n.id}: enabled true (the default)`);
    if (n.children !== undefined && !(Array.isArray(n.children) && n.children.length))
      out.push(`${n.id}: children ${JSON.stringify(n.children)} (empty children are left out)`);
    if (Array.isArray(n.children)) nodeProblems(n.children, out);
  }
  return out;
}

function findNode(nodes: any[], id: string): any {
  for (const n of nodes) {
    if (n.id === id) return n;
    const below = n.children && findNode(n.children, id);
    if (below) return below;
  }
  return null;
}

/** `n` GET /state on one kept-alive connection after 20 untimed: the p50 in ms. */
async function keepAliveP50(port: number, n = 50): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/state', agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  try {
    for (let i = 0; i < 20; i++) await once();
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await once();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(n / 2)];
  } finally {
    agent.destroy();
  }
}

/** GET `path` with exactly these headers (fetch will not send a foreign Host); status and body. */
function getWith(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/** Raw bytes on a fresh connection; resolves when the peer answers or closes (or after 3 s). */
function rawExchange(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    const done = () => {
      sock.destroy();
      resolve(got);
    };
    sock.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) done();
    });
    sock.on('error', done);
    sock.on('close', done);
    sock.setTimeout(3000, done);
    sock.write(bytes);
  });
}

const GARBAGE_PATHS = [
  '/command?cmd=%',
  '/command?cmd=%zz&x=%E0%A4%A',
  '/state?%%%',
  '/%2e%2e/%2e%2e/etc/passwd',
  '//health',
  `/command?cmd=${'x'.repeat(5000)}`,
  '/command?cmd=ui.activate&id=%00',
  '/ui?since=abc',
  '/nope',
];

test("docs/KITS.md's conformance table lists every kit the suite runs, as declared", () => {
  const doc = readFileSync(join(ROOT, 'docs', 'KITS.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## What the conformance suite runs'));
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| kit ') && !l.startsWith('|---'))
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  const yes = (b: boolean) => (b ? 'yes' : 'no');
  const expected = KIT_EXAMPLES.map((e) => [
    e.kit,
    e.example,
    yes(e.capabilities.includes('input')),
    yes(e.capabilities.includes('clock')),
    yes(e.capabilities.includes('ui')),
    yes(e.capabilities.includes('world')),
    CAPABILITY_NAMES.filter((c) => c !== 'input' && CAPABILITIES[c].device && e.capabilities.includes(c)).join(', ') ||
      'no',
    yes(!!e.fails),
    yes(!!e.screenshot),
    e.busyPort ?? 'n/a (a page)',
  ]);
  expect(rows).toEqual(expected);
});

describe.each(KIT_EXAMPLES.map((e) => [`${e.kit} kit (${e.example})`, e] as const))('%s', (_name, kit) => {
  const why = kit.missing();
  if (why) {
    if (CI) test(`its runtime is installed (CI=true): ${why}`, () => expect(why).toBeNull());
    else test.skip(`all checks: ${why}`, () => undefined);
    return;
  }
  describeConformance(kit);
});

function describeConformance(kit: KitExample): void {
  const reaper = new Reaper();
  const homes: string[] = [];
  let game: Running;
  let port: number;
  const newHome = () => {
    const h = tempHome('gb-conform-');
    homes.push(h);
    return h;
  };
  /** A test only some kits declare: run it, or skip it by name saying why. */
  const testIf = (declared: unknown, name: string, fn: () => Promise<void>, timeout?: number) =>
    declared ? test(name, fn, timeout) : test.skip(`${name} (not declared by ${kit.kit})`, () => undefined);

  beforeAll(async () => {
    port = await freePort();
    game = await kit.start(reaper, port, newHome());
  }, kit.readyMs + 30000);

  afterAll(async () => {
    await game?.stop();
    await reaper.reap();
    homes.forEach(killWithHome);
    homes.forEach(removeDir);
  });

  test('health, state, tools: the contract fields, the capabilities, frames growing', async () => {
    const h1 = await getJson(port, '/health');
    expect(h1).toEqual({
      ok: true,
      frame: expect.any(Number),
      capabilities: kit.capabilities,
      sessionEpoch: expect.any(Number),
    });
    await framesPass(port, 3);
    const s = await getJson(port, '/state');
    expect(s).toMatchObject({
      frame: expect.any(Number),
      simFrame: expect.any(Number),
      completedCommandId: expect.any(Number),
      ui: { screen: expect.any(String) },
      input: { held: [] },
      clock: { paused: false },
      sessionEpoch: h1.sessionEpoch,
    });
    expect(s.frame).toBeGreaterThanOrEqual(h1.frame + 3);
    if (kit.fails) expect(s.commandResults).toEqual(expect.any(Array));
    const tools = await getJson(port, '/tools');
    expect(tools.game).toMatchObject({
      version: kit.version,
      protocol: 1,
      capabilities: kit.capabilities,
      inputs: kit.inputs,
    });
    expect(tools.toolsets.flatMap((t: any) => t.tools.map((x: any) => x.name)).sort()).toEqual(kit.tools);
  });

  test("its capabilities are the table's, each with its /tools field and its reserved commands", async () => {
    expect(kit.capabilities.filter((c) => !(c in CAPABILITIES) || !listedInHealth(c))).toEqual([]);
    const { game: declared } = await getJson(port, '/tools');
    for (const c of CAPABILITY_NAMES) {
      const field = CAPABILITIES[c].manifest;
      if (!field) continue;
      const value = declared[field];
      const says = Array.isArray(value) ? value.length > 0 : value === true;
      expect({ capability: c, [field]: says }).toEqual({ capability: c, [field]: kit.capabilities.includes(c) });
    }
    const { known } = await command(port, 'fly');
    const reserved = (known as string[]).filter((k) => /^(input|clock|ui)\./.test(k)).sort();
    expect(reserved).toEqual(reservedCommands(kit.capabilities).sort());
  });

  test(kit.screenshot ? 'the screenshot is a PNG of the game' : 'no screenshot: 404', async () => {
    const shot = await fetch(`http://127.0.0.1:${port}/screenshot`);
    if (!kit.screenshot) {
      expect(shot.status).toBe(404);
      return void (await shot.text());
    }
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toBe('image/png');
    const img = decodePng(Buffer.from(await shot.arrayBuffer()));
    expect([img.width, img.height]).toEqual(kit.screenshot);
  });

  test('refusals: unknown command with the known names, bad arguments, missing cmd', async () => {
    const unknown = await command(port, 'fly');
    expect(unknown).toMatchObject({ accepted: false, error: "unknown command 'fly'" });
    expect(unknown.known).toEqual(expect.arrayContaining(['close', 'input.hold', 'input.releaseAll', 'clock.step']));
    if (kit.ui) expect(unknown.known).toEqual(expect.arrayContaining(['ui.activate', 'ui.setValue', 'ui.focus']));
    for (const frames of [0, 1.5, 10001]) {
      expect(await command(port, 'clock.step', { frames })).toMatchObject({
        accepted: false,
        error: expect.stringMatching(/^argument 'frames' must be a whole number from 1 to 10000/),
      });
    }
    expect(await command(port, 'input.hold', { input: 'up', owner: 'a', leaseMs: 1000 })).toMatchObject({
      accepted: false,
      error: `unknown input 'up' (this game reads: ${kit.inputs.join(', ')})`,
    });
    expect(await command(port, 'input.hold', { input: kit.mover.input, leaseMs: 1000 })).toMatchObject({
      accepted: false,
      error: "missing argument 'owner'",
    });
    expect(await command(port, 'input.releaseAll', { owner: ' ' })).toMatchObject({
      accepted: false,
      error: expect.stringMatching(/'owner' must not be empty/),
    });
    expect(await command(port, 'input.hold', { input: kit.mover.input, owner: 'a', leaseMs: 0 })).toMatchObject({
      accepted: false,
      error: expect.stringMatching(/'leaseMs' must be > 0 and <= 3600000/),
    });
    expect(await command(port, ...kit.badArg.cmd)).toMatchObject({
      accepted: false,
      error: expect.stringMatching(kit.badArg.error),
    });
    const missing = await fetch(`http://127.0.0.1:${port}/command?x=1`);
    expect(missing.status).toBe(400);
    await missing.text();
  });

  test('browsers are refused: a foreign Host, any Origin, a Sec-Fetch-Site other than none get 403 and change nothing', async () => {
    const own = { Host: `127.0.0.1:${port}` };
    const before = (await getJson(port, '/state')).completedCommandId;
    const cmd = `/command?${new URLSearchParams({ cmd: kit.newEpoch[0] })}`;
    const refused: Record<string, string>[] = [
      { Host: `evil.example:${port}` },
      { Host: `127.0.0.1:${port + 1}` },
      { ...own, Origin: 'https://evil.example' },
      { ...own, 'Sec-Fetch-Site': 'cross-site' },
      { ...own, 'Sec-Fetch-Site': 'same-site' },
      { Host: `evil.example:${port}`, Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    ];
    for (const headers of refused) {
      for (const path of [cmd, '/health', '/state']) {
        const r = await getWith(port, path, headers);
        expect([headers, path, r.status]).toEqual([headers, path, 403]);
        expect(JSON.parse(r.body).error).toMatch(/^Forbidden: /);
      }
    }
    for (const headers of [own, { Host: `localhost:${port}` }, { ...own, 'Sec-Fetch-Site': 'none' }]) {
      const r = await getWith(port, '/health', headers);
      expect([headers, r.status]).toEqual([headers, 200]);
    }
    await framesPass(port, 3);
    expect((await getJson(port, '/state')).completedCommandId).toBe(before); // nothing was queued
  });

  test('a request with two Host headers is refused with 400 whichever comes first, even both its own, queuing nothing', async () => {
    const before = (await getJson(port, '/state')).completedCommandId;
    const cmd = `/command?${new URLSearchParams({ cmd: kit.newEpoch[0] })}`;
    for (const hosts of [
      [`127.0.0.1:${port}`, `evil.example:${port}`],
      [`evil.example:${port}`, `127.0.0.1:${port}`],
      [`127.0.0.1:${port}`, `localhost:${port}`],
    ]) {
      const head = `GET ${cmd} HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}\r\n`).join('')}Connection: close\r\n\r\n`;
      const got = await rawExchange(port, Buffer.from(head, 'latin1'));
      expect([hosts, got.split('\r\n')[0]]).toEqual([hosts, expect.stringMatching(/^HTTP\/1\.[01] 400 /)]);
    }
    await framesPass(port, 3);
    expect((await getJson(port, '/state')).completedCommandId).toBe(before);
  });

  testIf(
    kit.connectionCap,
    "another user's idle connections cannot fill its slots: when full, the oldest idle one is closed and a real request answers",
    async () => {
      const idle: net.Socket[] = [];
      const closedAt: number[] = [];
      try {
        for (let i = 0; i <= kit.connectionCap!; i++) {
          const s = net.connect(port, '127.0.0.1');
          s.on('error', () => undefined);
          s.on('close', () => closedAt.push(i));
          idle.push(s);
          await new Promise((r) => s.once('connect', r));
        }
        // one more than its slots: the first (the oldest) makes room
        await waitFor('the oldest idle connection closed', () => closedAt.includes(0), 30000, 20);
        const r = await getWith(port, '/health', { Host: `127.0.0.1:${port}` });
        expect(r.status).toBe(200);
        // made room by closing the oldest, not by its 10 s deadline closing them all
        expect(closedAt.length).toBeLessThanOrEqual(2);
        expect(closedAt.every((i) => i <= 1)).toBe(true);
      } finally {
        idle.forEach((s) => s.destroy());
      }
    },
    60000,
  );

  testIf(
    kit.capabilities.includes('clock'),
    'launched with GAME_BRIDGE_START_PAUSED=1: paused at simFrame 0 until the bridge steps it',
    async () => {
      const g = await kit.start(reaper, await freePort(), newHome(), { GAME_BRIDGE_START_PAUSED: '1' });
      try {
        const first = await getJson(g.port, '/state');
        expect(first).toMatchObject({ simFrame: 0, clock: { paused: true, stepFramesLeft: 0 } });
        await framesPass(g.port, 5);
        // its own commands apply on the paused clock; simulation does not run
        const home = await appliedAll(g.port, kit.mover.home);
        await framesPass(g.port, 5);
        const still = await getJson(g.port, '/state');
        expect(still.frame).toBeGreaterThan(first.frame + 5);
        expect(still.simFrame).toBe(0);
        expect(kit.mover.x(still)).toBe(kit.mover.x(home));
        const step = await command(g.port, 'clock.step', { frames: 3 });
        const done = await untilState(g.port, 'the step ran', (st) => st.completedCommandId >= step.commandId);
        expect(done).toMatchObject({ simFrame: 3, clock: { paused: true } });
        const resumed = await applied(g.port, 'clock.resume');
        await untilState(g.port, 'simFrame moving once resumed', (st) => st.simFrame > resumed.simFrame + 3);
      } finally {
        await g.stop();
      }
    },
    kit.readyMs + 30000,
  );

  testIf(
    kit.connectionCap,
    'slow clients cannot freeze it: connections trickling a request are closed by its deadline so it answers again',
    async () => {
      const slow: net.Socket[] = [];
      let closed = 0;
      let trickle: NodeJS.Timeout | undefined;
      try {
        for (let i = 0; i < kit.connectionCap!; i++) {
          const s = net.connect(port, '127.0.0.1');
          s.on('error', () => undefined);
          s.on('close', () => (closed += 1));
          s.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
          slow.push(s);
        }
        // A byte a second: never a whole request, never idle long enough for a per-read timeout.
        trickle = setInterval(() => slow.forEach((s) => s.writable && s.write('X')), 1000);
        // The kits' deadline: 10 s from connect to the answer sent.
        await waitFor('the game closing the slow connections', () => closed === slow.length, 30000, 100);
        expect((await getWith(port, '/health', { Host: `127.0.0.1:${port}` })).status).toBe(200);
      } finally {
        clearInterval(trickle);
        slow.forEach((s) => s.destroy());
      }
    },
    45000,
  );

  test('garbage queries and bytes get an answer or a closed socket while the game keeps serving', async () => {
    for (const path of GARBAGE_PATHS) {
      const r = await fetch(`http://127.0.0.1:${port}${path}`);
      const body = await r.text();
      expect([path, r.status >= 200 && r.status < 500]).toEqual([path, true]);
      expect([path, body]).not.toEqual([path, expect.stringContaining('root:')]); // no file served
      // A path that names no endpoint is a 4xx (Python's http.server reads "//health" as "/health");
      // a command that cannot be decoded is not accepted.
      if (!/^\/(command|state|ui)\?|^\/\/health$/.test(path))
        expect([path, r.status, r.status >= 400]).toEqual([path, r.status, true]);
      if (/^\/command\?cmd=%/.test(path) && r.status === 200)
        expect([path, JSON.parse(body).accepted]).toEqual([path, false]);
    }
    for (const bytes of ['GET\r\n\r\n', 'NOT HTTP AT ALL\r\n\r\n', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03']) {
      const answer = await rawExchange(port, Buffer.from(bytes, 'latin1'));
      expect(answer).not.toMatch(/^HTTP\/1\.[01] 2/); // never a success for garbage
    }
    expect((await getJson(port, '/health')).ok).toBe(true);
    const home = await appliedAll(port, kit.mover.home);
    expect(home.completedCommandId).toBeGreaterThan(0);
  });

  test('a command is fire and forget, then confirmed by completedCommandId', async () => {
    const r = await command(port, ...kit.mover.home[kit.mover.home.length - 1]);
    expect(r).toEqual({ accepted: true, commandId: expect.any(Number), frame: expect.any(Number) });
    const s = await untilState(port, 'applied', (st) => st.completedCommandId >= r.commandId);
    expect(s.completedCommandId).toBeGreaterThanOrEqual(r.commandId);
    if (kit.fails) expect(s.commandResults).toContainEqual({ id: r.commandId, ok: true });
  });

  testIf(kit.fails, 'a command that fails on the game side: ok false with its words; the game runs on', async () => {
    const f = kit.fails!;
    await appliedAll(port, f.before ?? []);
    const sent = await command(port, ...f.cmd);
    expect(sent).toMatchObject({ accepted: true });
    const result = await resultOf(port, sent.commandId);
    expect(result).toEqual({ id: sent.commandId, ok: false, error: expect.stringMatching(f.error) });
    await appliedAll(port, f.after ?? []);
    await framesPass(port, 3);
    const next = await applied(port, ...kit.mover.home[0]);
    expect(next.commandResults).toContainEqual({ id: next.sentId, ok: true });
    expect(next.completedCommandId).toBe(next.sentId); // completedCommandId rose past the failure
  });

  testIf(
    kit.fails,
    'a command that fails on the game side is in /errors, with the frame it was applied at',
    async () => {
      const f = kit.fails!;
      const before = await getJson(port, '/errors?since=0');
      expect(before).toEqual({ seq: expect.any(Number), errors: expect.any(Array) });
      await appliedAll(port, f.before ?? []);
      const sent = await command(port, ...f.cmd);
      const after = await untilState(
        port,
        `command #${sent.commandId} completed`,
        (st) => st.completedCommandId >= sent.commandId,
      );
      const { seq, errors } = await getJson(port, `/errors?since=${before.seq}`);
      await appliedAll(port, f.after ?? []);
      expect(errors).toEqual([
        expect.objectContaining({
          seq,
          source: 'command',
          message: expect.stringMatching(f.error.source.replace(/^\^/, '')),
        }),
      ]);
      expect(errors[0].frame).toBeGreaterThanOrEqual(sent.frame);
      expect(errors[0].frame).toBeLessThanOrEqual(after.frame);
      expect(seq).toBe(before.seq + 1);
      // what came before is not listed again
      expect((await getJson(port, `/errors?since=${seq}`)).errors).toEqual([]);
    },
  );

  test('frames: a stall of 50 ms at frame k is in GET /frames as frame k, at 50 ms or more', async () => {
    const k = (await getJson(port, '/health')).frame + 30;
    expect(await command(port, 'frames.stall', { ms: 50, frame: k })).toMatchObject({ accepted: true });
    await waitFor(`frame ${k + 2}`, async () => (await getJson(port, '/health')).frame > k + 2, 30000, 5);
    const { frames } = await getJson(port, `/frames?since=${k - 1}`);
    expect(frames[0]).toMatchObject({ frame: k, ms: expect.any(Number) });
    expect(frames[0].ms).toBeGreaterThanOrEqual(50);
    expect(frames.every((f: any) => f.frame > k - 1)).toBe(true);
  });

  test('clock: step 5 runs exactly 5 frames and stays paused, while a paused game keeps answering and applying', async () => {
    const { input, x, speed } = kit.mover;
    await appliedAll(port, kit.mover.home);
    await applied(port, 'clock.pause');
    const p1 = await getJson(port, '/state');
    expect(p1.clock.paused).toBe(true);
    await framesPass(port, 4);
    const p2 = await getJson(port, '/state');
    expect(p2.frame).toBeGreaterThan(p1.frame + 3); // frame keeps growing
    expect(p2.simFrame).toBe(p1.simFrame); // simFrame does not
    const moved = await applied(port, ...kit.mover.home[kit.mover.home.length - 1]); // other commands still apply
    expect(moved.simFrame).toBe(p1.simFrame);
    const x0 = x(moved);

    await applied(port, 'input.hold', { input, owner: 'stepper', leaseMs: 20000 });
    const s0 = (await getJson(port, '/state')).simFrame;
    const step = await command(port, 'clock.step', { frames: 5 });
    const seen: any[] = [];
    const done = await untilState(port, 'step done', (s) => {
      seen.push(s);
      return s.completedCommandId >= step.commandId;
    });
    expect(done.simFrame).toBe(s0 + 5);
    expect(x(done)).toBeCloseTo(x0 + 5 * speed, 3); // the game read the held input on each stepped frame
    for (const s of seen) {
      expect(s.simFrame).toBeLessThanOrEqual(s0 + 5);
      if (s.completedCommandId >= step.commandId) expect(s.simFrame).toBe(s0 + 5);
    }
    await framesPass(port, 10);
    const after = await getJson(port, '/state');
    expect(after).toMatchObject({ simFrame: s0 + 5, clock: { paused: true } });
    expect(x(after)).toBeCloseTo(x0 + 5 * speed, 3);

    await applied(port, 'input.release', { input, owner: 'stepper' });
    const resumed = await applied(port, 'clock.resume');
    await untilState(port, 'simFrame moving again', (s) => s.simFrame > resumed.simFrame + 3);
  });

  test('hold → step → release sent back to back: the release waits for the step', async () => {
    const { input, x, speed } = kit.mover;
    await appliedAll(port, kit.mover.home);
    await applied(port, 'clock.pause');
    const x0 = x(await applied(port, ...kit.mover.home[kit.mover.home.length - 1]));
    await command(port, 'input.hold', { input, owner: 'press', leaseMs: 20000 });
    await command(port, 'clock.step', { frames: 3 });
    const release = await command(port, 'input.release', { input, owner: 'press' });
    const s = await untilState(port, 'release applied', (st) => st.completedCommandId >= release.commandId);
    expect(x(s)).toBeCloseTo(x0 + 3 * speed, 3);
    expect(s.input.held).toEqual([]);
    await applied(port, 'clock.resume');
  });

  test('a held input with a short lease is released by the game itself (as when the bridge is killed)', async () => {
    const { input, x } = kit.mover;
    const x0 = x(await appliedAll(port, kit.mover.home));
    const sentAt = Date.now();
    const held = await applied(port, 'input.hold', { input, owner: 'gone-agent', leaseMs: 1500 });
    expect(held.input.held).toEqual([{ input, owner: 'gone-agent', leaseMsLeft: expect.any(Number) }]);
    expect(held.input.held[0].leaseMsLeft).toBeLessThanOrEqual(1500);
    const released = await untilState(port, 'lease expired', (s) => s.input.held.length === 0, 10000);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1400);
    expect(x(released)).toBeGreaterThan(x0); // it moved while held
    await framesPass(port, 2);
    const x1 = x(await getJson(port, '/state'));
    await framesPass(port, 8);
    expect(x(await getJson(port, '/state'))).toBe(x1); // and stopped once released
  });

  test("release and releaseAll touch only their own owner's inputs", async () => {
    const [a, b] = kit.inputs;
    await applied(port, 'input.hold', { input: a, owner: 'a', leaseMs: 20000 });
    await applied(port, 'input.hold', { input: b, owner: 'a', leaseMs: 20000 });
    await applied(port, 'input.hold', { input: b, owner: 'b', leaseMs: 20000 });
    await applied(port, 'input.release', { input: b, owner: 'c' }); // not c's: nothing happens
    expect((await getJson(port, '/state')).input.held).toHaveLength(3);
    const s = await applied(port, 'input.releaseAll', { owner: 'a' });
    expect(s.input.held).toEqual([{ input: b, owner: 'b', leaseMsLeft: expect.any(Number) }]);
    const none = await applied(port, 'input.releaseAll', { owner: 'b' });
    expect(none.input.held).toEqual([]);
  });

  const has = (cap: string) => (kit.capabilities as readonly string[]).includes(cap);

  testIf(
    has('pointer'),
    "pointer: input.pointer sets x, y and the buttons; releaseAll lifts only its owner's",
    async () => {
      await applied(port, 'input.pointer', { x: 12, y: 34, buttons: 1, owner: 'a' });
      expect((await getJson(port, '/state')).input.pointer).toEqual({ x: 12, y: 34, buttons: 1 });
      const other = await applied(port, 'input.releaseAll', { owner: 'b' });
      expect(other.input.pointer).toEqual({ x: 12, y: 34, buttons: 1 });
      const s = await applied(port, 'input.releaseAll', { owner: 'a' });
      expect(s.input.pointer).toEqual({ x: 12, y: 34, buttons: 0 });
      expect((await command(port, 'input.pointer', { x: 1, y: 1, buttons: 8, owner: 'a' })).accepted).toBe(false);
      expect((await command(port, 'input.wheel', { dx: 0, dy: 20000, owner: 'a' })).accepted).toBe(false);
      expect((await applied(port, 'input.wheel', { dx: 0, dy: 120, owner: 'a' })).completedCommandId).toBeGreaterThan(
        0,
      );
    },
  );

  testIf(
    has('pointer'),
    'pointer: input.click presses and lifts there, and a command sent behind a double click waits until it has lifted',
    async () => {
      const c = await command(port, 'input.click', { x: 20, y: 30, button: 1, count: 2, owner: 'a' });
      expect(c).toMatchObject({ accepted: true });
      // Had the move not waited, the click's later presses would have taken the pointer back to 20,30.
      const s = await applied(port, 'input.pointer', { x: 25, y: 30, buttons: 0, owner: 'b' });
      expect(s.input.pointer).toEqual({ x: 25, y: 30, buttons: 0 });
      expect(s.commandResults.find((r: any) => r.id === c.commandId)).toEqual({ id: c.commandId, ok: true });
      const refused = await command(port, 'input.click', { x: 1, y: 1, button: 3, count: 1, owner: 'a' });
      expect(refused).toMatchObject({
        accepted: false,
        error: expect.stringMatching(/'button'.*1 \(left\), 2 \(right\) or 4/),
      });
      const four = await command(port, 'input.click', { x: 1, y: 1, button: 1, count: 4, owner: 'a' });
      expect(four).toMatchObject({ accepted: false, error: expect.stringMatching(/'count'.*1 to 3/) });
      // The bridge asks whether a kit takes input.click with no arguments: refused, and not as unknown.
      const asked = await command(port, 'input.click', {});
      expect(asked.accepted).toBe(false);
      expect(asked.error).not.toMatch(/unknown command/);
      expect(asked.error).toMatch(/\bargument\b/);
    },
  );

  testIf(has('touch'), "touch: two ids down at once, moved, lifted; releaseAll lifts its owner's", async () => {
    await applied(port, 'input.touch', { id: 0, x: 10, y: 10, phase: 'down', owner: 'a' });
    await applied(port, 'input.touch', { id: 1, x: 50, y: 10, phase: 'down', owner: 'a' });
    const moved = await applied(port, 'input.touch', { id: 1, x: 60, y: 12, phase: 'move', owner: 'a' });
    expect(moved.input.touches).toEqual([
      { id: 0, x: 10, y: 10 },
      { id: 1, x: 60, y: 12 },
    ]);
    const up = await applied(port, 'input.touch', { id: 0, x: 10, y: 10, phase: 'up', owner: 'a' });
    expect(up.input.touches).toEqual([{ id: 1, x: 60, y: 12 }]);
    expect((await applied(port, 'input.releaseAll', { owner: 'a' })).input.touches).toEqual([]);
    expect((await command(port, 'input.touch', { id: 10, x: 1, y: 1, phase: 'down', owner: 'a' })).accepted).toBe(
      false,
    );
  });

  testIf(
    has('axis'),
    'axis: held at a value, refused outside its range naming it, resting at 0 on release and on lease end',
    async () => {
      const tools = await getJson(port, '/tools');
      if (kit.devices?.axes) expect(tools.game.axes).toEqual(kit.devices.axes);
      const { name, min, max } = tools.game.axes[0];
      const held = await applied(port, 'input.axis', { input: name, value: max / 2, owner: 'a', leaseMs: 20000 });
      expect(held.input.axes[name]).toBe(max / 2);
      const refused = await command(port, 'input.axis', { input: name, value: max + 1, owner: 'a', leaseMs: 20000 });
      expect(refused).toMatchObject({
        accepted: false,
        error: expect.stringMatching(new RegExp(`${min} ?(to|\\.\\.) ?${max}`)),
      });
      await applied(port, 'input.axis', { input: name, value: max, owner: 'b', leaseMs: 20000 });
      expect((await applied(port, 'input.release', { input: name, owner: 'b' })).input.axes[name]).toBe(max / 2);
      expect((await applied(port, 'input.releaseAll', { owner: 'a' })).input.axes[name]).toBe(0);
      await applied(port, 'input.axis', { input: name, value: max, owner: 'a', leaseMs: 300 });
      await untilState(port, 'the lease to end', (st) => st.input.axes[name] === 0, 10000);
    },
  );

  testIf(
    kit.devices?.axisSpeed,
    'axis: the game reads the value as given (a step at the max moves the mover that far)',
    async () => {
      const { name, max } = kit.devices!.axes![0];
      const { x } = kit.mover;
      await appliedAll(port, kit.mover.home);
      await applied(port, 'clock.pause');
      const x0 = x(await getJson(port, '/state'));
      await command(port, 'input.axis', { input: name, value: max, owner: 'a', leaseMs: 20000 });
      await command(port, 'clock.step', { frames: 3 });
      const s = await applied(port, 'input.release', { input: name, owner: 'a' });
      expect(x(s)).toBeCloseTo(x0 + 3 * kit.devices!.axisSpeed!, 3);
      await applied(port, 'clock.resume');
    },
  );

  testIf(has('text'), 'text: input.text is applied; over 1000 characters is refused', async () => {
    expect((await applied(port, 'input.text', { text: 'Q', owner: 'a' })).completedCommandId).toBeGreaterThan(0);
    expect((await command(port, 'input.text', { text: 'x'.repeat(1001), owner: 'a' })).accepted).toBe(false);
  });

  testIf(kit.devices?.typed, 'text: typed text reaches the game as typed', async () => {
    await appliedAll(port, kit.mover.home);
    const before = kit.devices!.typed!(await getJson(port, '/state'));
    const s = await applied(port, 'input.text', { text: 'Zed', owner: 'a' });
    expect(kit.devices!.typed!(s)).toBe(before + 'Zed');
  });

  test('sessionEpoch changes on a new run, in /health and /state', async () => {
    const e0 = (await getJson(port, '/health')).sessionEpoch;
    const s = await applied(port, ...kit.newEpoch);
    expect(s.sessionEpoch).toBe(e0 + 1);
    expect((await getJson(port, '/health')).sessionEpoch).toBe(e0 + 1);
  });

  testIf(
    kit.ui,
    'the UI tree: its fields, revision unchanged while nothing changes, frameSequence growing',
    async () => {
      const ui = kit.ui!;
      await appliedAll(port, ui.open);
      const a = await getJson(port, '/ui');
      expect(a).toMatchObject({
        sessionEpoch: (await getJson(port, '/health')).sessionEpoch,
        frameSequence: expect.any(Number),
        revision: expect.any(Number),
        screen: ui.screen,
        nodes: expect.any(Array),
      });
      const ids = collectIds(a.nodes);
      expect(new Set(ids).size).toBe(ids.length); // ids are unique
      for (const id of [ui.button, ui.disabled, ui.slider]) expect(ids).toContain(id);
      expect(findNode(a.nodes, ui.disabled)).toMatchObject({ role: 'button', enabled: false });
      expect(findNode(a.nodes, ui.slider)).toMatchObject({ role: 'slider', min: 0, max: 1 });
      expect(findNode(a.nodes, ui.button)).toEqual(
        expect.objectContaining({ role: 'button', name: expect.any(String) }),
      );
      expect(findNode(a.nodes, ui.button).enabled).toBeUndefined(); // defaults are left out
      expect(nodeProblems(a.nodes)).toEqual([]); // everywhere in the tree, and only contract keys
      await framesPass(port, 3);
      const b = await getJson(port, '/ui');
      expect(b.frameSequence).toBeGreaterThan(a.frameSequence);
      expect(b.revision).toBe(a.revision);
      expect(b.nodes).toEqual(a.nodes);
    },
  );

  testIf(
    kit.ui,
    'ui.setValue and ui.activate act on the game frame, re-checked there: missing, disabled and gone nodes fail in the words every kit uses',
    async () => {
      const ui = kit.ui!;
      await appliedAll(port, ui.open);
      const before = await getJson(port, '/ui');
      const fail = async (cmd: Cmd, error: string) => {
        const sent = await command(port, ...cmd);
        expect(sent).toMatchObject({ accepted: true });
        expect(await resultOf(port, sent.commandId)).toEqual({ id: sent.commandId, ok: false, error });
      };
      const name = (id: string) => findNode(before.nodes, id).name;
      await fail(['ui.activate', { id: 'no-such-node' }], "no UI node 'no-such-node'");
      await fail(['ui.activate', { id: ui.disabled }], `'${name(ui.disabled)}' is disabled`);
      await fail(['ui.setValue', { id: ui.slider, value: 5 }], `'${name(ui.slider)}' takes 0 to 1, got 5`);
      // In the words every kit uses (docs/CONTRACT.md): NaN and the infinities are not numbers either.
      for (const value of ['abc', 'nan', 'NaN', 'Infinity', '-inf', '1e999', ' '])
        await fail(['ui.setValue', { id: ui.slider, value }], `'${name(ui.slider)}' takes a number, got '${value}'`);
      await fail(['ui.activate', { id: ui.slider }], `'${name(ui.slider)}' (slider) cannot be activated`);
      await fail(['ui.setValue', { id: ui.button, value: 'x' }], `'${name(ui.button)}' (button) takes no value`);
      expect(findNode((await getJson(port, '/ui')).nodes, ui.slider).value).toBe(
        findNode(before.nodes, ui.slider).value,
      );
      expect(await command(port, 'ui.activate', {})).toMatchObject({ accepted: false, error: "missing argument 'id'" });

      const set = await applied(port, 'ui.setValue', { id: ui.slider, value: 0.25 });
      expect(set.commandResults).toContainEqual({ id: set.sentId, ok: true });
      const valued = await getJson(port, '/ui');
      expect(findNode(valued.nodes, ui.slider).value).toBeCloseTo(0.25, 6);
      expect(valued.revision).toBeGreaterThan(before.revision);

      // Pressed twice back to back: the first leaves the screen, so on its frame the second finds no such node.
      const first = await command(port, 'ui.activate', { id: ui.button });
      const second = await command(port, 'ui.activate', { id: ui.button });
      expect(await resultOf(port, first.commandId)).toEqual({ id: first.commandId, ok: true });
      expect(await resultOf(port, second.commandId)).toEqual({
        id: second.commandId,
        ok: false,
        error: `no UI node '${ui.button}'`,
      });
      expect((await getJson(port, '/state')).ui.screen).toBe(ui.after);
      const after = await getJson(port, '/ui');
      expect(after.screen).toBe(ui.after);
      expect(nodeProblems(after.nodes)).toEqual([]);
      expect(after.revision).toBeGreaterThan(valued.revision);
    },
  );

  testIf(kit.fails, 'commandResults keeps the last 32 results, oldest first', async () => {
    const cmd = kit.mover.home[kit.mover.home.length - 1];
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) ids.push((await command(port, ...cmd)).commandId);
    const s = await untilState(port, 'all 40 applied', (st) => st.completedCommandId >= ids[39]);
    expect(s.commandResults.map((r: any) => r.id)).toEqual(ids.slice(-32));
  });

  testIf(kit.world, 'the world tree: objects with ids and types, its own counters', async () => {
    await appliedAll(port, kit.mover.home);
    const a = await getJson(port, '/world');
    expect(a).toMatchObject({
      sessionEpoch: expect.any(Number),
      frameSequence: expect.any(Number),
      revision: expect.any(Number),
      objects: expect.any(Array),
    });
    const ids = a.objects.map((o: any) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const o of a.objects)
      expect(o).toEqual(expect.objectContaining({ id: expect.any(String), type: expect.any(String) }));
    expect(a.objects.map((o: any) => o.type)).toContain(kit.world!.type);
    await framesPass(port, 3);
    expect((await getJson(port, '/world')).frameSequence).toBeGreaterThan(a.frameSequence);
  });

  test('the keep-alive round trip of GET /state (reported, not asserted)', async () => {
    const p50 = await keepAliveP50(port);
    process.stdout.write(`conformance: ${kit.kit} (${kit.example}) keep-alive GET /state p50 ${p50.toFixed(2)} ms\n`);
    expect(p50).toBeGreaterThan(0);
  });

  testIf(
    kit.carrier === 'process',
    'the registry entry lives from bind until a clean close',
    async () => {
      const home = newHome();
      const g = await kit.start(reaper, await freePort(), home);
      const entryFile = join(home, 'instances', `${g.child!.pid}.json`);
      await waitFor('registry entry', () => existsSync(entryFile), 10000);
      // Private to the user: the entry says which port takes commands.
      expect((statSync(entryFile).mode & 0o777).toString(8)).toBe('600');
      expect((statSync(join(home, 'instances')).mode & 0o077).toString(8)).toBe('0');
      expect(JSON.parse(readFileSync(entryFile, 'utf8'))).toMatchObject({
        port: g.port,
        pid: g.child!.pid,
        host: '127.0.0.1',
        protocol: 1,
        version: kit.version,
        started: expect.any(String),
        cwd: expect.any(String),
      });
      const code = exitCode(g.child!);
      expect(await command(g.port, 'close')).toMatchObject({ accepted: true });
      expect(await code).toBe(0);
      expect(await waitGone(g.child!.pid!)).toBe(true);
      expect(existsSync(entryFile)).toBe(false);
    },
    kit.readyMs + 15000,
  );

  testIf(
    kit.busyPort,
    'a port already taken: it says so and exits',
    async () => {
      const taken = await freePort();
      const blocker = net.createServer().listen(taken, '127.0.0.1');
      try {
        await new Promise((r) => blocker.once('listening', r));
        const { child, output } = kit.spawn!(reaper, String(taken), newHome());
        const code = exitCode(child);
        await waitFor('it says the port is taken', () => /cannot listen on 127\.0\.0\.1:\d+/.test(output.text), 30000);
        expect(output.text).toContain(`${taken}`);
        expect(await code).not.toBe(0);
      } finally {
        blocker.close();
      }
    },
    kit.readyMs + 15000,
  );
}
