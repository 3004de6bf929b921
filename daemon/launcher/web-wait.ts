/**
 * The waits of a browser game's launch, and what their failures say: the page's own server
 * answering its URL, the page joining the carrier, the page's console errors and the server's
 * last output, progress once a second, and a free port for {webPort}.
 */
import { createServer } from 'node:net';
import type { WebBrowser } from '../web/browser.js';
import type { PageCarrier } from '../web/carrier.js';
import { sleep } from '../../shared/sleep.js';
import { tailFile } from './logfile.js';
import type { Spawned } from './spawn.js';
import type { LaunchOptions } from './types.js';

const LOG_TAIL_LINES = 20;

export /** Waits for the join; fails early when the browser dies, the deadline passes or the call is cancelled. */
async function waitForPage(
  carrier: PageCarrier,
  browser: WebBrowser,
  deadline: number,
  signal: AbortSignal | undefined,
  progress: (m: string) => void,
  fail: (why: string) => Error,
): Promise<void> {
  let gone: string | null = null;
  browser.onGone((why) => (gone = why));
  while (!carrier.page) {
    if (gone) throw fail(`the browser went away before the page joined (${gone})`);
    if (signal?.aborted) throw fail('the request was cancelled before the page joined; the browser was closed');
    if (Date.now() > deadline)
      throw fail(
        `the page did not join the bridge within the declaration's readyTimeoutMs (does it call createGameSurface(...).listen() from game-bridge-mcp/web?)`,
      );
    progress(`Waiting for the page to join (Chromium pid ${browser.pid})`);
    await carrier.waitForJoin(Math.min(250, Math.max(1, deadline - Date.now()))).catch(() => undefined);
  }
}

export /** Polls `url` until the server answers anything; fails when it exits or the deadline passes. */
async function serverAnswers(
  url: string,
  spawned: Spawned,
  deadline: number,
  progress: (m: string) => void,
  fail: (why: string) => Error,
): Promise<void> {
  for (;;) {
    const exit = spawned.exit();
    if (exit)
      throw fail(
        `its command ${exit.code !== null ? `exited with code ${exit.code}` : `ended (${exit.signal ?? exit.spawnError})`}`,
      );
    if (Date.now() > deadline) throw fail("not within the declaration's readyTimeoutMs");
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      progress(`Waiting for the page's server to answer ${url}`);
      await sleep(100);
    }
  }
}

/** The page's console errors, for a failure's text. */
export const consoleText = (b: WebBrowser) => {
  const errors = b.consoleErrors();
  return errors.length ? `\nThe page's console errors:\n${errors.join('\n')}` : '\nThe page logged no console error.';
};

/** The page server's last output, for a failure's text (none for a static folder). */
export const serverText = (logFile: string, spawned: Spawned | undefined) => {
  if (!spawned) return '';
  const tail = tailFile(logFile, LOG_TAIL_LINES, { skipHeaders: true }).lines;
  return `\nLog: ${logFile}\nThe server's last output:\n${tail.length ? tail.join('\n') : '(it wrote nothing)'}`;
};

export /** Progress at most once a second, with the time waited so far. */
function ticker(opts: LaunchOptions, t0: number): (message: string) => void {
  let last = 0;
  return (message) => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    opts.onProgress?.({ elapsedMs: now - t0, message: `${message} (${Math.round((now - t0) / 1000)}s)` });
  };
}

export /** A port the OS says is free now, for {webPort}. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ port: 0, host: '127.0.0.1' }, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
