/**
 * The CLI (docs/CLI.md) through the real bin: help and version, usage errors, init, doctor,
 * status and stop against a real daemon. Every run has its own GAME_BRIDGE_HOME.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { readDeclaration, SCHEMA_FILE } from '../daemon/launcher/index.js';
import { freePort, freeRange } from './helpers/ports.js';
import {
  alive,
  CLI,
  clonePath,
  DIST,
  ROOT,
  Reaper,
  removeDir,
  SELF,
  startExampleGame,
  tempHome,
  waitFor,
  waitGone,
} from './helpers/procs.js';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string; timeout?: number } = {},
): Promise<Ran> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_')) env[k] = v;
  Object.assign(env, opts.env ?? {});
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env, cwd: opts.cwd, timeout: opts.timeout ?? 30000 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : -1
          : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function bridgeFree(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_')) env[k] = v;
  return env;
}

const reaper = new Reaper();
const PKG_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const dirs: string[] = [];
function dir(prefix = 'gb-cli-'): string {
  const d = tempHome(prefix);
  dirs.push(d);
  return d;
}

afterAll(async () => {
  await reaper.reap();
  for (const d of dirs) removeDir(d);
});

describe('help, version and usage errors', () => {
  test('--help (or -h) lists every subcommand with examples', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['daemon', 'status', 'stop', 'doctor', 'init', 'demo', 'launch', 'logs'])
      expect(help.stdout).toContain(`${SELF} ${c}`);
    expect(help.stdout).toMatch(/Examples:/);
    expect((await cli(['-h'])).stdout).toBe(help.stdout);
  });

  test('-v prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
    const v = await cli(['-v']);
    expect(v).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  test.each(['daemon', 'status', 'stop', 'doctor', 'init', 'demo', 'launch', 'logs'])(
    '%s --help has examples and exits 0',
    async (cmd) => {
      const r = await cli([cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`${SELF} ${cmd}`);
      expect(r.stdout).toContain(`Examples:\n  ${SELF}`);
    },
  );

  test('hints name the command that works here: `node <abs main.js>` in a clone, the bin name once it is on PATH', async () => {
    const home = dir();
    const project = dir('gb-cli-proj-');
    const clone = await cli(['doctor', '--dir', project], {
      env: { GAME_BRIDGE_HOME: home, PATH: clonePath(dir('gb-cli-node-')) },
    });
    const self = `node ${resolve(CLI)}`;
    expect(clone.stdout).toContain(`${self} init --dir ${project}`);
    // the printed hint runs as written
    const [node, main] = self.split(' ');
    const init = await new Promise<Ran>((res) =>
      execFile(
        node,
        [main, 'init', '--dir', project],
        { env: { ...process.env, GAME_BRIDGE_HOME: home } },
        (err, stdout, stderr) => res({ code: err ? 1 : 0, stdout, stderr }),
      ),
    );
    expect(init.code).toBe(0);
    expect(existsSync(join(project, 'gamebridge.json'))).toBe(true);
    // as after `npm link` / a global install: a game-bridge-mcp on PATH that is this very main.js
    const bin = dir('gb-cli-bin-');
    symlinkSync(CLI, join(bin, 'game-bridge-mcp'));
    const linked = await cli(['init', '--help'], {
      env: { GAME_BRIDGE_HOME: home, PATH: `${bin}${delimiter}${process.env.PATH}` },
    });
    expect(linked.stdout).toContain('Examples:\n  game-bridge-mcp init');
  });

  test("a usage error names the bad value and points at its subcommand's help", async () => {
    const home = dir();
    const port = await cli(['--port', 'abc', '--no-daemon'], { env: { GAME_BRIDGE_HOME: home } });
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/Bad --port "abc": a port is an integer 1-65535/);
    const sub = await cli(['init', '--bogus'], { env: { GAME_BRIDGE_HOME: home } });
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain(`See ${SELF} init --help.`);
  });

  test('an unknown subcommand exits 2 with a one-line reason', async () => {
    const home = dir();
    const r = await cli(['stat'], { env: { GAME_BRIDGE_HOME: home } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unknown command 'stat'.*status/);
  });

  test('an unknown flag exits 2 and the command does not run', async () => {
    const home = dir();
    const r = await cli(['status', '--bogus'], { env: { GAME_BRIDGE_HOME: home } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(''); // status itself never ran
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/Unknown argument: bogus/);
  });

  test('session flags belong to the server, not to subcommands: init --port is refused', async () => {
    const home = dir();
    const target = join(home, 'init-port');
    const r = await cli(['init', '--port', '7830', '--dir', target], { env: { GAME_BRIDGE_HOME: home } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Unknown argument: port/);
    expect(existsSync(join(target, 'gamebridge.json'))).toBe(false);
  });

  test('a flag without its value exits 2', async () => {
    const r = await cli(['init', '--dir'], { cwd: dir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Not enough arguments following: dir/);
  });
});

describe('help in a clone at a long path', () => {
  // A clone's commands read `node <abs path>/dist/proxy/main.js …`; at an ordinary home path that
  // is wider than half a terminal, the width where a help table wraps its first column.
  const clone = join(
    tmpdir(),
    `gb-long-clone-${process.pid}`,
    'home',
    'someone',
    'src',
    'games',
    'tools',
    'game-bridge-mcp',
  );
  const main = join(clone, 'dist', 'proxy', 'main.js');
  const self = `node ${main}`;
  beforeAll(() => {
    expect(self.length).toBeGreaterThan(80);
    cpSync(DIST, join(clone, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(clone, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    dirs.push(join(tmpdir(), `gb-long-clone-${process.pid}`));
  });
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<Ran>((res) =>
      execFile(process.execPath, [main, ...args], { env: { ...bridgeFree(), ...env } }, (err, stdout, stderr) =>
        res({ code: err ? 1 : 0, stdout, stderr }),
      ),
    );

  test.each(['', 'daemon', 'token', 'status', 'stop', 'dashboard', 'launch', 'logs', 'doctor', 'init', 'demo'])(
    '`%s --help`: every command it shows is whole on one line',
    async (name) => {
      const cmd = name ? [name] : [];
      const help = (await run([...cmd, '--help'])).stdout;
      const whole = help.split(self).length - 1;
      expect(whole).toBeGreaterThan(0);
      // every mention of the clone is the whole command: none is broken across lines
      expect(help.split('game-bridge-mcp/dist').length - 1).toBe(whole);
      expect(help.split('gb-long-clone-').length - 1).toBe(whole);
      // each example is a line of its own that begins with the command
      const examples = help.slice(help.indexOf('Examples:\n'));
      expect(examples).toMatch(
        new RegExp(`^  ${self.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${cmd.length ? ` ${cmd[0]}` : ''}`, 'm'),
      );
    },
  );

  test('an example copied from the help runs as written', async () => {
    const help = (await run(['status', '--help'])).stdout;
    const line = help.split('\n').find((l) => l.trim() === `${self} status`);
    expect(line).toBeDefined();
    const home = dir();
    const [node, file, ...args] = line!.trim().split(' ');
    expect(node).toBe('node');
    const r = await new Promise<Ran>((res) =>
      execFile(
        process.execPath,
        [file, ...args],
        { env: { ...bridgeFree(), GAME_BRIDGE_HOME: home } },
        (err, stdout, stderr) => res({ code: err ? 1 : 0, stdout, stderr }),
      ),
    );
    expect(r.stdout).toContain(`no daemon is running for ${home}`);
  });
});

describe('init', () => {
  test('writes a starter gamebridge.json that parses, without asking when stdin is not a terminal', async () => {
    const project = dir('gb-init-');
    const r = await cli(['init'], { cwd: project });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/wrote .*gamebridge\.json/);
    const decl = readDeclaration(join(project, 'gamebridge.json'));
    expect(decl.command).toContain('{port}');
    expect(decl.portRange[0]).toBe(7820);
    expect(decl.portRange.at(-1)).toBe(7839);
    expect(decl.readyTimeoutMs).toBeGreaterThan(0);
  });

  test('the starter names, in "$schema", the JSON Schema this version ships', async () => {
    const project = dir('gb-init-');
    expect((await cli(['init'], { cwd: project })).code).toBe(0);
    const written = JSON.parse(readFileSync(join(project, 'gamebridge.json'), 'utf8')) as { $schema: string };
    expect(written.$schema).toBe(`https://unpkg.com/game-bridge-mcp@${PKG_VERSION}/dist/${SCHEMA_FILE}`);
    const shipped = JSON.parse(readFileSync(join(DIST, SCHEMA_FILE), 'utf8')) as { required: string[] };
    expect(shipped.required).toEqual(['launch']);
  });

  test('in a project that installed the package, "$schema" names the installed copy', async () => {
    const project = dir('gb-init-');
    const installed = join(project, 'node_modules', 'game-bridge-mcp', 'dist');
    mkdirSync(installed, { recursive: true });
    cpSync(join(DIST, SCHEMA_FILE), join(installed, SCHEMA_FILE));
    expect((await cli(['init'], { cwd: project })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(project, 'gamebridge.json'), 'utf8'))).toMatchObject({
      $schema: `./node_modules/game-bridge-mcp/dist/${SCHEMA_FILE}`,
    });
  });

  // `script` gives the command a real terminal, so init asks; answers are typed when each prompt shows.
  const hasScript = (() => {
    try {
      execFileSync('script', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  (hasScript ? test : test.skip)(
    'run bare on a terminal, it says on stderr that it is an MCP server a client starts, naming demo and --help',
    async () => {
      const home = dir();
      const stdout = join(dir('gb-bare-'), 'stdout');
      const child = reaper.spawn('script', ['-qfec', `${process.execPath} ${CLI} > ${stdout}`, '/dev/null'], {
        env: { ...bridgeFree(), GAME_BRIDGE_HOME: home },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let seen = '';
      child.stdout!.on('data', (d: Buffer) => (seen += d.toString()));
      await waitFor('the terminal note', () => /--help/.test(seen), 15000);
      expect(seen).toMatch(/an MCP server: an MCP client .* starts it/);
      expect(seen).toContain(`${SELF} demo`);
      expect(seen).toContain(`${SELF} --help`);
      expect(readFileSync(stdout, 'utf8')).toBe(''); // stdout is JSON-RPC only
      await cli(['stop'], { env: { GAME_BRIDGE_HOME: home } });
    },
  );

  (hasScript ? test : test.skip)('on a terminal it asks for the name and the command', async () => {
    const project = dir('gb-init-');
    const child = reaper.spawn('script', ['-qfec', `${process.execPath} ${CLI} init --dir ${project}`, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let seen = '';
    const answered = new Set<string>();
    child.stdout!.on('data', (d: Buffer) => {
      seen += d.toString();
      if (seen.includes('Game name') && !answered.has('name')) {
        answered.add('name');
        child.stdin!.write('Orbital Freight\r');
      }
      if (seen.includes('Command that starts the game') && !answered.has('command')) {
        answered.add('command');
        child.stdin!.write('./run --debug-port {port}\r');
      }
    });
    await waitFor(
      'init to write the file',
      () =>
        existsSync(join(project, 'gamebridge.json')) &&
        readFileSync(join(project, 'gamebridge.json'), 'utf8').endsWith('\n'),
      15000,
    );
    expect(readDeclaration(join(project, 'gamebridge.json'))).toMatchObject({
      name: 'Orbital Freight',
      command: './run --debug-port {port}',
    });
  });

  test('overwrites only with --force, writing the given values where --dir says', async () => {
    const project = dir('gb-init-');
    writeFileSync(join(project, 'gamebridge.json'), '{"mine": true}\n');
    const refused = await cli(['init', '--dir', project]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already exists.*--force/);
    expect(readFileSync(join(project, 'gamebridge.json'), 'utf8')).toBe('{"mine": true}\n');

    const forced = await cli([
      'init',
      '--dir',
      project,
      '--force',
      '--name',
      'Orbital Freight',
      '--command',
      './run --debug-port {port}',
      '--port-range',
      '9100-9104',
    ]);
    expect(forced.code).toBe(0);
    const decl = readDeclaration(join(project, 'gamebridge.json'));
    expect(decl).toMatchObject({
      name: 'Orbital Freight',
      command: './run --debug-port {port}',
      portRange: [9100, 9101, 9102, 9103, 9104],
    });
  });

  test('a bad --port-range is a usage error and writes nothing', async () => {
    const project = dir('gb-init-');
    const r = await cli(['init', '--port-range', '9-3'], { cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Bad port range '9-3'/);
    expect(() => statSync(join(project, 'gamebridge.json'))).toThrow();
  });
});

describe('doctor', () => {
  test('a clean setup has no problems and says which gamebridge.json a directory resolves to', async () => {
    const home = dir();
    chmodSync(home, 0o700);
    const project = dir('gb-proj-');
    mkdirSync(join(project, 'src', 'deep'), { recursive: true });
    await cli(['init', '--command', 'node game.js --port {port}'], { cwd: project });
    writeFileSync(join(project, 'game.js'), '');
    const r = await cli(['doctor', '--dir', join(project, 'src', 'deep')], { env: { GAME_BRIDGE_HOME: home } });
    expect(r.stdout).toContain(`resolves to ${join(project, 'gamebridge.json')}`);
    expect(r.stdout).toMatch(/✔ scan range 7777,7800-7839 \(default\): 41 port/);
    expect(r.stdout).toMatch(/No problems found/);
    expect(r.code).toBe(0);
  });

  test('reports each problem with its fix and exits 1', async () => {
    const home = dir();
    chmodSync(home, 0o755);
    // a stale registry entry (nothing answers on its port) and an unreadable one
    const deadPort = await freePort();
    mkdirSync(join(home, 'instances'));
    writeFileSync(
      join(home, 'instances', '999999.json'),
      JSON.stringify({ name: 'Ghost', port: deadPort, pid: 999999 }),
    );
    writeFileSync(join(home, 'instances', 'junk.json'), 'not json');
    // daemon.json naming a dead pid
    mkdirSync(join(home, 'daemon'));
    writeFileSync(
      join(home, 'daemon', 'daemon.json'),
      JSON.stringify({ pid: 999999, port: deadPort, token: 'x', version: '0.0.0' }),
      { mode: 0o600 },
    );
    // a project whose gamebridge.json is broken
    const project = dir('gb-proj-');
    writeFileSync(join(project, 'gamebridge.json'), '{"launch": ');

    const r = await cli(['doctor', '--dir', project], {
      env: { GAME_BRIDGE_HOME: home, GAME_BRIDGE_SCAN_RANGE: '7800-7700' },
    });
    expect(r.code).toBe(1);
    const out = r.stdout;
    expect(out).toMatch(/✖ home .* has mode 755, not 700.*\n\s+fix: chmod 700 /);
    expect(out).toMatch(/✖ daemon\.json names pid 999999, which is not running.*\n\s+fix: .*rm .*daemon\.json/);
    expect(out).toMatch(/✖ .*gamebridge\.json is not valid JSON/);
    expect(out).toMatch(/✖ scan range '7800-7700' \(GAME_BRIDGE_SCAN_RANGE\): Bad port range.*\n\s+fix: /);
    expect(out).toMatch(
      new RegExp(
        `✖ stale registry entry .*999999\\.json: Ghost \\(pid 999999\\) on port ${deadPort}.*\\n\\s+fix: rm .*999999\\.json`,
      ),
    );
    expect(out).toMatch(/✖ unreadable registry file .*junk\.json.*\n\s+fix: rm /);
    expect(out).toMatch(/\d+ problem\(s\) found/);
  });

  test('a page without the kit has no problems', async () => {
    const home = dir();
    chmodSync(home, 0o700);
    const project = dir('gb-proj-');
    mkdirSync(join(project, 'dist'));
    writeFileSync(join(project, 'dist', 'index.html'), '<canvas></canvas>');
    writeFileSync(
      join(project, 'gamebridge.json'),
      JSON.stringify({ launch: { web: { static: 'dist', kit: false } } }),
    );
    const r = await cli(['doctor'], { cwd: project, env: { GAME_BRIDGE_HOME: home } });
    expect(r.stdout).toMatch(/✔ .* resolves to .*gamebridge\.json: opens .*index\.html in Chromium, without the kit/);
    expect(r.stdout).toMatch(/No problems found/);
    expect(r.code).toBe(0);
  });

  test('a launch command naming a file that is not there is a problem', async () => {
    const home = dir();
    chmodSync(home, 0o700);
    const project = dir('gb-proj-');
    await cli(['init', '--command', 'node gmae.js --port {port}', '--no-register'], { cwd: project });
    const r = await cli(['doctor'], { cwd: project, env: { GAME_BRIDGE_HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✖ .*launch\.command names gmae\.js, which does not exist in .*\n\s+fix: /);
  });

  test('the placeholder command from init is flagged until it is replaced', async () => {
    const home = dir();
    chmodSync(home, 0o700);
    const project = dir('gb-proj-');
    await cli(['init'], { cwd: project });
    const r = await cli(['doctor'], { cwd: project, env: { GAME_BRIDGE_HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/launch\.command is still the template's placeholder\n\s+fix: /);
  });

  test('a live registered game is counted live, not stale', async () => {
    const home = dir();
    chmodSync(home, 0o700);
    const [port] = await freeRange(1);
    await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home });
    await waitFor(
      'registry entry',
      () => existsSync(join(home, 'instances')) && readdirSync(join(home, 'instances')).length > 0,
    );
    const r = await cli(['doctor', '--dir', home], { env: { GAME_BRIDGE_HOME: home } });
    expect(r.stdout).toMatch(new RegExp(`1 entry, 1 live \\(Crate Stack on ${port}\\)`));
    expect(r.stdout).not.toMatch(/stale registry entry/);
  });
});

describe('daemon, status, stop', () => {
  test('status, stop and doctor talk to a real daemon', async () => {
    const home = dir();
    const env = { GAME_BRIDGE_HOME: home };
    expect(await cli(['status'], { env })).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/no daemon is running/),
    });

    const daemon = reaper.spawn(process.execPath, [CLI, 'daemon'], { env: { ...process.env, ...env } });
    const status = await waitFor(
      'daemon status',
      async () => {
        const r = await cli(['status', '--json'], { env });
        return r.code === 0 ? JSON.parse(r.stdout) : undefined;
      },
      60000, // a daemon and a CLI starting on a loaded machine
    );
    expect(status).toMatchObject({
      pid: daemon.pid,
      version: expect.any(String),
      sessions: [],
      instances: [],
      exited: [],
    });
    expect(status.uptimeMs).toEqual(expect.any(Number));
    const table = await cli(['status'], { env });
    expect(table.stdout).toMatch(
      new RegExp(
        `^game-bridge daemon \\S+: pid ${daemon.pid}, port \\d+, up [\\d.ms]+, 0 session\\(s\\), 0 game\\(s\\) running\n`,
      ),
    );
    expect(table.stdout).toContain('Sessions\n  none (no MCP client is connected)');

    // a second daemon by hand is refused, names the one that runs, and exits non-zero
    const second = await cli(['daemon'], { env });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(`another daemon \\(pid ${daemon.pid}\\) already serves .*status\` shows it, \`.* stop\` stops it`),
    );

    const doc = await cli(['doctor', '--dir', home], { env });
    expect(doc.stdout).toMatch(
      new RegExp(
        `✔ daemon pid ${daemon.pid} v\\S+ answers on 127\\.0\\.0\\.1:\\d+ \\(0 session\\(s\\), 0 launched game\\(s\\)\\)`,
      ),
    );

    const stop = await cli(['stop'], { env });
    expect(stop).toMatchObject({ code: 0, stdout: `no launched games to stop\ndaemon pid ${daemon.pid} stopped\n` });
    expect(await waitGone(daemon.pid!, 5000)).toBe(true);
    expect(alive(daemon.pid!)).toBe(false);
    expect(await cli(['stop'], { env })).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/no daemon is running/),
    });
  }, 180000);
});
