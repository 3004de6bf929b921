/**
 * A real Chromium page the daemon owns, driven through playwright-core (loaded only here, only
 * when a browser is opened: a daemon that never opens one never pays for it).
 *
 *   const b = await openBrowser({ url, headless: true, viewport: { width: 1280, height: 720 } });
 *   b.pid, b.record                    record {pid, pidStart, dir} in launched.json
 *   b.sandboxOff                       why Chromium's sandbox is off (root), or null
 *   b.consoleErrors()                  the page's uncaught errors, console.error lines, failed loads
 *   await b.screenshot()               PNG of the viewport, canvas and DOM together
 *   await b.press('ArrowLeft', 50)     also hold(name, ms?), release(name?), held()
 *                                      names: DOM keys, 'mouse:left@x,y', 'tap@x,y' (see inputs.ts)
 *   await b.reload()
 *   await b.close()                    ends the browser's process group, removes its profile
 *   await endChromium(record)          what a successor daemon does with a browser left behind
 *
 * Chromium: GAME_BRIDGE_CHROMIUM, else `chromium` on PATH (chromium.ts), launched by
 * playwright-core over a pipe: no DevTools port is open, so no other local user can drive it,
 * and it ends with the daemon that holds the pipe.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { browserEnv, browserPid, chromiumArgs, findChromium, killGroup, sandboxUnavailable } from './chromium.js';
import { BrowserHands } from './hands.js';
import { readConsole } from './page-console.js';
import { installPageTools, PageTools } from './page-tools.js';
import { loadModule } from '../../shared/load-module.js';
import { pidAlive, processStart, sameProcess } from '../../shared/daemon-file.js';

export interface BrowserRecord {
  pid: number;
  /** the start time of `pid`: a successor daemon signals the group only while it matches */
  pidStart?: number;
  /** Temporary folder of the profile. */
  dir: string;
}

export interface OpenBrowserOptions {
  url: string;
  /** Default true; false opens a window a person can watch. */
  headless?: boolean;
  /** CSS pixels of the page's viewport (default 1280×720). */
  viewport?: { width: number; height: number };
  env?: NodeJS.ProcessEnv;
  /** How long the page's server may take to answer (default 30 s); the page then loads on its own. */
  loadTimeoutMs?: number;
  /** Source run in the page before its own scripts, on every load (page-clock.ts). */
  initScript?: string;
  /** Every console line and uncaught error of the page, as it happens (for the instance's log). */
  onConsole?: (line: string) => void;
  /**
   * Chromium's pid (0 where it cannot be told), once it runs and before it is sent to the page:
   * whoever must recognise the page's connections (the page carrier) knows it before the page
   * can make one.
   */
  onStarted?: (pid: number) => void;
}

export interface WebBrowser {
  readonly pid: number;
  readonly record: BrowserRecord;
  /** Why Chromium's sandbox is off, or null when it is on. */
  readonly sandboxOff: string | null;
  /** The Playwright page, for what this API does not cover. */
  readonly page: Page;
  /** The tools the page registers through WebMCP (page-tools.ts). */
  readonly tools: PageTools;
  consoleErrors(): string[];
  screenshot(): Promise<Buffer>;
  press(input: string, holdMs?: number): Promise<void>;
  hold(input: string, ms?: number): Promise<void>;
  release(input?: string): Promise<void>;
  held(): string[];
  reload(): Promise<void>;
  /** Called once if the browser goes away by itself (crash, killed, window closed). */
  onGone(listener: (why: string) => void): void;
  close(): Promise<void>;
}

const MAX_ERRORS = 50;
const MAX_ERROR_CHARS = 2000;
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };
const PROFILE_PREFIX = 'gb-chromium-';
const LAUNCH_TIMEOUT_MS = 30_000;

/**
 * Starts Chromium and opens `url` in its tab; the page's errors are collected from before its
 * first byte (the listeners are on the tab before it navigates).
 */
export async function openBrowser(options: OpenBrowserOptions): Promise<WebBrowser> {
  const executable = findChromium(options.env);
  const viewport = options.viewport ?? DEFAULT_VIEWPORT;
  const { chromium } = await loadModule<typeof import('playwright-core')>('playwright-core');
  const dir = mkdtempSync(join(tmpdir(), PROFILE_PREFIX));
  const profile = join(dir, 'profile');
  const sandboxOff = sandboxUnavailable();
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: executable,
      headless: options.headless ?? true,
      chromiumSandbox: sandboxOff === null,
      args: chromiumArgs(viewport),
      viewport,
      env: browserEnv(options.env),
      timeout: LAUNCH_TIMEOUT_MS,
      // The daemon ends its games itself, on its own signals.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Chromium (${executable}) did not start: ${clipLines((e as Error).message, 12)}`);
  }
  const pid = browserPid(profile);
  const record: BrowserRecord = { pid: pid ?? 0, pidStart: pid ? processStart(pid) : undefined, dir };
  options.onStarted?.(record.pid);
  try {
    let tools: PageTools | undefined;
    await installPageTools(context, () => tools?.changed());
    if (options.initScript) await context.addInitScript({ content: options.initScript });
    const page = context.pages()[0] ?? (await context.newPage());
    tools = new PageTools(page);
    const b = await wrap(context, page, tools, record, sandboxOff, options.onConsole);
    // Committed is enough: the page's own join is the readiness signal, and its errors keep
    // being collected (a 1.4 MB engine can take long to run on a loaded machine).
    await page
      .goto(options.url, { waitUntil: 'commit', timeout: options.loadTimeoutMs ?? 30_000 })
      .catch((e: Error) => {
        const errors = b.consoleErrors();
        throw new Error(
          `the page ${options.url} did not load: ${e.message.split('\n')[0]}${errors.length ? `; console errors:\n${errors.join('\n')}` : ''}`,
        );
      });
    return b;
  } catch (e) {
    await context.close().catch(() => undefined);
    await endChromium(record);
    throw e;
  }
}

async function wrap(
  context: BrowserContext,
  page: Page,
  tools: PageTools,
  record: BrowserRecord,
  sandboxOff: string | null,
  onConsole?: (line: string) => void,
): Promise<WebBrowser> {
  const errors: string[] = [];
  const note = (line: string) => {
    errors.push(line.length > MAX_ERROR_CHARS ? `${line.slice(0, MAX_ERROR_CHARS)}…` : line);
    if (errors.length > MAX_ERRORS) errors.shift();
    if (!line.startsWith('console.error: ')) onConsole?.(line);
  };
  page.on('pageerror', (e) => {
    note(`uncaught ${e.name}: ${e.message}`);
    // its stack under it, as Node prints one: the game's errors are read from the log with it
    for (const at of (e.stack ?? '')
      .split('\n')
      .filter((l) => /^\s+at /.test(l))
      .slice(0, 20))
      onConsole?.(at);
  });
  const stopConsole = await readConsole(page, (type, text) => {
    onConsole?.(`console.${type}: ${text}`);
    if (type === 'error') note(`console.error: ${text}`);
  });
  page.on('requestfailed', (r) => note(`failed to load ${r.url()}: ${r.failure()?.errorText ?? 'unknown error'}`));
  const hands = new BrowserHands(page);
  let cdp: CDPSession | undefined;
  let ending = false;
  let goneListener: ((why: string) => void) | null = null;
  context.on('close', () => {
    if (!ending) goneListener?.(`Chromium (pid ${record.pid}) went away`);
  });

  return {
    pid: record.pid,
    record,
    sandboxOff,
    page,
    tools,
    consoleErrors: () => [...errors],
    // CDP directly, with the fast encoder: Playwright's screenshot adds its own waits (about a third more here).
    screenshot: async () => {
      cdp ??= await page.context().newCDPSession(page);
      const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true });
      return Buffer.from(data, 'base64');
    },
    press: (input, holdMs) => hands.press(input, holdMs),
    hold: (input, ms) => hands.hold(input, ms),
    release: (input) => hands.release(input),
    held: () => hands.heldNow(),
    reload: async () => {
      await hands.release().catch(() => undefined);
      await page.reload({ waitUntil: 'commit' });
    },
    onGone: (listener) => {
      goneListener = listener;
    },
    async close() {
      ending = true;
      stopConsole();
      // a page stuck in its own code takes no key and closes no context: its processes end all the same
      await within(
        hands.release().catch(() => undefined),
        1000,
      );
      await within(
        context.close().catch(() => undefined),
        3000,
      );
      await endChromium(record);
    },
  };
}

/** `work`, or nothing once `ms` passed. */
function within(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise((r) => (timer = setTimeout(r, ms)))]).finally(() => clearTimeout(timer));
}

/**
 * Ends a Chromium we started (its whole process group) and removes its profile folder: nothing
 * of it is left. A leader still running is signalled only while it is the process recorded (its
 * start time matches: a recycled pid is a stranger's); once the leader is gone, what is left of
 * its group is ours (Linux hands out no pid still in use as a group id).
 */
export async function endChromium(record: BrowserRecord): Promise<void> {
  if (record.pid > 0 && groupStillOurs(record.pid, record.pidStart)) {
    killGroup(record.pid);
    await groupGone(record.pid, 5000);
  }
  // Only a profile folder of ours: launched.json names it, and a file is not proof of anything.
  if (basename(record.dir).startsWith(PROFILE_PREFIX) && dirname(record.dir) === tmpdir())
    rmSync(record.dir, { recursive: true, force: true });
}

/** The group led by `pid` is the one recorded with `start` (see endChromium). */
export function groupStillOurs(pid: number, start: number | undefined): boolean {
  return pidAlive(pid) ? start !== undefined && sameProcess(pid, start) : true;
}

// The group is gone once signal 0 to it fails (its members reaped by whoever parented them).
async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The first `n` lines of a message (playwright's launch errors carry the browser's whole log). */
function clipLines(text: string, n: number): string {
  const lines = text.split('\n');
  return lines.length > n ? `${lines.slice(0, n).join('\n')}\n…` : text;
}
