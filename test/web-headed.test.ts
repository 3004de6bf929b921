/**
 * A browser game declared `"headless": false` opens a real window on the launching session's
 * display, here a virtual X server (Xvfb), even though the shared daemon was started from a
 * terminal with no display at all. Driven through the real daemon, proxy and SDK client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { decodePng, distinctColours } from './helpers/png.js';
import { CLI, DIST, groupGone, Reaper, removeDir, stopDaemon, tempHome, waitFor } from './helpers/procs.js';
import { liveDaemon } from './helpers/fault.js';

const reaper = new Reaper();
let home = '';
let h: McpHandle | undefined;
let xvfb: ChildProcess | undefined;

afterAll(async () => {
  await h?.close();
  if (home) stopDaemon(home);
  xvfb?.kill('SIGKILL');
  await reaper.reap();
  if (home) removeDir(home);
});

/** Xvfb on a display number it picks itself (-displayfd), so parallel runs never collide. */
async function startXvfb(): Promise<string> {
  xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  reaper.track(xvfb.pid);
  let text = '';
  xvfb.stdio[3]!.on('data', (c: Buffer) => (text += c.toString()));
  const n = await waitFor('Xvfb to name its display', () => (/^\d+\n/.test(text) ? text.trim() : undefined), 20000);
  return `:${n}`;
}

/** The environment of a process, from /proc. */
function environOf(pid: number): Record<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

test('"headless": false opens Chromium on the session\'s display, not the daemon\'s, where screenshot, input and stop work', async () => {
  const display = await startXvfb();
  home = tempHome('gb-headed-');
  const dir = join(home, 'project');
  mkdirSync(dir);
  cpSync(join(DIST, 'examples', 'canvas-game', 'www'), join(dir, 'www'), { recursive: true });
  const [first] = await freeRange(2);
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({
      name: 'Headed',
      launch: { portRange: `${first}-${first + 1}`, web: { static: 'www', headless: false } },
    }),
  );
  // The daemon starts from a terminal without a display.
  const daemonEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_') && k !== 'DISPLAY' && k !== 'WAYLAND_DISPLAY')
      daemonEnv[k] = v;
  const daemon = reaper.spawn(process.execPath, [CLI, 'daemon'], { env: { ...daemonEnv, GAME_BRIDGE_HOME: home } });
  await liveDaemon(home, undefined, 60000);

  h = await connect({ env: { GAME_BRIDGE_HOME: home, DISPLAY: display }, cwd: dir, args: ['--no-scan'] });
  const r = await call(h, 'launch_instance', {}, 120_000);
  expect(r.isError).toBe(false);
  const { port, pid } = r.json as { port: number; pid: number };
  const rec = JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8')).instances[0];
  expect(rec.web.headless).toBe(false);
  const browser = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  expect(browser.some((a) => a.startsWith('--headless'))).toBe(false);
  expect(environOf(pid).DISPLAY).toBe(display);
  expect(environOf(daemon.pid!).DISPLAY).toBeUndefined();

  const click = await gameCall(h, port, 'press', { input: 'mouse:left@100,50' });
  expect(click.json).toMatchObject({ via: 'browser', game: { x: 100, y: 50, clicks: 1 } });
  const shot = await gameCall(h, port, 'screenshot');
  expect(shot.json).toMatchObject({ source: 'browser', width: 1280, height: 720 });
  const image = (shot.res as any).content.find((c: any) => c.type === 'image');
  const decoded = decodePng(Buffer.from(image.data, 'base64'));
  expect([decoded.width, decoded.height]).toEqual([1280, 720]);
  expect(distinctColours(decoded)).toBeGreaterThan(2);

  const stop = await call(h, 'stop_instance', { port });
  expect(stop.json).toMatchObject({ stopped: true });
  expect(await groupGone(pid, 5000)).toBe(true);
}, 240_000);
