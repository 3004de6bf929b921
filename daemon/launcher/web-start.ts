/**
 * Launching a browser game (docs/CONTRACT.md, "Browser games"): the page carrier on the
 * instance's port, then the page's server (the declaration's static folder, served here, or
 * its command on a {webPort} of its own), then Chromium opened on the page with the carrier's
 * fragment; ready once the page joined and /health answers through the carrier. The bridge
 * checks it reached what it started: a {webPort} server must be the game's own command (its
 * listener belongs to the command's processes), and the carrier takes a join only from the
 * page's origin and the Chromium it opened. Every failure ends what was started and says what
 * the page and its server said (web-wait.ts). A browser game ends with its daemon
 * (web-readopt.ts).
 */
import { writeFileSync } from 'node:fs';
import { GameClient, type Health } from '../game/client.js';
import { chromiumMissing, isBridgeError, launchFailed, type LaunchFacts } from '../../shared/errors.js';
import { ensureDir } from '../../shared/paths.js';
import { openBrowser, type WebBrowser } from '../web/browser.js';
import { startPageCarrier, type PageCarrier } from '../web/carrier.js';
import { createStandIn } from '../web/stand-in.js';
import { serveStatic, type StaticSite } from '../web/static.js';
import type { LaunchDeclaration } from './declaration.js';
import { appendLogLine, HEADER_PREFIX, headerLine, logFileName } from './logfile.js';
import { listenerOwner, connectionOfGroup } from './game-pid.js';
import { processStart, treeAlive } from './processes.js';
import { identify } from './readiness.js';
import { withClientEnv } from './profiles.js';
import { loadExeca, spawnLogged, type Spawned } from './spawn.js';
import { refuseIfClosing, type StartContext } from './start.js';
import { escalate } from './stop.js';
import type { LaunchedInstance, LaunchOptions, WebRecord } from './types.js';
import { withWebPorts } from './web-declaration.js';
import { WebGame } from './web-game.js';
import { consoleText, freePort, serverAnswers, serverText, ticker, waitForPage } from './web-wait.js';

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
  const fail = (what: string, facts: Omit<LaunchFacts, 'port'> = {}, cause?: unknown) =>
    launchFailed(`Launch failed on port ${port}: ${what}`, { port, cwd: decl.cwd, logFile, ...facts }, cause);
  refuseIfClosing(ctx, port);

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
      site = await serveStatic({ root: web.static }).catch((e: unknown) => {
        throw isBridgeError(e) ? e : fail((e as Error).message, {}, e);
      });
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
      // as for any game (profiles.ts planLaunch): ${NAME} from the client, then the ports
      for (const [k, v] of Object.entries(decl.env)) env[k] = withWebPorts(withClientEnv(v, opts.env), port, webPort);
      const { execa } = await loadExeca();
      refuseIfClosing(ctx, port);
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
      const squatted = spawned.pid ? squatter(url, spawned.pid) : null;
      if (squatted) throw fail(`${squatted}${serverText(logFile, spawned)}`);
    }
    const log = (line: string) => appendLogLine(logFile, line);
    const standIn = web.kit ? undefined : createStandIn();
    // Known once Chromium runs; a join before that is refused (nothing of ours could make it).
    // -1: a browser whose pid cannot be told (not Linux): the key and the origin decide alone.
    let chromiumPid = 0;
    carrier = await startPageCarrier({
      port,
      log: (l) => log(`${HEADER_PREFIX} ${l}`),
      ...(standIn ? { standIn: standIn.answer } : {}),
      pageOrigin: new URL(url).origin,
      acceptPeer: (peerPort) =>
        chromiumPid < 0 || (chromiumPid > 0 && connectionOfGroup(peerPort, port, chromiumPid) !== false),
    }).catch((e: unknown) => {
      throw fail((e as Error).message, {}, e);
    });
    progress(`Opening ${url} in Chromium`);
    try {
      browser = await openBrowser({
        // a page without the kit has nothing that would read the fragment
        url: standIn ? url : url + carrier.fragment,
        headless: web.headless,
        env: opts.env,
        onConsole: log,
      });
    } catch (e) {
      // No Chromium is its own class: the next step is installing it, not fixing the game.
      if (isBridgeError(e) && e.kind === 'ChromiumMissing')
        throw chromiumMissing(`Launch failed on port ${port}: ${e.message}`, port);
      throw fail((e as Error).message, {}, e);
    }
    chromiumPid = browser.pid || -1;
    if (browser.sandboxOff) log(`${HEADER_PREFIX} ${browser.sandboxOff}`);
    const record: WebRecord = {
      url,
      headless: web.headless,
      browser: browser.record,
      static: site && web.static ? { root: web.static, port: site.port } : undefined,
      serverPgid: spawned?.pid,
      serverStart: spawned?.pid ? processStart(spawned.pid) : undefined,
      ...(standIn ? { kit: false as const } : {}),
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
      if (standIn) standIn.attach(browser.page);
      else
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
        `${HEADER_PREFIX} ${name} ${version} ready in ${inst.readyInMs} ms (Chromium pid ${browser.pid}, driven over a pipe)`,
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
 * Why the page's server is not the game's own command, or null: a loopback URL's port must be
 * listened on by the command's processes alone. The port was free when it was chosen, but it is
 * written into a command line everyone can read, and another user may bind it first; their page
 * would get the carrier's key and join as the game.
 */
function squatter(url: string, serverPid: number): string | null {
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) return null;
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  if (listenerOwner(port, serverPid) !== 'stranger') return null;
  return `the page's server at ${url} is not the game's command: another process (another program, or another user) holds port ${port}, so nothing was opened in the browser. Launch again: a new {webPort} is chosen each time`;
}
