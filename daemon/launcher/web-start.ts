/* eslint-disable max-lines -- over 250 lines once formatted; to be split (docs/DECISIONS.md, "Formatting") */
/**
 * Launching a browser game (docs/CONTRACT.md, "Browser games"): the page carrier on the
 * instance's port, then the page's server (the declaration's static folder, served here, or
 * its command on a {webPort} of its own), then Chromium opened on the page with the carrier's
 * fragment; ready once the page joined and /health answers through the carrier. Every failure
 * ends what was started and says what the page and its server said.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { GameClient, type Health } from '../game/client.js';
import { usageError } from '../../shared/errors.js';
import { ensureDir } from '../../shared/paths.js';
import { openBrowser, attachBrowser, type WebBrowser } from '../web/browser.js';
import { startPageCarrier, type PageCarrier } from '../web/carrier.js';
import { killGroup } from '../web/chromium.js';
import { serveStatic, type StaticSite } from '../web/static.js';
import type { LaunchDeclaration } from './declaration.js';
import { HEADER_PREFIX, headerLine, logFileName, tailFile } from './logfile.js';
import { treeAlive } from './processes.js';
import { identify } from './readiness.js';
import { loadExeca, spawnLogged, type Spawned } from './spawn.js';
import type { StartContext } from './start.js';
import { escalate } from './stop.js';
import type { LaunchedInstance, LaunchOptions, WebRecord } from './types.js';
import { withWebPorts } from './web-declaration.js';
import { WebGame } from './web-game.js';

/** How long a re-adopted page may take to find the new carrier (its kit retries at most every 2 s). */
const REJOIN_TIMEOUT_MS = 10_000;
const LOG_TAIL_LINES = 20;

/** Start the web game of `decl` on `port`; resolves once the page joined and answers /health. */
export async function startWebGame(
  decl: LaunchDeclaration,
  port: number,
  opts: LaunchOptions,
  ctx: StartContext,
): Promise<{ inst: LaunchedInstance; game: WebGame }> {
  const web = decl.web!;
  const t0 = Date.now();
  const deadline = t0 + decl.readyTimeoutMs;
  const progress = ticker(opts, t0);
  const fail = (what: string, facts: Record<string, unknown> = {}) =>
    usageError(`Launch failed on port ${port}: ${what}`, { port, cwd: decl.cwd, logFile, ...facts });
  if (ctx.closing())
    throw usageError(
      `Launch refused on port ${port}: the bridge is shutting down. Call launch_instance again in a moment.`,
      { port },
    );

  let logFile = '';
  let carrier: PageCarrier | undefined;
  let site: StaticSite | undefined;
  let spawned: Spawned | undefined;
  let browser: WebBrowser | undefined;
  const undo = async () => {
    await browser?.close().catch(() => undefined);
    await carrier?.close().catch(() => undefined);
    await site?.close().catch(() => undefined);
    if (spawned?.pid && treeAlive(spawned.pid)) await escalate(spawned.pid).catch(() => undefined);
  };
  try {
    // The page's server: a static folder served here, or the game's own command.
    let url: string;
    let command = '';
    if (web.static) {
      ensureDir(ctx.paths.logsDir);
      logFile = logFileName(ctx.paths.logsDir, port);
      site = await serveStatic({ root: web.static });
      url =
        web.url && /^https?:\/\//.test(web.url)
          ? withWebPorts(web.url, port, site.port)
          : new URL(web.url ?? 'index.html', site.url).href;
      command = `(static) ${web.static}`;
      writeFileSync(
        logFile,
        headerLine(`serve ${web.static} at ${site.url} and open ${url} in Chromium`, decl.cwd, port),
        { mode: 0o600 },
      );
    } else {
      const webPort = await freePort();
      command = withWebPorts(web.command!, port, webPort);
      url = withWebPorts(web.url!, port, webPort);
      const env: Record<string, string> = { ...opts.env };
      for (const [k, v] of Object.entries(decl.env)) env[k] = withWebPorts(v, port, webPort);
      const { execa } = await loadExeca();
      if (ctx.closing())
        throw usageError(
          `Launch refused on port ${port}: the bridge is shutting down. Call launch_instance again in a moment.`,
          { port },
        );
      spawned = spawnLogged(execa, {
        command,
        cwd: decl.cwd,
        env,
        port,
        logsDir: ctx.paths.logsDir,
        home: ctx.paths.home,
      });
      logFile = spawned.logFile;
      await serverAnswers(url, spawned, deadline, progress, (why) =>
        fail(`the page's server did not answer ${url}: ${why}${serverText(logFile, spawned)}`),
      );
    }
    const log = (line: string) => appendLine(logFile, line);
    carrier = await startPageCarrier({ port, log: (l) => log(`${HEADER_PREFIX} ${l}`) });
    progress(`Opening ${url} in Chromium`);
    try {
      browser = await openBrowser({
        url: url + carrier.fragment,
        headless: web.headless,
        env: opts.env,
        onConsole: log,
      });
    } catch (e) {
      throw fail((e as Error).message);
    }
    const record: WebRecord = {
      key: carrier.key,
      url,
      headless: web.headless,
      browser: browser.record,
      static: site && web.static ? { root: web.static, port: site.port } : undefined,
      serverPgid: spawned?.pid,
    };
    const base = {
      port,
      pid: browser.pid,
      pgid: browser.pid,
      cwd: decl.cwd,
      command,
      logFile,
      startedAt: new Date(t0).toISOString(),
      owner: opts.owner,
      declaration: decl.file,
      web: record,
    };
    ctx.starting({ ...base, name: decl.name ?? '', version: '', readyInMs: 0, starting: true });
    let health: Health | undefined;
    const client = new GameClient(port, { timeoutMs: Math.min(ctx.timeoutMs, 5000) });
    try {
      await waitForPage(carrier, browser, deadline, opts.signal, progress, (why) =>
        fail(`${why}${consoleText(browser!)}${serverText(logFile, spawned)}`, {
          timeoutMs: decl.readyTimeoutMs,
          pid: browser!.pid,
        }),
      );
      health = await client.health();
      const { name, version } = await identify(client, health, decl);
      const inst: LaunchedInstance = { ...base, name, version, readyInMs: Date.now() - t0 };
      log(
        `${HEADER_PREFIX} ${name} ${version} ready in ${inst.readyInMs} ms (Chromium pid ${browser.pid}, ${browser.cdpEndpoint})`,
      );
      return { inst, game: new WebGame(port, record, carrier, browser, site) };
    } finally {
      client.close();
      ctx.settled(browser.pid);
    }
  } catch (e) {
    await undo();
    throw e;
  }
}

/**
 * A web instance a previous daemon launched: Chromium still running and reachable → a carrier
 * on the same port with the same key (the page's kit rejoins it by itself), its static folder
 * served again, the page taken back over CDP. Otherwise everything of it is ended: null.
 */
export async function readoptWebGame(inst: LaunchedInstance): Promise<WebGame | null> {
  const rec = inst.web!;
  const log = (line: string) => appendLine(inst.logFile, line);
  let carrier: PageCarrier | undefined;
  let site: StaticSite | undefined;
  let browser: WebBrowser | undefined;
  try {
    if (inst.starting || !treeAlive(rec.browser.pid)) throw new Error('Chromium is gone');
    carrier = await startPageCarrier({ port: inst.port, key: rec.key, log: (l) => log(`${HEADER_PREFIX} ${l}`) });
    if (rec.static)
      site = await serveStatic({ root: rec.static.root, port: rec.static.port }).catch(() =>
        serveStatic({ root: rec.static!.root }),
      );
    browser = await attachBrowser(rec.browser, { onConsole: log });
    // What the dead daemon held stays down in Chromium (it has no leases): let go of it now.
    for (const name of rec.held ?? [])
      await browser
        .hold(name)
        .then(() => browser!.release(name))
        .catch(() => undefined);
    await carrier.waitForJoin(REJOIN_TIMEOUT_MS);
    log(`${HEADER_PREFIX} re-adopted by daemon pid ${process.pid}: the page joined again`);
    return new WebGame(
      inst.port,
      { ...rec, held: undefined, static: rec.static && site ? { root: rec.static.root, port: site.port } : undefined },
      carrier,
      browser,
      site,
    );
  } catch (e) {
    log(`${HEADER_PREFIX} not re-adopted (${(e as Error).message.split('\n')[0]}): its browser and server were ended`);
    await browser?.close().catch(() => undefined);
    killGroup(rec.browser.pid);
    await carrier?.close().catch(() => undefined);
    await site?.close().catch(() => undefined);
    if (rec.serverPgid && treeAlive(rec.serverPgid)) await escalate(rec.serverPgid).catch(() => undefined);
    return null;
  }
}

/** Waits for the join; fails early when the browser dies, the deadline passes or the call is cancelled. */
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

/** Polls `url` until the server answers anything; fails when it exits or the deadline passes. */
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
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const consoleText = (b: WebBrowser) => {
  const errors = b.consoleErrors();
  return errors.length ? `\nThe page's console errors:\n${errors.join('\n')}` : '\nThe page logged no console error.';
};

const serverText = (logFile: string, spawned: Spawned | undefined) => {
  if (!spawned) return '';
  const tail = tailFile(logFile, LOG_TAIL_LINES, { skipHeaders: true }).lines;
  return `\nLog: ${logFile}\nThe server's last output:\n${tail.length ? tail.join('\n') : '(it wrote nothing)'}`;
};

/** Progress at most once a second, with the time waited so far. */
function ticker(opts: LaunchOptions, t0: number): (message: string) => void {
  let last = 0;
  return (message) => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    opts.onProgress?.({ elapsedMs: now - t0, message: `${message} (${Math.round((now - t0) / 1000)}s)` });
  };
}

function appendLine(file: string, line: string): void {
  try {
    appendFileSync(file, `${line}\n`);
  } catch {
    /* a log that cannot be written never breaks the game */
  }
}

/** A port the OS says is free now, for {webPort}. */
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
