/** A real daemon in the foreground on a pinned port, for the HTTP suites: its home, URL and token. */
import { CLI, removeDir, tempHome, waitFor, type Reaper } from './procs.js';
import { daemonFacts, liveDaemon, reapAndReport } from './fault.js';
import { freePort } from './ports.js';

export interface HttpDaemon {
  home: string;
  port: number;
  url: string;
  token: string;
  pid: number;
  env: Record<string, string>;
}

/** Start `game-bridge-mcp daemon --port <port>` (a free one, in a fresh home unless given); `reaper` kills it. */
export async function startHttpDaemon(reaper: Reaper, at: { home?: string; port?: number } = {}): Promise<HttpDaemon> {
  const home = at.home ?? tempHome('gb-http-');
  const port = at.port ?? (await freePort());
  const env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000' };
  reaper.spawn(process.execPath, [CLI, 'daemon', '--port', String(port)], {
    env: { ...process.env, ...env },
    cwd: home,
  });
  const facts = await liveDaemon(home, daemonFacts(home)?.pid);
  await waitFor('the daemon to listen', () => daemonFacts(home)?.port === port);
  return { home, port, url: `http://127.0.0.1:${port}/mcp`, token: facts.token, pid: facts.pid, env };
}

/**
 * Kill what the suite started, then whatever else runs for the home (the daemon's standby, which
 * would take the home over once its primary is killed), and only then remove the home.
 */
export async function endHttpDaemon(reaper: Reaper, d: HttpDaemon | undefined): Promise<void> {
  await reaper.reap();
  if (!d) return;
  await reapAndReport(d.home);
  removeDir(d.home);
}
