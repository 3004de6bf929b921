/**
 * A browser game launched like any other: the real CLI and daemon, the official SDK client,
 * Debian's Chromium, the built Phaser example (dist/examples/phaser-game). launch_instance
 * opens its page, the agent drives it with manifest tools and passthrough, waits for a state
 * change, sees it (the browser's screenshot) and plays it with real key events; a reload is a
 * restart; a daemon killed with -9 is succeeded by one that takes the page back; stop leaves
 * no Chromium, carrier or static server behind.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { chromium } from 'playwright-core';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { decodePng, distinctColours } from './helpers/png.js';
import { freeRange } from './helpers/ports.js';
import { alive, DIST, groupGone, removeDir, stopDaemon, tempHome, waitFor, waitGone } from './helpers/procs.js';

jest.setTimeout(240_000);

const PHASER_WWW = join(DIST, 'examples', 'phaser-game', 'www');
let home: string;
let project: string;
let h: McpHandle;
let port: number;
let record: { key: string; browser: { pid: number; cdpEndpoint: string; dir: string }; static: { port: number } };

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
  expect(record).toMatchObject({
    key: expect.any(String),
    headless: true,
    browser: { pid: inst.pid, cdpEndpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) },
  });
  expect(alive(inst.pid)).toBe(true);
  expect(progress.some((m) => /Chromium|the page/.test(m))).toBe(true);
  // The relayed port is a game like any other, to curl too.
  const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
  expect(health).toMatchObject({ ok: true, capabilities: ['input', 'clock', 'ui', 'world'] });
  const list = await call(h, 'list_instances');
  expect(list.json.live.find((l: any) => l.port === port)).toMatchObject({
    game: 'Star Catcher',
    launchedByThisBridge: true,
    owner: 'you',
  });
  const log = await call(h, 'instance_log', { port });
  expect(log.json.lines.join('\n')).toMatch(/page joined: Star Catcher 1\.0\.0/);
});

test('driven with manifest tools and passthrough; wait_for sees the state change', async () => {
  const sets = await call(h, 'list_toolsets', { port });
  expect(sets.json.toolsets.map((t: any) => t.name)).toEqual(expect.arrayContaining(['play', 'debug', 'bridge']));
  const start = await gameCall(h, port, 'start');
  expect(start.json).toMatchObject({ applied: true, via: 'manifest', confirmation: 'completedCommandId' });
  const moved = await gameCall(h, port, 'move_to', { x: 300 });
  expect(moved.json.game.basketX).toBe(300);
  const refused = await gameCall(h, port, 'fly_away');
  expect(refused.isError).toBe(true);
  expect(refused.text).toMatch(/^CommandRejected: .*fly_away/);
  expect(refused.text).toMatch(/move_to/);
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

test('key input through the browser moves the basket, owned by this session; a declared input goes to the kit', async () => {
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

test('a reload of the page is a restart: a wait in flight fails saying so', async () => {
  const waiting = gameCall(h, port, 'wait_for', { path: 'game.score', equals: -1, timeoutMs: 60_000 }, 90_000);
  await new Promise((r) => setTimeout(r, 500));
  const cdp = await chromium.connectOverCDP(record.browser.cdpEndpoint);
  try {
    const page = cdp
      .contexts()[0]
      .pages()
      .find((p) => p.url().includes('gamebridge='))!;
    await page.reload({ waitUntil: 'commit' });
  } finally {
    await cdp.close(); // only the connection: the browser is the daemon's
  }
  const r = await waiting;
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(/restart/i);
  await waitFor('the reloaded page', async () => (await gameCall(h, port, 'health')).json?.ok === true, 60_000, 250);
});

test('after the daemon is killed with -9, the next one takes the page back: same browser, same game process', async () => {
  await gameCall(h, port, 'start');
  // A key held when the daemon dies stays down in Chromium (no lease there): the successor lets go of it.
  await gameCall(h, port, 'hold', { input: 'ArrowLeft', ms: 600_000 });
  await waitFor('the held key recorded', () =>
    launched()
      .find((i) => i.port === port)
      .web.held?.includes('ArrowLeft'),
  );
  const frameBefore = (await gameCall(h, port, 'health')).json.frame as number;
  const daemon = JSON.parse(readFileSync(join(home, 'daemon', 'daemon.json'), 'utf8')).pid as number;
  process.kill(daemon, 'SIGKILL');
  await waitGone(daemon);
  // The proxy starts a new daemon, which re-adopts the web instance; the page's kit rejoins the new carrier.
  const after = await waitFor(
    'the page back',
    async () => {
      const r = await gameCall(h, port, 'health');
      return r.isError ? null : r.json;
    },
    60_000,
    250,
  );
  expect(after.frame).toBeGreaterThan(frameBefore); // the same page (a reload would restart the frame)
  expect(alive(record.browser.pid)).toBe(true);
  const list = await call(h, 'list_instances');
  expect(list.json.live.find((l: any) => l.port === port)).toMatchObject({ launchedByThisBridge: true });
  const moved = await gameCall(h, port, 'move_to', { x: 123 });
  expect(moved.json.game.basketX).toBe(123);
  await new Promise((r) => setTimeout(r, 500));
  expect(await state('game.basketX')).toBe(123); // ArrowLeft is up again
  expect(launched().find((i) => i.port === port).web.held).toBeUndefined();
  const shot = await gameCall(h, port, 'screenshot');
  expect(shot.json).toMatchObject({ source: 'browser', width: 1280 });
});

test('stop_instance closes the game through its page, then leaves no Chromium, carrier or static server', async () => {
  const stop = await call(h, 'stop_instance', { port });
  expect(stop.json).toMatchObject({ port, stopped: true, how: 'closed cleanly' });
  expect(await groupGone(record.browser.pid, 5000)).toBe(true);
  await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  await expect(fetch(`http://127.0.0.1:${record.static.port}/`)).rejects.toThrow();
  expect(launched().find((i) => i.port === port)).toBeUndefined();
});
