/** The GAME_BRIDGE_HOME layout (docs/SETUP.md, "Files under GAME_BRIDGE_HOME"). Pure path arithmetic plus one mkdir helper. */
import { ensurePrivateDir } from './private-files.js';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export type Env = Record<string, string | undefined>;

export function bridgeHome(env: Env = process.env): string {
  return env.GAME_BRIDGE_HOME ? resolve(env.GAME_BRIDGE_HOME) : join(homedir(), '.game-bridge');
}

export interface HomePaths {
  home: string;
  daemonDir: string;
  /** {pid, port, token, version, startedAt}, mode 0600 */
  daemonJson: string;
  daemonLog: string;
  /** the bearer token proxies and HTTP clients present, kept across daemons (mode 0600) */
  tokenFile: string;
  /** launched instances, for re-adoption after a crash or handover */
  launchedJson: string;
  logsDir: string;
  /** default registry dir (GAME_BRIDGE_INSTANCES overrides it, see registryDir) */
  instancesDir: string;
}

export function homePaths(home: string): HomePaths {
  const daemonDir = join(home, 'daemon');
  return {
    home,
    daemonDir,
    daemonJson: join(daemonDir, 'daemon.json'),
    daemonLog: join(daemonDir, 'daemon.log'),
    tokenFile: join(daemonDir, 'token'),
    launchedJson: join(daemonDir, 'launched.json'),
    logsDir: join(home, 'logs'),
    instancesDir: join(home, 'instances'),
  };
}

/** `$GAME_BRIDGE_INSTANCES`, else `$GAME_BRIDGE_HOME/instances`, else `~/.game-bridge/instances`. */
export function registryDir(env: Env = process.env): string {
  return env.GAME_BRIDGE_INSTANCES ? resolve(env.GAME_BRIDGE_INSTANCES) : join(bridgeHome(env), 'instances');
}

/**
 * mkdir -p a directory of the bridge's own (home, daemon/, logs/) and check it is private:
 * ours, not a link, not writable by others (shared/private-files.ts); throws UnsafeDirError
 * with the fix otherwise. `_mode` is kept for callers: these directories are always 0700.
 */
export function ensureDir(dir: string, _mode = 0o700): string {
  return ensurePrivateDir(dir);
}
