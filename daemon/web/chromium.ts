/**
 * Debian's Chromium as a process we own: found on PATH (or named by GAME_BRIDGE_CHROMIUM),
 * started in its own process group with its own temporary profile and a DevTools port, so
 * playwright-core can connect over CDP and a restarted daemon can connect again. We start it
 * ourselves rather than through playwright's launch(): a browser launched that way dies with
 * the connection, and a daemon killed with -9 must be able to find its pages again.
 */
import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { chromiumMissing } from '../../shared/errors.js';

export const CHROMIUM_INSTALL = 'apt-get install -y chromium';

export interface ChromiumProcess {
  pid: number;
  /** http://127.0.0.1:<port>, for chromium.connectOverCDP. */
  cdpEndpoint: string;
  /** ws://127.0.0.1:<port>/devtools/browser/<id>: the same browser without asking /json/version first. */
  wsEndpoint: string;
  /** Temporary folder holding the profile and chromium.log; removed when the browser is closed. */
  dir: string;
  logFile: string;
}

/** The Chromium executable: GAME_BRIDGE_CHROMIUM, else chromium / chromium-browser on PATH. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GAME_BRIDGE_CHROMIUM) {
    if (executable(env.GAME_BRIDGE_CHROMIUM)) return env.GAME_BRIDGE_CHROMIUM;
    throw chromiumMissing(
      `GAME_BRIDGE_CHROMIUM names '${env.GAME_BRIDGE_CHROMIUM}', which is not an executable file; fix the variable or unset it`,
    );
  }
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of ['chromium', 'chromium-browser']) {
      if (executable(join(dir, name))) return join(dir, name);
    }
  }
  throw chromiumMissing(
    `browser games need Chromium, and none is on PATH. Install it (Debian/Ubuntu: sudo ${CHROMIUM_INSTALL}) or set GAME_BRIDGE_CHROMIUM to its path`,
  );
}

/** The flags: headless by default, WebGL through SwiftShader (no GPU needed), quiet, timers never throttled. */
export function chromiumArgs(
  userDataDir: string,
  headless: boolean,
  size: { width: number; height: number },
): string[] {
  return [
    ...(headless ? ['--headless=new'] : []),
    '--no-sandbox',
    '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader',
    // Software compositing: WebGL stays on SwiftShader, but frames and screenshots skip a GL
    // readback through it (side by side: launch → ready −25%, screenshot −30%; PERFORMANCE.md).
    '--disable-gpu-compositing',
    '--disable-background-networking',
    // Nothing a game page needs, all started with the browser: extensions, default apps, the
    // omnibox's WebUI popup renderer, search preconnects and hint downloads (launch −6% side by
    // side; docs/PERFORMANCE.md "Seventh round").
    '--disable-extensions',
    '--disable-component-extensions-with-background-pages',
    '--disable-default-apps',
    '--disable-field-trial-config',
    '--disable-features=AimEnabled,OptimizationHints,NetworkTimeServiceQuerying,PreconnectToSearch,MediaRouter,LensOverlay,WebUIOmniboxPopup',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-timer-throttling',
    '--disable-backgrounding-occluded-windows',
    '--disable-renderer-backgrounding',
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    `--user-data-dir=${userDataDir}`,
    `--window-size=${size.width},${size.height}`,
    'about:blank',
  ];
}

/**
 * Starts Chromium detached in its own group, its output to a file (not a pipe: it must outlive a
 * killed daemon); resolves once it wrote its DevTools port to the profile's DevToolsActivePort.
 */
export async function startChromium(opts: {
  executable: string;
  headless: boolean;
  size: { width: number; height: number };
  timeoutMs?: number;
  /** the launching session's environment: a headed browser opens on its display */
  env?: NodeJS.ProcessEnv;
}): Promise<ChromiumProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'gb-chromium-'));
  const userDataDir = join(dir, 'profile');
  const logFile = join(dir, 'chromium.log');
  const out = openSync(logFile, 'a');
  const child = spawn(opts.executable, chromiumArgs(userDataDir, opts.headless, opts.size), {
    detached: true,
    stdio: ['ignore', out, out],
    env: browserEnv(opts.env),
  });
  closeSync(out);
  let exited: string | null = null;
  child.on('exit', (code, signal) => (exited = signal ?? `code ${code}`));
  child.on('error', (e) => (exited = `could not start: ${e.message}`));
  child.unref();
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const active = devToolsActive(userDataDir);
    if (active && child.pid)
      return {
        pid: child.pid,
        cdpEndpoint: `http://127.0.0.1:${active.port}`,
        wsEndpoint: `ws://127.0.0.1:${active.port}${active.path}`,
        dir,
        logFile,
      };
    const why = exited
      ? `exited at start (${exited})`
      : Date.now() > deadline
        ? `did not open its DevTools port within ${opts.timeoutMs ?? 30_000} ms`
        : null;
    if (why) {
      const tail = readTail(logFile);
      if (child.pid) killGroup(child.pid);
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`Chromium (${opts.executable}) ${why}. Its last output:\n${tail}`);
    }
    // Short: every millisecond here is launch time, and reading a missing file costs next to nothing.
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What tells a program which screen it opens on. */
const DISPLAY_VARS = ['DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'XDG_RUNTIME_DIR'];

/**
 * The daemon's environment with the launching session's display: the daemon is shared and may
 * have been started from another terminal (or none), but a headed game opens where its agent runs.
 */
function browserEnv(session: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  if (!session) return process.env;
  const env = { ...process.env };
  for (const name of DISPLAY_VARS) {
    if (session[name] !== undefined) env[name] = session[name];
    else delete env[name];
  }
  return env;
}

/** The port and browser path in <profile>/DevToolsActivePort (two lines), or null until Chromium wrote both. */
function devToolsActive(userDataDir: string): { port: number; path: string } | null {
  try {
    const [first, path] = readFileSync(join(userDataDir, 'DevToolsActivePort'), 'utf8').split('\n');
    const port = Number(first);
    return Number.isInteger(port) && port > 0 && path?.startsWith('/devtools/browser/') ? { port, path } : null;
  } catch {
    return null;
  }
}

/** The last lines of Chromium's output, for an error message. */
export function readTail(logFile: string, lines = 12): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

/** SIGKILL to the browser's whole process group (renderers, GPU, zygote). */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
