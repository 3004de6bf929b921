/**
 * A fresh home per test for suites that drive the real proxy + daemon: clients opened through
 * it are closed, and the daemon, the proxies and every launched game's process group are
 * killed after each test. Made with `per: 'describe'` inside a describe, one home serves all of
 * its tests, so several tests can read one costly set-up (a game, a browser page) made in its
 * beforeAll.
 */
import { connect, type McpHandle } from './mcp.js';
import { daemonFacts, liveDaemon, reapAndReport } from './fault.js';
import { Reaper, removeDir, tempHome } from './procs.js';

export interface PairSuite {
  readonly reaper: Reaper;
  readonly home: string;
  readonly env: Record<string, string>;
  /** a real SDK client on the real proxy, for this test's home */
  open(cwd?: string, args?: string[]): Promise<McpHandle>;
  /** the live daemon's pid (not `notPid`), tracked for reaping */
  daemonPid(notPid?: number): Promise<number>;
  /** a launched game: its process group is killed after the test */
  trackGroup(pgid: number): void;
}

/** `extraEnv`: more of the clients' environment (what the daemon they start inherits). */
export function pairSuite(
  prefix: string,
  extraEnv: Record<string, string> = {},
  per: 'test' | 'describe' = 'test',
): PairSuite {
  const reaper = new Reaper();
  const handles: McpHandle[] = [];
  const groups: number[] = [];
  let home = '';
  let env: Record<string, string> = {};

  const [before, after] = per === 'test' ? [beforeEach, afterEach] : [beforeAll, afterAll];

  before(() => {
    home = tempHome(prefix);
    env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000', ...extraEnv };
  });

  after(async () => {
    for (const h of handles.splice(0)) await h.close();
    const info = daemonFacts(home);
    if (info) reaper.track(info.pid);
    if (info?.standby) reaper.track(info.standby.pid); // killed with its primary, before it can take over
    await reaper.reap();
    for (const pid of groups.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* already reaped */
      }
    }
    // whatever else still runs for this home (a game a failed test never got to track)
    await reapAndReport(home);
    removeDir(home);
  });

  return {
    reaper,
    get home() {
      return home;
    },
    get env() {
      return env;
    },
    async open(cwd, args = []) {
      const h = await connect({ env, cwd, args });
      handles.push(h);
      reaper.track(h.pid);
      return h;
    },
    async daemonPid(notPid) {
      const { pid } = await liveDaemon(home, notPid);
      reaper.track(pid);
      return pid;
    },
    trackGroup(pgid) {
      groups.push(pgid);
    },
  };
}
