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
import { WEBMCP_FEATURE } from '../web/page-tools.js';
import { startPageCarrier, type PageCarrier } from '../web/carrier.js';
import { pageScript } from '../web/page-clock.js';
import { pickSeed } from '../web/page-seed.js';
import { createStandIn, type StandIn } from '../web/stand-in.js';
import { serveStatic, type StaticSite } from '../web/static.js';
import type { LaunchDeclaration } from './declaration.js';
import { appendLogLine, ConsoleLog, HEADER_PREFIX, headerLine, logFileName } from './logfile.js';
import { listenerOwner, connectionOfGroup, portHolders, type PortHolder } from './game-pid.js';
import { processStart, treeAlive } from './processes.js';
import { describeHolders, identify } from './readiness.js';
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
  refuseIfClosing(ctx, port);
  const launch = new WebLaunch(decl, port, opts, ctx);
  try {
    const url = await launch.servePage();
    const carrier = await launch.openCarrier(url);
    const browser = await launch.openChromium(url, carrier);
    const inst = launch.announce(url, browser);
    return await launch.untilReady(inst, carrier, browser);
  } catch (e) {
    await launch.undo();
    throw e;
  }
}

/**
 * One browser game being started, as named steps over what each has started so far (the page's
 * server, the carrier, Chromium): `undo` ends exactly those when a step fails.
 */
class WebLaunch {
  private readonly web: NonNullable<LaunchDeclaration['web']>;
  private readonly t0 = Date.now();
  private readonly deadline: number;
  private readonly progress: (line: string) => void;
  /** a page without the kit: the bridge answers for it (stand-in.ts) */
  private readonly standIn?: StandIn;
  /** the page's seed: the launch's, else the declaration's, else one picked here */
  private readonly seed: string;
  private logFile = '';
  private command = '';
  private site?: StaticSite;
  private spawned?: Spawned;
  private carrier?: PageCarrier;
  private browser?: WebBrowser;
  /**
   * Known once Chromium runs, before it is sent to the page: a join before that is refused, since
   * nothing of ours could make it, and the page's own join always finds it known.
   * -1: a browser whose pid cannot be told (not Linux): the key and the origin decide alone.
   */
  private chromiumPid = 0;

  constructor(
    private readonly decl: LaunchDeclaration,
    private readonly port: number,
    private readonly opts: LaunchOptions,
    private readonly ctx: StartContext,
  ) {
    this.web = decl.web!;
    this.deadline = this.t0 + decl.readyTimeoutMs;
    this.progress = ticker(opts, this.t0);
    this.standIn = this.web.kit ? undefined : createStandIn({ state: this.web.state });
    this.seed = opts.seed ?? this.web.seed ?? pickSeed();
  }

  /** The launch failure, naming the port, the project and the log. */
  private fail(what: string, facts: Omit<LaunchFacts, 'port'> = {}, cause?: unknown) {
    const { port, decl, logFile } = this;
    return launchFailed(`Launch failed on port ${port}: ${what}`, { port, cwd: decl.cwd, logFile, ...facts }, cause);
  }

  /** A line in the game's log. */
  private readonly log = (line: string): void => appendLogLine(this.logFile, line);
  /** The page's console lines in the game's log: batched, and bounded. */
  private readonly console = new ConsoleLog(() => this.logFile);

  /** The page's server: a static folder served here, or the game's own command; answers the page's URL. */
  servePage(): Promise<string> {
    return this.web.static ? this.serveFolder(this.web.static) : this.runServer();
  }

  /** A static folder served here. */
  private async serveFolder(root: string): Promise<string> {
    const { web, decl, port, ctx } = this;
    ensureDir(ctx.paths.logsDir);
    this.logFile = logFileName(ctx.paths.logsDir, port);
    const site = (this.site = await serveStatic({ root }).catch((e: unknown) => {
      throw isBridgeError(e) ? e : this.fail((e as Error).message, {}, e);
    }));
    const url =
      web.url && /^https?:\/\//.test(web.url)
        ? withWebPorts(web.url, port, site.port)
        : new URL(web.url ?? 'index.html', site.url).href;
    this.command = `(static) ${root}`;
    writeFileSync(
      this.logFile,
      headerLine(`serve ${root} at ${site.url} and open ${url} in Chromium`, decl.cwd, port),
      {
        mode: 0o600,
      },
    );
    return url;
  }

  /** The game's own command on a {webPort} of its own, once it answers the page's URL. */
  private async runServer(): Promise<string> {
    const { web, decl, port, opts, ctx } = this;
    const webPort = await freePort();
    const command = (this.command = withWebPorts(web.command!, port, webPort));
    const url = withWebPorts(web.url!, port, webPort);
    const env: Record<string, string> = { ...opts.env };
    // as for any game (profiles.ts planLaunch): ${NAME} from the client, then the ports
    for (const [k, v] of Object.entries(decl.env)) env[k] = withWebPorts(withClientEnv(v, opts.env), port, webPort);
    const { execa } = await loadExeca();
    refuseIfClosing(ctx, port);
    const spawned = (this.spawned = spawnLogged(execa, {
      command,
      cwd: decl.cwd,
      env,
      port,
      logsDir: ctx.paths.logsDir,
      home: ctx.paths.home,
    }));
    this.logFile = spawned.logFile;
    await serverAnswers(url, spawned, this.deadline, this.progress, (why) =>
      this.fail(`the page's server did not answer ${url}: ${why}${serverText(this.logFile, spawned)}`),
    );
    const squatted = spawned.pid ? squatter(url, spawned.pid) : null;
    // heldBy: the launcher moves on to another port, as when a game's own port is taken
    if (squatted)
      throw this.fail(`${squatted.text}${serverText(this.logFile, spawned)}`, {
        heldBy: squatted.heldBy,
        heldPort: squatted.port,
      });
    return url;
  }

  /** The carrier on the instance's port, taking a join only from the page's origin and the Chromium opened next. */
  async openCarrier(url: string): Promise<PageCarrier> {
    const { port, standIn } = this;
    this.carrier = await startPageCarrier({
      port,
      log: (l) => this.log(`${HEADER_PREFIX} ${l}`),
      ...(standIn ? { standIn: (target: string) => standIn.answer(target) } : {}),
      seed: this.seed,
      ...(this.opts.paused ? { startPaused: true } : {}),
      pageOrigin: new URL(url).origin,
      acceptPeer: (peerPort) =>
        this.chromiumPid < 0 || (this.chromiumPid > 0 && connectionOfGroup(peerPort, port, this.chromiumPid) !== false),
    }).catch((e: unknown) => {
      throw this.fail((e as Error).message, {}, e);
    });
    return this.carrier;
  }

  /** Chromium on the page, with the carrier's fragment when the page has the kit to read it. */
  async openChromium(url: string, carrier: PageCarrier): Promise<WebBrowser> {
    const { web, opts, port, standIn } = this;
    this.progress(`Opening ${url} in Chromium`);
    let browser: WebBrowser;
    try {
      browser = this.browser = await openBrowser({
        // a page without the kit has nothing that would read the fragment
        url: standIn ? url : url + carrier.fragment,
        // a kit page keeps its kit's clock; every page gets the seed
        initScript: pageScript({ clock: standIn !== undefined, seed: this.seed, paused: opts.paused }),
        headless: web.headless,
        env: opts.env,
        onConsole: this.console.line,
        onStarted: (pid) => (this.chromiumPid = pid || -1),
      });
    } catch (e) {
      // No Chromium is its own class: the next step is installing it, not fixing the game.
      if (isBridgeError(e) && e.kind === 'ChromiumMissing')
        throw chromiumMissing(`Launch failed on port ${port}: ${e.message}`, port);
      throw this.fail((e as Error).message, {}, e);
    }
    if (browser.sandboxOff) this.log(`${HEADER_PREFIX} ${browser.sandboxOff}`);
    this.log(
      `${HEADER_PREFIX} Chromium runs with WebMCP on (${WEBMCP_FEATURE}): tools the page registers through document.modelContext are the game's toolset 'webmcp'`,
    );
    return browser;
  }

  /** The instance as recorded while it starts (persisted by the launcher); answers it without name and version. */
  announce(url: string, browser: WebBrowser): StartingWeb {
    const { web, site, spawned, standIn, decl, port, opts } = this;
    const record: WebRecord = {
      url,
      headless: web.headless,
      browser: browser.record,
      static: site && web.static ? { root: web.static, port: site.port } : undefined,
      serverPgid: spawned?.pid,
      serverStart: spawned?.pid ? processStart(spawned.pid) : undefined,
      ...(standIn ? { kit: false as const } : {}),
      seed: this.seed,
    };
    const base = {
      port,
      pid: browser.pid,
      pgid: browser.pid,
      cwd: decl.cwd,
      command: this.command,
      logFile: this.logFile,
      startedAt: new Date(this.t0).toISOString(),
      owner: opts.owner,
      declaration: decl.file,
      web: record,
    };
    this.ctx.starting({ ...base, name: decl.name ?? '', version: '', readyInMs: 0, starting: true });
    return base;
  }

  /** Ready once the page joined (or the stand-in took it) and /health answers through the carrier. */
  async untilReady(
    base: StartingWeb,
    carrier: PageCarrier,
    browser: WebBrowser,
  ): Promise<{ inst: LaunchedInstance; game: WebGame }> {
    const { standIn, decl, opts, ctx, port } = this;
    // Over HTTP: the carrier is served in-process only once its WebGame exists, and this first
    // look also proves the port answers as everyone else will reach it.
    const client = new GameClient(port, { timeoutMs: Math.min(ctx.timeoutMs, 5000) });
    try {
      if (standIn) standIn.attach(browser.page);
      else
        await waitForPage(carrier, browser, this.deadline, opts.signal, this.progress, (why) =>
          this.fail(`${why}${consoleText(browser)}${serverText(this.logFile, this.spawned)}`, {
            timeoutMs: decl.readyTimeoutMs,
            pid: browser.pid,
          }),
        );
      const health: Health = await client.health();
      const { name, version } = await identify(client, health, decl);
      const inst: LaunchedInstance = { ...base, name, version, readyInMs: Date.now() - this.t0 };
      this.log(
        `${HEADER_PREFIX} ${name} ${version} ready in ${inst.readyInMs} ms (Chromium pid ${browser.pid}, driven over a pipe)`,
      );
      return { inst, game: new WebGame(port, base.web, carrier, browser, this.site, ctx.surfaces, standIn) };
    } finally {
      client.close();
      ctx.settled(browser.pid);
    }
  }

  /** Ends whatever the steps so far started. */
  async undo(): Promise<void> {
    const { browser, carrier, site, spawned } = this;
    await browser?.close().catch(() => undefined);
    await carrier?.close().catch(() => undefined);
    await site?.close().catch(() => undefined);
    if (spawned?.pid && treeAlive(spawned.pid)) await escalate(spawned.pid).catch(() => undefined);
  }
}

/** A launched instance as recorded before the page named its game. */
type StartingWeb = Omit<LaunchedInstance, 'name' | 'version' | 'readyInMs'> & { web: WebRecord };

/**
 * Why the page's server is not the game's own command, and who holds its port; or null: a
 * loopback URL's port must be listened on by the command's processes alone. The port was free
 * when it was chosen, but it is written into a command line everyone can read, and another user
 * may bind it first; their page would get the carrier's key and join as the game.
 */
function squatter(url: string, serverPid: number): { text: string; heldBy: PortHolder[]; port: number } | null {
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) return null;
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  if (listenerOwner(port, serverPid) !== 'stranger') return null;
  const heldBy = portHolders(port, serverPid);
  return {
    text: `the page's server at ${url} is not the game's command: another process (${describeHolders(heldBy)}) holds port ${port}, so nothing was opened in the browser. Stop that process if it is not yours to keep; each launch chooses a new {webPort}`,
    heldBy,
    port,
  };
}
