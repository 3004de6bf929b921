/**
 * The daemon's side of the dashboard: which requests are the page's, and the one-time load of
 * its module with the host object it works through. The module is imported by a path computed
 * at run time, so the daemon's bundle leaves it out and a daemon nobody looks at never reads it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sessionConfigFrom, type SessionConfig } from '../../shared/config.js';
import { VERSION } from '../../shared/version.js';
import type { DaemonState } from '../state/state.js';
import type { Dashboard } from '../dashboard/index.js';
import type { DashboardHost } from '../dashboard/host.js';
import { createEngineSession } from '../sessions/session.js';
import { loadModule } from '../../shared/load-module.js';
import { gameNow } from '../bridge/families/saved-tests.js';
import { sessionTrace } from '../recording/trace.js';
import { gameSkills, skillsRoot } from '../bridge/skill-check.js';
import { skillFile } from '../skills/skill-file.js';

export type { Dashboard };

/** /dashboard and everything under it. */
export function isDashboardPage(url: string | undefined): boolean {
  return url === '/dashboard' || /^\/dashboard[/?]/.test(url ?? '');
}

export interface DashboardDeps {
  state: DaemonState;
  port: () => number;
  log: (line: string) => void;
  facts: () => Record<string, unknown>;
}

export async function loadDashboard(deps: DashboardDeps): Promise<Dashboard> {
  const t0 = performance.now();
  const mod = await loadModule<typeof import('../dashboard/index.js')>(dashboardModuleUrl());
  const facts = deps.facts();
  const home = String(facts.home ?? deps.state.opts.home);
  // The dashboard's own session: it looks and calls, but is not a client, and adopts nothing.
  const session = createEngineSession(deps.state, dashboardConfig(home), 'dashboard', { observer: true, cwd: home });
  const host: DashboardHost = {
    state: deps.state,
    port: deps.port,
    version: VERSION,
    home,
    startedAt: String(facts.startedAt ?? deps.state.startedAt.toISOString()),
    log: deps.log,
    call: (name, args, record) => session.call(name, args, record),
    async trace(id, port) {
      const rec = deps.state.recordings.peek(id, port);
      if (!rec) return undefined;
      const client = deps.state.sessions.get(id)?.client;
      const now = await gameNow({ client: (p) => deps.state.client(p, 3000), launcher: deps.state.launcher }, port);
      const known = session.context.knownManifest(port)?.game;
      const game = rec.launch
        ? { name: rec.launch.name, version: rec.launch.version }
        : known?.name
          ? { name: known.name, ...(known.version ? { version: known.version } : {}) }
          : undefined;
      return sessionTrace(
        rec,
        {
          session: id,
          port,
          ...(client ? { client: `${client.name} ${client.version}` } : {}),
          ...(game ? { game } : {}),
        },
        now,
      ).html();
    },
    async skill(port, name) {
      const ctx = session.context;
      const m = await ctx.manifest(port);
      const skill = gameSkills(ctx, port, m.game.name).skills.find((s) => s.name === name);
      return skill && { file: skillFile(skillsRoot(ctx, port, 'skills'), name), skill };
    },
  };
  const dashboard = mod.createDashboard(host);
  deps.log(`dashboard loaded in ${Math.round(performance.now() - t0)}ms`);
  return dashboard;
}

/** The daemon's environment decides the scan range and registry, as it would for a client. */
function dashboardConfig(home: string): SessionConfig {
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  try {
    return sessionConfigFrom({}, env, home);
  } catch {
    return sessionConfigFrom({}, {}, home);
  }
}

/**
 * dist/daemon/dashboard/index.js: beside the bundle (dist/daemon/bundle.cjs, where import.meta.url
 * points inside it), or one floor up from this file in the compiled tree (dist/daemon/doors/).
 */
function dashboardModuleUrl(): string {
  const besideBundle = new URL('./dashboard/index.js', import.meta.url);
  return (existsSync(fileURLToPath(besideBundle)) ? besideBundle : new URL('../dashboard/index.js', import.meta.url))
    .href;
}
