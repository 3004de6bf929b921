/**
 * The dashboard seen from a browser, for the bench, the screenshots and the dashboard's tests
 * (test/helpers/browser.ts): the system's Chromium driven by playwright-core (never its own
 * download), and the page's one-time URL from the real `game-bridge-mcp dashboard` command.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { benchEnv, CLI, type Reaper } from './harness.js';

const run = promisify(execFile);
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface BrowserHandle {
  browser: Browser;
  /** the browser process, leader of its process group */
  pid: number | undefined;
  close(): Promise<void>;
}

/**
 * Headless Chromium; its process group is killed on close (and tracked by the reaper, when given).
 * `args` go after ours; `ignoreDefaultArgs` drops some of playwright's own switches.
 */
export async function startBrowser(
  reaper?: Pick<Reaper, 'track'>,
  opts: { args?: string[]; ignoreDefaultArgs?: string[] } = {},
): Promise<BrowserHandle> {
  const server = await chromium.launchServer({
    executablePath: CHROMIUM,
    args: [...ARGS, ...(opts.args ?? [])],
    ignoreDefaultArgs: opts.ignoreDefaultArgs,
    headless: true,
  });
  const pid = server.process().pid;
  reaper?.track(pid);
  const browser = await chromium.connect(server.wsEndpoint());
  return {
    browser,
    pid,
    async close() {
      await browser.close().catch(() => undefined);
      await server.close().catch(() => undefined);
      // playwright starts Chromium as a process-group leader: nothing of it may outlive the run
      if (pid) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    },
  };
}

/** `game-bridge-mcp dashboard --no-open` for `home`: the URL with a fresh one-time key. */
export async function dashboardUrl(home: string): Promise<string> {
  const env = benchEnv(home);
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  const { stdout } = await run(process.execPath, [CLI, 'dashboard', '--no-open'], { env, timeout: 60000 });
  return stdout.trim().split('\n').pop() ?? '';
}
