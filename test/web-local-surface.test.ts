/**
 * A launched browser game's port is answered in-process (daemon/game/local-surfaces.ts) while its
 * game runs here: not after it stops or is handed over, again after a relaunch on the same port.
 * A browser game ends with its daemon: a successor reports it exited, and never signals a pid
 * that is no longer the one recorded. The launcher in this process, a real Chromium.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { GameClient } from '../daemon/game/client.js';
import { Launcher } from '../daemon/launcher/launcher.js';
import { reapAndReport } from './helpers/fault.js';
import { freeRange } from './helpers/ports.js';
import { alive, DIST, groupGone, removeDir, tempHome, waitFor } from './helpers/procs.js';
import { processStart } from '../shared/daemon-file.js';

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

test('a page served in-process lives exactly as long as its daemon, through stop and relaunch, as its successor reports', async () => {
  const { home, dir, port, env } = await dotProject();
  // Each launcher owns the registry its carriers are served in, and the daemon's clients ask it.
  let launcher = new Launcher({ home });
  const health = async () => {
    const client = new GameClient(port, { local: launcher.surfaces });
    try {
      return await client.health();
    } finally {
      client.close();
    }
  };
  try {
    expect((await launcher.launch({ cwd: dir, env })).port).toBe(port);
    const first = launcher.surfaces.get(port);
    expect(first).toBeDefined();
    expect((await health()).ok).toBe(true);

    await launcher.stop(port);
    expect(launcher.surfaces.get(port)).toBeUndefined();

    await launcher.launch({ cwd: dir, env });
    const second = launcher.surfaces.get(port);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    const browser = launched(home).find((i: { port: number }) => i.port === port).web.browser;

    launcher.dispose(); // a handover: its browser game ends with it
    expect(launcher.surfaces.get(port)).toBeUndefined();
    expect(await groupGone(browser.pid, 10_000)).toBe(true);
    await waitFor('the port let go', async () => !(await listening(port)), 10_000);
    launcher = new Launcher({ home });
    await launcher.readopt();
    expect(launcher.surfaces.get(port)).toBeUndefined();
    expect(launcher.list()).toEqual([]);
    const [exit] = launcher.exitedList();
    expect(exit).toMatchObject({ port, reason: expect.stringMatching(/^ended with the bridge daemon that opened/) });
    expect(existsSync(browser.dir)).toBe(false);
    expect(readFileSync(exit.logFile, 'utf8')).toMatch(/not re-adopted: this game ended with the bridge daemon/);
  } finally {
    await launcher.stop(port).catch(() => undefined);
    launcher.dispose();
    expect(launcher.surfaces.get(port)).toBeUndefined();
    await reapAndReport(home);
    removeDir(home);
  }
});

test('a successor never signals a recycled pid: browser and server pids now run other processes, which are left alone', async () => {
  const { home, dir, port, env } = await dotProject();
  const launcher = new Launcher({ home });
  // Two strangers in groups of their own, as recycled pids would be after a reboot.
  const strangers = [0, 1].map(() => spawn('sleep', ['300'], { detached: true, stdio: 'ignore' }));
  try {
    await launcher.launch({ cwd: dir, env });
    const browser = launched(home).find((i: { port: number }) => i.port === port).web.browser;
    launcher.dispose();
    expect(await groupGone(browser.pid, 10_000)).toBe(true);
    const file = JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8'));
    const web = file.instances.find((i: { port: number }) => i.port === port).web;
    const [b, s] = strangers.map((c) => c.pid!);
    web.browser = { ...web.browser, pid: b, pidStart: processStart(b)! - 1 };
    web.serverPgid = s;
    web.serverStart = processStart(s)! - 1;
    writeFileSync(join(home, 'daemon', 'launched.json'), JSON.stringify(file));

    const next = new Launcher({ home });
    await next.readopt();
    next.dispose();
    expect(next.exitedList().map((e) => e.port)).toEqual([port]);
    expect(strangers.map((c) => alive(c.pid!))).toEqual([true, true]);
  } finally {
    for (const c of strangers) c.kill('SIGKILL');
    launcher.dispose();
    await reapAndReport(home);
    removeDir(home);
  }
});

const launched = (home: string) =>
  JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8')).instances as any[];
