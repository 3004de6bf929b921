/**
 * Debian's Chromium as playwright-core launches it (browser.ts): found on PATH (or named by
 * GAME_BRIDGE_CHROMIUM), spoken to over a pipe only the daemon holds (`--remote-debugging-pipe`:
 * no DevTools port another local user could reach), sandboxed unless it cannot be, in its own
 * process group with its own temporary profile. It ends with its daemon (docs/DECISIONS.md,
 * "A browser game ends with its daemon").
 */
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromiumMissing } from '../../shared/errors.js';
import { WEBMCP_FEATURE } from './page-tools.js';

export const CHROMIUM_INSTALL = 'apt-get install -y chromium';

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

/**
 * Flags on top of playwright's own (which add the pipe, the profile, headless and the sandbox
 * switch): WebGL through SwiftShader (no GPU needed), quiet, timers never throttled, WebMCP on.
 */
export function chromiumArgs(size: { width: number; height: number }): string[] {
  return [
    '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader',
    // Software compositing: WebGL stays on SwiftShader, but frames and screenshots skip a GL
    // readback through it, which is what a GPU-less machine spends most of a frame on.
    '--disable-gpu-compositing',
    '--disable-background-networking',
    // Nothing a game page needs, all started with the browser: extensions, default apps, the
    // omnibox's WebUI popup renderer, search preconnects and hint downloads. Leaving them out
    // shortens the launch and keeps a local game tool from calling outside servers.
    '--disable-extensions',
    '--disable-component-extensions-with-background-pages',
    '--disable-default-apps',
    '--disable-field-trial-config',
    '--disable-features=AimEnabled,OptimizationHints,NetworkTimeServiceQuerying,PreconnectToSearch,MediaRouter,LensOverlay,WebUIOmniboxPopup',
    '--disable-component-update',
    // A page's own tools (document.modelContext) are one of its doors (page-tools.ts).
    WEBMCP_FEATURE,
    '--disable-sync',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-timer-throttling',
    '--disable-backgrounding-occluded-windows',
    '--disable-renderer-backgrounding',
    `--window-size=${size.width},${size.height}`,
  ];
}

/**
 * Why Chromium's sandbox cannot run here, or null when it can. As root Chromium refuses to start
 * sandboxed (it would need a user namespace it does not make for root); every other user gets
 * the sandbox.
 */
export function sandboxUnavailable(): string | null {
  if (process.getuid?.() === 0)
    return "Chromium's sandbox is off: the daemon runs as root, where Chromium cannot sandbox its pages without a user namespace; run the bridge as an ordinary user to have it on";
  return null;
}

/** What tells a program which screen it opens on. */
const DISPLAY_VARS = ['DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'XDG_RUNTIME_DIR'];

/**
 * The daemon's environment with the launching session's display: the daemon is shared and may
 * have been started from another terminal (or none), but a headed game opens where its agent runs.
 */
export function browserEnv(session: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  if (!session) return process.env;
  const env = { ...process.env };
  for (const name of DISPLAY_VARS) {
    if (session[name] !== undefined) env[name] = session[name];
    else delete env[name];
  }
  return env;
}

/**
 * The browser process playwright started on the profile `userDataDir`: our child whose command
 * line names it (Linux; undefined elsewhere, or when it cannot be told).
 */
export function browserPid(userDataDir: string): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const flag = `--user-data-dir=${userDataDir}`;
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) > 57) continue; // not a pid
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || Number(ppid) !== process.pid) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(flag)) return Number(name);
    } catch {
      /* gone meanwhile */
    }
  }
  return undefined;
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
