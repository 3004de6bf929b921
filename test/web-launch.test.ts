/**
 * A browser game launched like any other: the real CLI and daemon, the official SDK client,
 * Debian's Chromium, the built Phaser example (dist/examples/phaser-game). launch_instance
 * opens its page, the agent drives it with manifest tools and passthrough, waits for a state
 * change, sees it (the browser's screenshot) and plays it with real key events; a reload is a
 * restart; no port of the browser can be driven (it is spoken to over a pipe); a daemon killed
 * with -9 takes its browser game with it and the successor says so; stop leaves no Chromium,
 * carrier or static server behind.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { publishedDaemon } from './helpers/fault.js';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { decodePng, distinctColours } from './helpers/png.js';
import { freeRange } from './helpers/ports.js';
import {
  alive,
  DIST,
  groupGone,
  listeningPortsOf,
  removeDir,
  stopDaemon,
  tempHome,
  waitFor,
  waitGone,
} from './helpers/procs.js';

jest.setTimeout(240_000);

const PHASER_WWW = join(DIST, 'examples', 'phaser-game', 'www');
let home: string;
let project: string;
let h: McpHandle;
let port: number;
let record: { browser: { pid: number; pidStart: number; dir: string }; static: { port: number } };

beforeAll(async () => {
  home = tempHome('gb-weblaunch-');
  project = join(home, 'project');
  mkdirSync(project);
  const [first] = await freeRange(3);
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify({
      name: 'Star Catcher',
      launch: { portRange: `${first}-${first + 2}`, readyTimeoutMs: 90_000, web: { static: PHASER_WWW } },
    }),
  );
  h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: project, args: ['--no-scan', '--timeout', '10000'] });
});

afterAll(async () => {
  await h?.close();
  stopDaemon(home);
  if (record) await groupGone(record.browser.pid, 5000);
  removeDir(home);
});

const launched = () => JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8')).instances as any[];
const state = async (path: string) => (await gameCall(h, port, 'get_state', { path })).json.value;

test('launch_instance opens the Phaser page in Chromium and returns once it joined and answers /health', async () => {
  const progress: string[] = [];
  const res = (await h.client.callTool({ name: 'launch_instance', arguments: {} }, undefined, {
    timeout: 120_000,
    onprogress: (p) => void progress.push(String(p.message)),
  })) as any;
  expect(res.isError).toBeFalsy();
  const inst = res.structuredContent;
  port = inst.port;
  expect(inst).toMatchObject({
    name: 'Star Catcher',
    version: '1.0.0',
    pid: expect.any(Number),
    readyInMs: expect.any(Number),
  });
  record = launched().find((i) => i.port === port).web;
  expect(record).toMatchObject({ headless: true, browser: { pid: inst.pid, pidStart: expect.any(Number) } });
  expect(record).not.toHaveProperty('key'); // the carrier's key is nowhere on disk
  expect(alive(inst.pid)).toBe(true);
  expect(progress.some((m) => /Chromium|the page/.test(m))).toBe(true);
  // The relayed port is a game like any other, to curl too.
  const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
  expect(health).toMatchObject({
    ok: true,
    capabilities: ['input', 'pointer', 'touch', 'axis', 'text', 'clock', 'ui', 'world'],
  });
  const list = await call(h, 'list_instances');
  expect(list.json.live.find((l: any) => l.port === port)).toMatchObject({
    game: 'Star Catcher',
    launchedByThisBridge: true,
    owner: 'you',
  });
  const log = await call(h, 'instance_log', { port });
  expect(log.json.lines.join('\n')).toMatch(/page joined: Star Catcher 1\.0\.0/);
});

test('a browser game is driven with its manifest tools', async () => {
  const sets = await call(h, 'list_toolsets', { port });
  expect(sets.json.toolsets.map((t: any) => t.name)).toEqual(expect.arrayContaining(['play', 'debug', 'bridge']));
  const start = await gameCall(h, port, 'start');
  expect(start.json).toMatchObject({ applied: true, via: 'manifest', confirmation: 'completedCommandId' });
  const moved = await gameCall(h, port, 'move_to', { x: 300 });
  expect(moved.json.game.basketX).toBe(300);
});

test('a browser game refuses a name it does not know, naming the ones it has', async () => {
  const refused = await gameCall(h, port, 'fly_away');
  expect(refused.isError).toBe(true);
  expect(refused.text).toMatch(/^CommandRejected: .*fly_away/);
  expect(refused.text).toMatch(/move_to/);
});

test("wait_for sees a browser game's state change", async () => {
  await gameCall(h, port, 'move_to', { x: 300 });
  await gameCall(h, port, 'spawn', { x: 300 });
  const caught = await gameCall(h, port, 'wait_for', { path: 'game.caught', gte: 1, timeoutMs: 20_000 });
  expect(caught.json).toMatchObject({ matched: true, value: expect.any(Number) });
});

test("screenshot is the browser's: a 1280×720 PNG of the page, not blank, with the frame it was taken at", async () => {
  const shot = await gameCall(h, port, 'screenshot');
  expect(shot.isError).toBe(false);
  expect(shot.json).toMatchObject({
    source: 'browser',
    mimeType: 'image/png',
    width: 1280,
    height: 720,
    frame: expect.any(Number),
  });
  const image = (shot.res as any).content.find((c: any) => c.type === 'image');
  const png = Buffer.from(image.data, 'base64');
  const decoded = decodePng(png);
  expect([decoded.width, decoded.height]).toEqual([1280, 720]);
  expect(distinctColours(decoded)).toBeGreaterThan(8);
  writeFileSync(join(home, 'star-catcher.png'), png);
  if (process.env.WEB_SHOT) writeFileSync(process.env.WEB_SHOT, png);
});

test('key input goes through the browser, owned by this session, unless the kit declares it', async () => {
  await gameCall(h, port, 'move_to', { x: 400 });
  const held = await gameCall(h, port, 'hold', { input: 'ArrowLeft', ms: 20_000 });
  expect(held.json).toMatchObject({ via: 'browser', input: 'ArrowLeft', held: ['ArrowLeft'] });
  const list = await call(h, 'list_instances');
  expect(list.json.live.find((l: any) => l.port === port).held).toEqual(
    expect.arrayContaining([expect.objectContaining({ input: 'ArrowLeft', owner: 'you', via: 'browser' })]),
  );
  await gameCall(h, port, 'wait_for', { path: 'game.basketX', lt: 300, timeoutMs: 10_000 });
  const released = await gameCall(h, port, 'release', { input: 'ArrowLeft' });
  expect(released.json).toMatchObject({ via: 'browser', inputs: ['ArrowLeft'] });
  const x1 = await state('game.basketX');
  await new Promise((r) => setTimeout(r, 300));
  expect(await state('game.basketX')).toBe(x1); // released: it no longer moves
  // Paused, a press of the kit's own `right` for 5 frames moves it exactly 5 × 8 px (a fresh
  // round first: on a loaded machine the stars may have ended the last one, and a basket on the
  // game-over screen does not move).
  await gameCall(h, port, 'start');
  await gameCall(h, port, 'move_to', { x: 400 });
  await gameCall(h, port, 'pause');
  const sim = (await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value as number;
  expect((await gameCall(h, port, 'step', { frames: 5 })).json).toMatchObject({ stepped: 5, applied: true });
  expect((await gameCall(h, port, 'get_state', { path: 'simFrame' })).json.value).toBe(sim + 5);
  const press = await gameCall(h, port, 'press', { input: 'right', frames: 5 });
  expect(press.json).toMatchObject({ applied: true, game: { basketX: 440 } });
  expect(press.json.via).toBe('bridge'); // the kit's input, not the browser's
  // ... and a browser key pressed while paused is held for exactly the frames stepped.
  const key = await gameCall(h, port, 'press', { input: 'ArrowLeft', frames: 3 });
  expect(key.json).toMatchObject({ via: 'browser', game: { basketX: 416 } });
  await gameCall(h, port, 'resume');
  const bad = await gameCall(h, port, 'press', { input: 'left arrow' });
  expect(bad.text).toMatch(
    /^BridgeUsageError: 'left arrow' is neither an input the game declares \(left, right\) nor one the browser can send/,
  );
});

test('no port of the browser can be driven: it is spoken to over a pipe, sandboxed unless the daemon is root', async () => {
  const pid = record.browser.pid;
  expect(listeningPortsOf(pid)).toEqual([]);
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  expect(args).toContain('--remote-debugging-pipe');
  expect(args.some((a) => a.startsWith('--remote-debugging-port'))).toBe(false);
  const log = (await call(h, 'instance_log', { port, lines: 200 })).json.lines.join('\n');
  if (process.getuid?.() === 0) {
    expect(args).toContain('--no-sandbox');
    expect(log).toMatch(/Chromium's sandbox is off: the daemon runs as root/);
  } else {
    expect(args).not.toContain('--no-sandbox');
    expect(log).not.toMatch(/sandbox is off/);
  }
});

describe('after the daemon is killed with -9', () => {
  test('its browser game is gone with it', async () => {
    const daemon = publishedDaemon(home).pid;
    process.kill(daemon, 'SIGKILL');
    await waitGone(daemon);
    expect(await groupGone(record.browser.pid, 15_000)).toBe(true); // its pipe closed: Chromium ends
  });

  test('the next daemon says the game ended with it and what to do', async () => {
    // The proxy starts a new daemon; a call to the port is told what happened.
    const r = await waitFor(
      'the successor',
      async () => {
        const a = await gameCall(h, port, 'health');
        return /GameExited/.test(a.text) ? a : null;
      },
      60_000,
      250,
    );
    expect(r.text).toMatch(/ended with the bridge daemon that opened its browser/);
    const list = await call(h, 'list_instances');
    expect(list.json.live.find((l: any) => l.port === port)).toBeUndefined();
    expect(list.json.exited.find((e: any) => e.port === port)).toMatchObject({
      how: expect.stringMatching(/^ended with the bridge daemon that opened its browser/),
      next: expect.stringContaining(`launch_instance {restart: ${port}}`),
    });
    await expect(fetch(`http://127.0.0.1:${record.static.port}/`)).rejects.toThrow();
    expect(existsSync(record.browser.dir)).toBe(false);
  }, 90_000);

  test('the restart the next daemon names brings the game back on its port', async () => {
    const again = await h.client.callTool({ name: 'launch_instance', arguments: { restart: port } }, undefined, {
      timeout: 120_000,
    });
    expect((again as any).isError).toBeFalsy();
    record = launched().find((i) => i.port === port).web;
    expect((await gameCall(h, port, 'health')).json).toMatchObject({ ok: true });
  }, 150_000);
});

test('stop_instance closes the game through its page, then leaves no Chromium, carrier or static server', async () => {
  const stop = await call(h, 'stop_instance', { port });
  expect(stop.json).toMatchObject({ port, stopped: true, how: 'closed cleanly' });
  expect(await groupGone(record.browser.pid, 5000)).toBe(true);
  await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  await expect(fetch(`http://127.0.0.1:${record.static.port}/`)).rejects.toThrow();
  expect(launched().find((i) => i.port === port)).toBeUndefined();
});
