/**
 * A real Chromium page the daemon owns, driven through playwright-core (loaded only here, only
 * when a browser is opened: a daemon that never opens one never pays for it).
 *
 *   const b = await openBrowser({ url, headless: true, viewport: { width: 1280, height: 720 } });
 *   b.pid, b.cdpEndpoint, b.record     record {pid, cdpEndpoint, dir, logFile} in launched.json
 *   b.consoleErrors()                  the page's uncaught errors, console.error lines, failed loads
 *   await b.screenshot()               PNG of the viewport, canvas and DOM together
 *   await b.press('ArrowLeft', 50)     also hold(name, ms?), release(name?), held()
 *                                      names: DOM keys, 'mouse:left@x,y', 'tap@x,y' (see inputs.ts)
 *   await b.reload()
 *   await b.close()                    kills the browser's process group, removes its profile
 *   await b.disconnect()               leaves the browser running (a daemon handing over)
 *   const again = await attachBrowser(record)   a restarted daemon takes the page back over CDP
 *
 * Chromium: GAME_BRIDGE_CHROMIUM, else `chromium` on PATH (chromium.ts), started by us in its
 * own process group so that it outlives a daemon killed with -9 and can be re-attached.
 */
import { rmSync } from 'node:fs';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { findChromium, killGroup, readTail, startChromium } from './chromium.js';
import { BrowserHands } from './hands.js';
import { openTab, type TabOpener } from './page-opener.js';
import { loadModule } from '../../shared/load-module.js';

export interface BrowserRecord {
  pid: number;
  cdpEndpoint: string;
  /** Temporary folder of the profile and chromium.log. */
  dir: string;
  logFile: string;
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
  /** Every console line and uncaught error of the page, as it happens (for the instance's log). */
  onConsole?: (line: string) => void;
}

export interface WebBrowser {
  readonly pid: number;
  readonly cdpEndpoint: string;
  readonly record: BrowserRecord;
  /** The Playwright page, for what this API does not cover. */
  readonly page: Page;
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
  disconnect(): Promise<void>;
}

const MAX_ERRORS = 50;
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };

/**
 * Starts Chromium and opens `url` in its tab; the page's errors are collected from before its
 * first byte. playwright-core loads while Chromium starts, and attaches while the page loads:
 * a plain CDP session (page-opener.ts) turns the error reporting on and navigates first.
 * (Starting Chromium on `url` itself was tried: errors thrown before any attach are lost.)
 */
export async function openBrowser(options: OpenBrowserOptions): Promise<WebBrowser> {
  const executable = findChromium(options.env);
  const viewport = options.viewport ?? DEFAULT_VIEWPORT;
  const playwright = loadModule<typeof import('playwright-core')>('playwright-core');
  playwright.catch(() => undefined);
  const proc = await startChromium({
    executable,
    headless: options.headless ?? true,
    size: viewport,
    env: options.env,
  });
  const record: BrowserRecord = { pid: proc.pid, cdpEndpoint: proc.cdpEndpoint, dir: proc.dir, logFile: proc.logFile };
  let opener: TabOpener | undefined;
  try {
    opener = await openTab(proc.wsEndpoint, viewport, (line) => options.onConsole?.(line)).catch((e: Error) => {
      throw new Error(
        `cannot reach Chromium (pid ${record.pid}) at ${proc.wsEndpoint}: ${e.message}. Its last output:\n${readTail(record.logFile)}`,
      );
    });
    const tab = opener;
    // Committed is enough: the page's own join is the readiness signal, and its errors keep
    // being collected (a 1.4 MB engine can take long to run on a loaded machine).
    const loaded = tab.navigate(options.url, options.loadTimeoutMs ?? 30_000).catch((e: Error) => {
      const errors = tab.errors();
      throw new Error(
        `the page ${options.url} did not load: ${e.message.split('\n')[0]}${errors.length ? `; console errors:\n${errors.join('\n')}` : ''}`,
      );
    });
    loaded.catch(() => undefined);
    const b = await connect(record, undefined, options.onConsole, playwright, {
      opener: tab,
      endpoint: proc.wsEndpoint,
    });
    await loaded.catch(async (e) => {
      await b.disconnect();
      throw e;
    });
    return b;
  } catch (e) {
    opener?.close();
    killGroup(record.pid);
    rmSync(record.dir, { recursive: true, force: true });
    throw e;
  }
}

/** Connects to a browser this daemon (or a previous one) started; takes back its game page. */
export async function attachBrowser(
  record: BrowserRecord,
  options: { viewport?: { width: number; height: number }; onConsole?: (line: string) => void } = {},
): Promise<WebBrowser> {
  return connect(record, options.viewport, options.onConsole);
}

async function connect(
  record: BrowserRecord,
  viewport?: { width: number; height: number },
  onConsole?: (line: string) => void,
  playwright: Promise<typeof import('playwright-core')> = loadModule('playwright-core'),
  fresh?: { opener: TabOpener; endpoint: string },
): Promise<WebBrowser> {
  const { chromium } = await playwright;
  const endpoint = fresh?.endpoint ?? record.cdpEndpoint;
  let browser: Browser;
  try {
    browser = await chromium.connectOverCDP(endpoint, { timeout: 30_000 });
  } catch (e) {
    throw new Error(
      `cannot reach Chromium (pid ${record.pid}) at ${endpoint}: ${(e as Error).message.split('\n')[0]}. Its last output:\n${readTail(record.logFile)}`,
    );
  }
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const pages = context.pages();
  const page = pages.find((p) => p.url().includes('gamebridge=')) ?? pages[0] ?? (await context.newPage());
  if (viewport) await page.setViewportSize(viewport);
  return wrap(browser, page, record, onConsole, fresh?.opener);
}

function wrap(
  browser: Browser,
  page: Page,
  record: BrowserRecord,
  onConsole?: (line: string) => void,
  opener?: TabOpener,
): WebBrowser {
  // What the opener saw before playwright attached; a line both saw is kept once.
  const errors: string[] = opener?.errors() ?? [];
  const early = new Set(errors);
  const note = (line: string) => {
    if (early.delete(line)) return;
    errors.push(line);
    if (errors.length > MAX_ERRORS) errors.shift();
    if (!line.startsWith('console.error: ')) onConsole?.(line);
  };
  page.on('pageerror', (e) => note(`uncaught ${e.name}: ${e.message}`));
  page.on('console', (m) => {
    onConsole?.(`console.${m.type()}: ${m.text()}`);
    if (m.type() === 'error') note(`console.error: ${m.text()}`);
  });
  page.on('requestfailed', (r) => note(`failed to load ${r.url()}: ${r.failure()?.errorText ?? 'unknown error'}`));
  opener?.handOver();
  const hands = new BrowserHands(page);
  let cdp: CDPSession | undefined;
  let ending = false;
  let goneListener: ((why: string) => void) | null = null;
  browser.on('disconnected', () => {
    if (!ending) goneListener?.(`Chromium (pid ${record.pid}) went away`);
  });

  return {
    pid: record.pid,
    cdpEndpoint: record.cdpEndpoint,
    record,
    page,
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
      await hands.release().catch(() => undefined);
      await browser.close().catch(() => undefined);
      opener?.close();
      await endChromium(record);
    },
    async disconnect() {
      ending = true;
      await hands.release().catch(() => undefined);
      // For a browser reached over CDP, close() only drops the connection; Chromium keeps running.
      await browser.close().catch(() => undefined);
      opener?.close();
    },
  };
}

/** Ends a Chromium we started (its whole process group) and removes its profile: nothing of it is left. */
export async function endChromium(record: BrowserRecord): Promise<void> {
  killGroup(record.pid);
  await groupGone(record.pid, 5000);
  rmSync(record.dir, { recursive: true, force: true });
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
