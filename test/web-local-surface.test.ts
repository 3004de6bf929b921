/**
 * A launched browser game's port is answered in-process (daemon/game/local-surfaces.ts) while its
 * game runs here: not after it stops or is handed over, again after a relaunch on the same port
 * and after a successor re-adopts it. The launcher in this process, a real Chromium.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { GameClient } from '../daemon/game/client.js';
import { localSurface } from '../daemon/game/local-surfaces.js';
import { Launcher } from '../daemon/launcher/launcher.js';
import { reapAndReport } from './helpers/fault.js';
import { freeRange } from './helpers/ports.js';
import { DIST, groupGone, removeDir, tempHome, waitFor } from './helpers/procs.js';

jest.setTimeout(180_000);

const CANVAS_WWW = join(DIST, 'examples', 'canvas-game', 'www');

/** Does anything accept a connection on 127.0.0.1:`port`? */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** A home with a project declaring the canvas example on one port; the launch's environment. */
async function dotProject(): Promise<{ home: string; dir: string; port: number; env: Record<string, string> }> {
  const home = tempHome('gb-weblocal-');
  const dir = join(home, 'project');
  mkdirSync(dir);
  const [port] = await freeRange(1);
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({ name: 'Dot', launch: { portRange: `${port}-${port}`, web: { static: CANVAS_WWW } } }),
  );
  return { home, dir, port, env: { ...(process.env as Record<string, string>), GAME_BRIDGE_HOME: home } };
}

test('served in-process while it runs here: stop, relaunch, handover and re-adoption', async () => {
  const { home, dir, port, env } = await dotProject();
  let launcher = new Launcher({ home });
  const health = async () => {
    const client = new GameClient(port);
    try {
      return await client.health();
    } finally {
      client.close();
    }
  };
  try {
    expect((await launcher.launch({ cwd: dir, env })).port).toBe(port);
    const first = localSurface(port);
    expect(first).toBeDefined();
    expect((await health()).ok).toBe(true);

    await launcher.stop(port);
    expect(localSurface(port)).toBeUndefined();

    await launcher.launch({ cwd: dir, env });
    const second = localSurface(port);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);

    launcher.dispose(); // a handover: the browser stays for the successor
    expect(localSurface(port)).toBeUndefined();
    // the old carrier lets the port go (a daemon handing over exits; this one only closes it)
    await waitFor('the port let go', async () => !(await listening(port)), 10_000);
    launcher = new Launcher({ home });
    await launcher.readopt();
    expect(localSurface(port)).toBeDefined();
    expect((await health()).ok).toBe(true);
  } finally {
    await launcher.stop(port).catch(() => undefined);
    launcher.dispose();
    expect(localSurface(port)).toBeUndefined();
    await reapAndReport(home);
    removeDir(home);
  }
});

test('a re-adoption that cannot take the port back ends the browser and removes its profile', async () => {
  const { home, dir, port, env } = await dotProject();
  const launcher = new Launcher({ home });
  const squatter = net.createServer();
  let next: Launcher | undefined;
  try {
    await launcher.launch({ cwd: dir, env });
    const launched = JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8'));
    const browser = launched.instances.find((i: { port: number }) => i.port === port).web.browser;
    launcher.dispose();
    await waitFor('the port let go', async () => !(await listening(port)), 10_000);
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));

    next = new Launcher({ home });
    await next.readopt();
    expect(localSurface(port)).toBeUndefined();
    expect(await groupGone(browser.pid, 10_000)).toBe(true);
    expect(existsSync(browser.dir)).toBe(false);
  } finally {
    squatter.close();
    next?.dispose();
    launcher.dispose();
    await reapAndReport(home);
    removeDir(home);
  }
});
