/**
 * Browser-game launches off the happy path, through the real CLI, daemon and SDK client: a page
 * served by the game's own command (here Python's http.server) and the mouse through the
 * browser; a page that throws at load and never joins; a server command that exits; no
 * Chromium on PATH. Every failure says what the page or its server said, and leaves nothing.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, cleanedAfterAll, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { DIST, groupGone, pythonExe, ROOT, stopDaemon, tempHome } from './helpers/procs.js';
import { asOtherUserTest, spawnAsNobody } from './helpers/nobody.js';

jest.setTimeout(180_000);

const CANVAS_WWW = join(DIST, 'examples', 'canvas-game', 'www');
/** A page that speaks the page wire itself and joins once (test/fixtures/join-once). */
const JOIN_ONCE_WWW = join(ROOT, 'test', 'fixtures', 'join-once');
const { homes, handles } = cleanedAfterAll();

/** A project folder with this `launch` (plus a port range of its own), and a client started in it. */
async function project(
  launch: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<{ h: McpHandle; dir: string; home: string }> {
  const home = tempHome('gb-webedge-');
  homes.push(home);
  const dir = join(home, 'project');
  mkdirSync(dir);
  const [first] = await freeRange(4);
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({ name: 'Edge', launch: { portRange: `${first}-${first + 3}`, ...launch } }),
  );
  const h = await connect({ env: { GAME_BRIDGE_HOME: home, ...env }, cwd: dir, args: ['--no-scan'] });
  handles.push(h);
  return { h, dir, home };
}

const launch = (h: McpHandle) => call(h, 'launch_instance', {}, 120_000);

/** Another user's squatter on {webPort} (test/fixtures/web-squatter.mjs). */
const SQUATTER = `await import(${JSON.stringify(join(ROOT, 'test', 'fixtures', 'web-squatter.mjs'))});`;

asOtherUserTest(
  "{webPort} taken first by another user's server: the launch tries other ports, then is refused before the browser opens any, naming who holds them",
  async () => {
    const squatter = spawnAsNobody(SQUATTER);
    try {
      // The game's server starts a little late: the squatter, which reads its command line, binds first.
      const server = `sh -c 'sleep 2; exec ${pythonExe()} -m http.server "$1" --bind 127.0.0.1 --directory ${CANVAS_WWW}' gb-squat-marker {webPort}`;
      const { h } = await project({
        readyTimeoutMs: 30000,
        web: { command: server, url: 'http://127.0.0.1:{webPort}/' },
      });
      const r = await launch(h);
      expect(squatter.lines.some((l) => l.startsWith('bound '))).toBe(true);
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(
        /is not the game's command: another process \(pid \d+ \(node\) of user nobody\) holds port \d+/,
      );
      expect(r.text).toMatch(/nothing was opened in the browser/);
      // the squatter takes every {webPort} it sees: three launches, each refused, and the ports
      // named as taken are the ones it bound, not the game's own
      const bound = squatter.lines.filter((l) => l.startsWith('bound ')).map((l) => l.slice('bound '.length));
      expect(bound).toHaveLength(3);
      expect(r.text).toMatch(
        /Ports tried: \d+, \d+, \d+; another process took (\d+, \d+, \d+) before the game bound it\./,
      );
      expect(/another process took (\d+, \d+, \d+) before/.exec(r.text)![1].split(', ').sort()).toEqual(bound.sort());
      // Chromium never asked the squatter for its page (only the bridge's readiness poll reached it).
      expect(squatter.lines.filter((l) => /Chrome/.test(l))).toEqual([]);
      expect((await call(h, 'list_instances')).json.live).toEqual([]);
    } finally {
      squatter.child.kill('SIGKILL');
    }
  },
);

describe("a page served by the game's own command on {webPort}", () => {
  let h: McpHandle;
  let home = '';
  let r: Awaited<ReturnType<typeof launch>>;
  beforeAll(async () => {
    const server = `${pythonExe()} -m http.server {webPort} --bind 127.0.0.1 --directory ${CANVAS_WWW}`;
    ({ h, home } = await project(
      {
        env: { SERVED_FOR: '${CLIENT_VAR} on {webPort}' },
        web: { command: server, url: 'http://127.0.0.1:{webPort}/index.html' },
      },
      { CLIENT_VAR: 'from-the-client' },
    ));
    r = await launch(h);
  }, 120_000);
  const record = () => JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8')).instances[0];

  test('is launched, its server given launch.env', () => {
    expect(r.isError).toBe(false);
    expect(r.json).toMatchObject({ name: 'Dot', pid: expect.any(Number) });
    const rec = record();
    expect(rec.command).toMatch(/http\.server \d+ --bind/);
    expect(rec.web.serverPgid).toEqual(expect.any(Number));
    // launch.env reaches the page's server as it reaches any game: the client's ${NAME}, the ports
    const environ = readFileSync(`/proc/${rec.web.serverPgid}/environ`, 'utf8').split('\0');
    expect(environ).toContain(`SERVED_FOR=from-the-client on ${/http\.server (\d+)/.exec(rec.command)![1]}`);
  });

  test('is clicked through the browser', async () => {
    // The mouse through the browser: a click teleports the dot.
    const click = await gameCall(h, r.json.port, 'press', { input: 'mouse:left@100,50' });
    expect(click.json).toMatchObject({ via: 'browser', game: { x: 100, y: 50, clicks: 1 } });
  });

  test('is stopped with its server', async () => {
    const rec = record();
    const stop = await call(h, 'stop_instance', { port: r.json.port });
    expect(stop.json).toMatchObject({ stopped: true, how: 'closed cleanly' });
    expect(await groupGone(rec.web.serverPgid, 5000)).toBe(true);
    expect(await groupGone(rec.pid, 5000)).toBe(true);
  });
});

test('a page that joins once, without retrying, joins on each of 8 launches in a row beside a busy CPU', async () => {
  const { h } = await project({ readyTimeoutMs: 20000, web: { static: JOIN_ONCE_WWW } });
  // A busy CPU slows the browser's start against the page's join, which is what a join that
  // came before the bridge knew its browser would show.
  const busy = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
  try {
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await launch(h);
      outcomes.push(r.isError ? r.text : 'joined');
      if (r.isError) break; // a refused join waits out readyTimeoutMs: one is enough to show it
      await call(h, 'stop_instance', { port: r.json.port });
    }
    expect(outcomes).toEqual(Array(8).fill('joined'));
  } finally {
    busy.kill('SIGKILL');
  }
}, 600_000);

describe('a page that throws at load and never joins', () => {
  let h: McpHandle;
  let r: Awaited<ReturnType<typeof launch>>;
  beforeAll(async () => {
    let dir = '';
    ({ h, dir } = await project({ readyTimeoutMs: 30000, web: { static: 'www' } }));
    mkdirSync(join(dir, 'www'));
    writeFileSync(
      join(dir, 'www', 'index.html'),
      '<!doctype html><title>Broken</title><script>throw new Error("boom at load: no game here")</script>',
    );
    r = await launch(h);
  }, 120_000);

  test('fails its launch naming the console error', () => {
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      /^LaunchFailed: Launch failed on port \d+: the page did not join the bridge within the declaration's readyTimeoutMs/,
    );
    expect(r.text).toMatch(/uncaught Error: boom at load: no game here/);
  });

  test('leaves nothing running', async () => {
    expect(r.json.pid).toEqual(expect.any(Number));
    expect(await groupGone(r.json.pid, 5000)).toBe(true);
    expect((await call(h, 'list_instances')).json.live).toEqual([]);
  });
});

test('a server command that exits: the launch fails with its exit code and its last output', async () => {
  const { h } = await project({
    web: { command: 'echo "no such bundler" >&2; exit 3', url: 'http://127.0.0.1:{webPort}/' },
  });
  const r = await launch(h);
  expect(r.text).toMatch(
    /^LaunchFailed: Launch failed on port \d+: the page's server did not answer http:\/\/127\.0\.0\.1:\d+\/: its command exited with code 3/,
  );
  expect(r.text).toMatch(/no such bundler/);
});

test('no Chromium on PATH: the launch fails with the install line', async () => {
  const { h } = await project({ web: { static: CANVAS_WWW } }, { PATH: '/nonexistent' });
  const r = await launch(h);
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(/^ChromiumMissing: Launch failed on port \d+: browser games need Chromium/);
  expect(r.text).toMatch(/apt-get install -y chromium/);
});

test('game-bridge-mcp stop reaps a browser game: Chromium, the carrier and the static server go with the daemon', async () => {
  const { h, home } = await project({ web: { static: CANVAS_WWW } });
  const r = await launch(h);
  expect(r.isError).toBe(false);
  const rec = JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8')).instances[0];
  stopDaemon(home);
  expect(await groupGone(rec.pid, 5000)).toBe(true);
  await expect(fetch(`http://127.0.0.1:${r.json.port}/health`)).rejects.toThrow();
  await expect(fetch(`http://127.0.0.1:${rec.web.static.port}/`)).rejects.toThrow();
});
