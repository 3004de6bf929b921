/**
 * The daemon as the proxy starts it: dist/daemon/bundle.cjs run with its V8 code cache
 * (daemon/life/code-cache.ts); without that bundle, the compiled module tree (entry.js), as before.
 */
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';
import { loadDaemonBundle, type CacheUse } from './code-cache.js';

/** The bundle, or undefined when it is missing or cannot run (cut short by an interrupted build): then the modules. */
function loadBundleOrSay(dir: string): ReturnType<typeof loadDaemonBundle> {
  try {
    return loadDaemonBundle(dir);
  } catch (e) {
    process.stderr.write(
      `${new Date().toISOString()} [${process.pid}] daemon bundle unusable (${String((e as Error).message).split('\n')[0]}): starting from the compiled modules instead; run \`npm run build\` to rebuild it\n`,
    );
    return undefined;
  }
}

const CACHE_NOTE: Record<CacheUse, string> = {
  used: 'with its code cache',
  missing: 'without a code cache (none beside it)',
  stale: 'without a code cache (the cache is for another bundle or Node)',
  corrupt: 'without a code cache (the cache file is damaged)',
  unsafe: 'without a code cache (the cache file is not a plain file only its owner can write)',
  rejected: 'without a code cache (V8 rejected it)',
};

/**
 * A light standby (daemon/life/standby.ts) waits here, before the bundle: Node started, only the few
 * modules it waits with loaded. When its primary dies it loads the daemon and starts as any daemon does.
 */
async function waitIfLightStandby(): Promise<boolean> {
  // (standby.ts's STANDBY_FOR, named here: a primary's start must not import standby.ts for it)
  if (!process.env.GAME_BRIDGE_STANDBY_FOR) return false;
  const standby = await import('./standby.js');
  if (!standby.isStandby() || standby.standbyKind() !== 'light') return false;
  const { bridgeHome, homePaths } = await import('../../shared/paths.js');
  if (!(await standby.waitAsStandby(homePaths(bridgeHome()).daemonDir, 'light'))) process.exit(0);
  process.stderr.write(
    `${new Date().toISOString()} [${process.pid}] the primary daemon is gone; the light standby takes over\n`,
  );
  return true;
}

const takeover = await waitIfLightStandby();
// The bundle sits in dist/daemon/, one floor above this file (dist/daemon/life/).
const loaded = loadBundleOrSay(fileURLToPath(new URL('..', import.meta.url)));
// From here on V8's young generation keeps its starting size (1 MB semi-spaces). By default it
// grows to 16 MB and stays grown, and importing playwright-core for a browser game takes it all
// the way. Set now, once the bundle is loaded, not as a command-line flag: a heap flag at start
// changes the hash of Node's cache of its built-in modules, so they would be compiled from source
// on every start.
v8.setFlagsFromString('--semi-space-growth-factor=1');
if (loaded) {
  // One line per start in daemon.log, as the daemon stamps its own (it has not started logging yet).
  process.stderr.write(`${new Date().toISOString()} [${process.pid}] daemon bundle ${CACHE_NOTE[loaded.cache]}\n`);
  await loaded.daemon.runDaemon({ takeover });
} else {
  await import('./entry.js');
}
