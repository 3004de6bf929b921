/**
 * `game-bridge-mcp demo` (what `npm run demo` runs), for real: the bin starts an MCP client,
 * which spawns the proxy, which starts a daemon for this home; the demo launches the example
 * game, drives it, and stops it. Also its failure path: a launch that cannot happen is reported
 * with the step that failed, and the exit code is 1.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { decodePng, distinctColours } from './helpers/png.js';
import { freeRange } from './helpers/ports.js';
import { alive, bridgeFreeEnv, CLI, healthOk, removeDir, SELF, tempHome, waitGone } from './helpers/procs.js';

function run(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  const full = bridgeFreeEnv(env);
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: full, timeout: 200000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? -1) : 0, out: stdout + stderr });
    });
  });
}

const homes: string[] = [];
afterAll(() => {
  for (const h of homes) {
    try {
      execFileSync(process.execPath, [CLI, 'stop'], {
        env: { ...process.env, GAME_BRIDGE_HOME: h },
        stdio: 'ignore',
        timeout: 40000,
      });
    } catch {
      /* nothing to stop */
    }
    removeDir(h);
  }
});

/** The home's daemon runs with no game left, and the demo's output named its pid and how to stop it. */
function expectDaemonStays(home: string, out: string): void {
  const status = JSON.parse(
    execFileSync(process.execPath, [CLI, 'status', '--json'], {
      env: { ...process.env, GAME_BRIDGE_HOME: home },
      encoding: 'utf8',
    }),
  );
  expect(status.instances).toEqual([]);
  expect(alive(status.pid)).toBe(true);
  expect(out).toContain(
    `The daemon (pid ${status.pid}) is still running for your MCP clients: it exits after 10 idle minutes, or now with \`${SELF} stop\`.`,
  );
}

test('the demo drives the example game through the proxy and the daemon, then stops it', async () => {
  const home = tempHome();
  homes.push(home);
  const range = await freeRange(3);
  const { code, out } = await run(['demo', '--port-range', `${range[0]}-${range[2]}`], { GAME_BRIDGE_HOME: home });
  expect(out).toMatch(/through the proxy and the daemon/);
  expect(code).toBe(0);
  for (const step of [
    'list_instances:',
    'launch_instance:',
    'list_toolsets:',
    'describe_toolset play:',
    'call_tool start:',
    'call_tool drop',
    'call_tool wait_for',
    'call_tool get_state',
    'stop_instance:',
  ]) {
    expect(out).toContain(step);
  }
  const launched = /launch_instance: Crate Stack \S+ is up on port (\d+) \(pid (\d+)\)/.exec(out);
  expect(launched).not.toBeNull();
  const [port, pid] = [Number(launched![1]), Number(launched![2])];
  expect(range).toContain(port);
  expect(out).toMatch(/call_tool get_state \{path: "game"\}: score [1-9]\d*, stack height \d+, 3 crates/);
  expect(out).toMatch(new RegExp(`stop_instance: port ${port} stopped`));
  // the game is gone; the daemon the proxy started stays for the next client
  expect(await waitGone(pid, 5000)).toBe(true);
  expect(await healthOk(port)).toBe(false);
  // and the demo said so, with the daemon's pid and the command that stops it
  expectDaemonStays(home, out);
}, 120000);

test('demo --no-daemon runs the same walk with the engine in the proxy process', async () => {
  const home = tempHome();
  homes.push(home);
  const range = await freeRange(2);
  const { code, out } = await run(['demo', '--no-daemon', '--port-range', `${range[0]}-${range[1]}`], {
    GAME_BRIDGE_HOME: home,
  });
  expect(out).toMatch(/in-process engine/);
  expect(out).toMatch(/stop_instance: port \d+ stopped/);
  expect(code).toBe(0);
  // no daemon to speak of: it ends with how to register the server, and nothing about a daemon
  expect(out).toMatch(/Register the same server with your MCP client: claude mcp add/);
  expect(out).not.toMatch(/still running/);
}, 120000);

test('a failing step exits 1 naming the step and its error', async () => {
  const home = tempHome();
  homes.push(home);
  // GAME_BRIDGE_CONFIG reaches the session through the proxy's environment: a missing file makes launch_instance fail
  const { code, out } = await run(['demo', '--no-daemon'], {
    GAME_BRIDGE_HOME: home,
    GAME_BRIDGE_CONFIG: `${home}/missing/gamebridge.json`,
  });
  expect(code).toBe(1);
  expect(out).toMatch(
    /✖ demo failed at step 3: launch_instance \{\} failed:\n\s+BridgeUsageError: The launch declaration .*missing\/gamebridge\.json .* does not exist/,
  );
}, 60000);

test('demo --web plays the Phaser example in headless Chromium, saves a screenshot in a private folder and prints where', async () => {
  const home = tempHome();
  homes.push(home);
  const range = await freeRange(3);
  const { code, out } = await run(['demo', '--web', '--port-range', `${range[0]}-${range[2]}`], {
    GAME_BRIDGE_HOME: home,
  });
  expect(out).toMatch(/launch_instance: Star Catcher 1\.0\.0 joined on port \d+ from Chromium/);
  expect(out).toMatch(/a real key through the browser/);
  expect(out).toMatch(/stop_instance: port \d+ stopped \(closed cleanly\)/);
  const shot = /The screenshot is at (\S+\.png)/.exec(out)?.[1] ?? '';
  // a folder of its own that only this user can enter, never a fixed name another user could plant first
  homes.push(dirname(shot));
  expect(dirname(dirname(shot))).toBe(tmpdir());
  expect(statSync(dirname(shot)).mode & 0o777).toBe(0o700);
  expect(code).toBe(0);
  // the daemon it started stays for MCP clients, and the demo says so, as the Node demo does
  expectDaemonStays(home, out);
  const png = decodePng(readFileSync(shot));
  expect([png.width, png.height]).toEqual([1280, 720]);
  expect(distinctColours(png)).toBeGreaterThan(8);
}, 240000);
