/**
 * Composites (docs/COMPOSITES.md) and the library API. A project names its composites module in
 * gamebridge.json; the daemon (reached through the real proxy) loads it for that project's
 * sessions and re-imports it when the file changes. The library entry points are used the
 * way a package user would: `import 'game-bridge-mcp'` and `'game-bridge-mcp/game'`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import {
  CLI,
  ROOT,
  Reaper,
  healthOk,
  removeDir,
  startExampleGame,
  stopDaemon,
  tempHome,
  waitFor,
} from './helpers/procs.js';

const reaper = new Reaper();
let home: string;
let project: string;
let port: number;
let mcp: McpHandle;
const moduleFile = () => join(project, 'bridge', 'composites.mjs');

/** The project's composites module; `version` shows which file version answered. */
function writeModule(version: number): void {
  writeFileSync(
    moduleFile(),
    `
export default [
  {
    name: 'stack',
    description: 'Start a round and drop n crates at rest in one column.',
    args: [{ name: 'n', type: 'integer', description: 'How many crates', default: 2 }],
    async run(ctx) {
      await ctx.call('start');
      for (let i = 0; i < ctx.args.n; i++) await ctx.commandAndSync('drop', { x: 50, settle: false });
      const s = await ctx.state();
      return { version: ${version}, crates: s.game.crates.length, score: s.game.score };
    },
  },
  { name: 'peek', description: 'Shadows the game command of the same name.', readOnly: true, run: () => ({ shadowed: true, version: ${version} }) },
  { name: 'orbital_only', only: 'Orbital Freight', description: 'Serves another game only.', run: () => ({ wrong: true }) },
  { name: 'explode', description: 'Always throws.', run() { throw new Error('kaboom v${version}'); } },
];
`,
  );
  // Make the change visible to an mtime check even on a coarse-grained filesystem clock.
  const t = new Date(Date.now() + version * 2000);
  utimesSync(moduleFile(), t, t);
}

beforeAll(async () => {
  home = tempHome();
  project = tempHome('gb-composites-project-');
  mkdirSync(join(project, 'bridge'));
  [port] = await freeRange(1);
  await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home });
  writeProject(project, { ports: [port], extra: { composites: './bridge/composites.mjs' } });
  writeModule(1);
  // the real proxy, which starts a daemon for this home; the session's cwd is the project
  mcp = await connect({ args: ['--port', String(port), '--no-scan'], env: { GAME_BRIDGE_HOME: home }, cwd: project });
}, 60000);

afterAll(async () => {
  await mcp?.close();
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
  removeDir(project);
});

describe('a project composites module, through the proxy and the daemon', () => {
  test('call_tool reaches a composite (via: composite) that chains several commands', async () => {
    const r = await gameCall(mcp, port, 'stack', { n: 3 });
    expect(r.isError).toBe(false);
    expect(r.json).toMatchObject({ port, tool: 'stack', via: 'composite', version: 1, crates: 3 });
    expect(r.json.score).toBeGreaterThan(0);
  });

  test('argument defaults apply', async () => {
    const r = await gameCall(mcp, port, 'stack');
    expect(r.json).toMatchObject({ via: 'composite', crates: 2 });
  });

  test('a composite shadows a game command of the same name', async () => {
    const r = await gameCall(mcp, port, 'peek');
    expect(r.json).toMatchObject({ via: 'composite', shadowed: true });
  });

  test('`only` is honoured: a composite for another game is not found and the name falls through', async () => {
    const r = await gameCall(mcp, port, 'orbital_only');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^CommandRejected: The game on port \d+ does not know 'orbital_only'/);
    expect(r.text).not.toMatch(/wrong/);
  });

  test('the composites toolset is listed and described with the composites that serve this game', async () => {
    const ts = await call(mcp, 'list_toolsets', { port });
    const composites = ts.json.toolsets.find((t: any) => t.name === 'composites');
    expect(composites.tools.sort()).toEqual(['explode', 'peek', 'stack']);
    const d = await call(mcp, 'describe_toolset', { port, toolset: 'composites' });
    expect(d.json.tools.map((t: any) => t.name).sort()).toEqual(['explode', 'peek', 'stack']);
    const stack = d.json.tools.find((t: any) => t.name === 'stack');
    expect(stack.inputSchema.properties.n).toMatchObject({
      type: 'integer',
      description: 'How many crates. Default: 2.',
    });
    expect(d.json.tools.find((t: any) => t.name === 'peek').readOnly).toBe(true);
  });

  test('a composite that throws is a clear tool error', async () => {
    const r = await gameCall(mcp, port, 'explode');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^BridgeUsageError: Composite 'explode' failed: kaboom v\d/);
  });

  test('the session keeps serving after a composite throws', async () => {
    await gameCall(mcp, port, 'explode');
    const after = await gameCall(mcp, port, 'get_state', { path: 'ui.screen' });
    expect(after.isError).toBe(false);
    expect(after.json.value).toBe('GameScreen');
  });

  test('editing the module changes the behaviour at once, with nothing restarted', async () => {
    const status = () =>
      JSON.parse(
        execFileSync(process.execPath, [CLI, 'status', '--json'], {
          env: { ...process.env, GAME_BRIDGE_HOME: home },
          encoding: 'utf8',
        }),
      );
    const daemonPid = status().pid;
    expect((await gameCall(mcp, port, 'peek')).json.version).toBe(1);
    writeModule(2);
    expect((await gameCall(mcp, port, 'peek')).json.version).toBe(2);
    expect((await gameCall(mcp, port, 'stack', { n: 1 })).json).toMatchObject({ version: 2, crates: 1 });
    expect((await gameCall(mcp, port, 'explode')).text).toMatch(/kaboom v2/);
    expect(status().pid).toBe(daemonPid);
  });

  describe('a module that stops loading', () => {
    const why = () =>
      `The composites module ${moduleFile()} failed to load: SyntaxError: Unexpected identifier 'is' (line 3). Fix it; the next call loads it again.`;
    beforeAll(() => {
      writeFileSync(moduleFile(), 'export default [\n  { name: "peek" },\n  this is not javascript\n];\n');
      const t = new Date(Date.now() + 10000);
      utimesSync(moduleFile(), t, t);
    });

    test('leaves the game tools working', async () => {
      const r = await gameCall(mcp, port, 'peek'); // no composite now: the game's own read-only no-op
      expect(r.json).toMatchObject({ via: 'manifest', applied: true });
    });

    test('is named to the agent with its line and what failed', async () => {
      const listed = await call(mcp, 'list_toolsets', { port });
      expect(listed.json.warnings).toContain(why());
      const gone = await gameCall(mcp, port, 'stack');
      expect(gone.text).toMatch(/^CommandRejected: The game on port \d+ does not know 'stack'/);
      expect(gone.text).toContain(`(${why()})`);
    });

    test('is loaded again by the next call once fixed', async () => {
      writeModule(3);
      expect((await gameCall(mcp, port, 'peek')).json).toMatchObject({ via: 'composite', version: 3 });
    });
  });
});

describe('the library API', () => {
  test("game-bridge-mcp exports the surface docs/LIBRARY.md lists, not the daemon's internals", () => {
    const script = `
      const lib = await import('game-bridge-mcp');
      const names = ['parseSessionArgs', 'startStdioServer', 'BridgeError', 'isBridgeError', 'GameClient', 'readRegistry', 'normaliseManifest', 'findDeclaration'];
      const missing = names.filter((n) => typeof lib[n] !== 'function');
      const internals = ['DaemonState', 'Launcher', 'createEngineSession', 'commandAndSync', 'waitFor'];
      const internal = internals.filter((n) => n in lib);
      const cfg = lib.parseSessionArgs(['--port', '7821', '--scan-range', '7800-7802'], {}, '/tmp');
      console.log(JSON.stringify({ missing, internal, exports: Object.keys(lib).sort(), port: cfg.port, scan: cfg.scanRange }));
    `;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }),
    );
    expect(out).toEqual({
      missing: [],
      internal: [],
      exports: [
        'BridgeError',
        'ERROR_CLASSES',
        'GameClient',
        'findDeclaration',
        'isBridgeError',
        'normaliseManifest',
        'parseDeclaration',
        'parseSessionArgs',
        'readDeclaration',
        'readRegistry',
        'registryDir',
        'startStdioServer',
        'summarise',
        'withPort',
      ],
      port: 7821,
      scan: [7800, 7801, 7802],
    });
  });

  test('startStdioServer(config, {composites}) serves composites given in code', async () => {
    const script = `
      import { parseSessionArgs, startStdioServer } from 'game-bridge-mcp';
      const double = {
        name: 'score_twice', description: 'Read the score twice.',
        async run(ctx) { const a = (await ctx.state()).game.score; await ctx.sleep(5); return { a, b: (await ctx.state()).game.score, port: ctx.port }; },
      };
      await startStdioServer(parseSessionArgs(process.argv.slice(1)), { composites: [double] });
    `;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--input-type=module', '-e', script, '--', '--port', String(port), '--no-scan'],
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), GAME_BRIDGE_HOME: home },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'lib-test', version: '1' });
    await client.connect(transport);
    reaper.track(transport.pid ?? undefined);
    try {
      const res = (await client.callTool({ name: 'call_tool', arguments: { name: 'score_twice' } })) as {
        structuredContent: Record<string, unknown>;
        isError?: boolean;
      };
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent).toMatchObject({
        via: 'composite',
        tool: 'score_twice',
        port,
        a: expect.any(Number),
        b: expect.any(Number),
      });
    } finally {
      await client.close();
    }
  });

  test('game-bridge-mcp/game: a minimal game built on the kit serves the contract', async () => {
    const [gamePort] = await freeRange(1);
    const script = `
      import { createGameSurface } from 'game-bridge-mcp/game';
      let score = 0;
      const surface = createGameSurface({
        port: Number(process.argv[1]), name: 'Tiny', version: '0.1.0',
        snapshot: () => ({ game: { score } }),
        commands: { add: { validate: (a) => void a.number('n'), apply: (a) => { score += a.number('n'); } } },
      });
      await surface.listen();
      setInterval(() => surface.tick(), 1000 / 60);
    `;
    reaper.spawn(process.execPath, ['--input-type=module', '-e', script, String(gamePort)], {
      cwd: ROOT,
      env: { ...process.env, GAME_BRIDGE_HOME: home },
    });
    await waitFor('tiny game', () => healthOk(gamePort), 15000);
    const r = await gameCall(mcp, gamePort, 'add', { n: 5 });
    expect(r.json).toMatchObject({
      via: 'passthrough',
      applied: true,
      confirmation: 'completedCommandId',
      game: { score: 5 },
    });
    const bad = await gameCall(mcp, gamePort, 'add', { n: 'lots' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^CommandRejected/);
    await gameCall(mcp, gamePort, 'raw_command', { cmd: 'close' });
    await waitFor('tiny game gone', async () => !(await healthOk(gamePort)), 10000);
  });
});

describe('replay verdicts for composites', () => {
  test('only a project composite marked readOnly is safe to re-send once the module has been loaded', async () => {
    const { CompositeRegistry } = await import('../daemon/composites/registry.js');
    const project = [
      { name: 'look', description: '', readOnly: true, run: () => ({}) },
      { name: 'peek', description: 'shadows the read-only game tool, but changes things', run: () => ({}) },
    ];
    const reg = new CompositeRegistry([{ name: 'builtin', description: '', run: () => ({}) }], async () => project);
    expect(reg.findSync('look', undefined)).toBeUndefined(); // nothing loaded yet: the verdict falls back to the manifest (conservative)
    await reg.all();
    expect(reg.findSync('look', undefined)?.readOnly).toBe(true);
    expect(reg.findSync('peek', undefined)?.readOnly).toBeUndefined();
    expect(reg.findSync('builtin', undefined)?.name).toBe('builtin');
  });
});
