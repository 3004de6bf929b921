/**
 * The GAME_BRIDGE_* variables, in one place (docs/SETTINGS.md lists them; a test holds the two
 * together). A number is read by one parser with bounds: unset, empty or not a number gives the
 * default; a number out of bounds is brought within them, so `0` means 0 wherever 0 is allowed.
 * A variable whose text has a shape of its own (a port, a range, a path, a mode) is parsed by
 * the module it belongs to, which names it in its error; here it is only named and described.
 */

export interface NumberSetting {
  name: string;
  what: string;
  default: number;
  min: number;
  max: number;
}

const setting = (name: string, what: string, def: number, min: number, max: number): NumberSetting => ({
  name,
  what,
  default: def,
  min,
  max,
});

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** The numbers a daemon or a proxy reads from its environment. */
export const SETTINGS = {
  idleExitMs: setting(
    'GAME_BRIDGE_IDLE_EXIT_MS',
    'a daemon with no connection, session or game leaves after this long (0: never)',
    10 * MINUTE,
    0,
    7 * DAY,
  ),
  detachedTtlMs: setting(
    'GAME_BRIDGE_DETACHED_TTL_MS',
    'a launched game whose session ended is stopped after this long unless a session adopts it (0: never)',
    15 * MINUTE,
    0,
    7 * DAY,
  ),
  httpSessionIdleMs: setting(
    'GAME_BRIDGE_HTTP_SESSION_IDLE_MS',
    'an HTTP (2025) MCP session with no request and no open stream ends after this long',
    30 * MINUTE,
    1000,
    7 * DAY,
  ),
  reconnectDeadlineMs: setting(
    'GAME_BRIDGE_RECONNECT_DEADLINE_MS',
    'how long a proxy keeps a call waiting for a daemon before answering it failed',
    30_000,
    100,
    10 * MINUTE,
  ),
  maxConnections: setting(
    'GAME_BRIDGE_MAX_CONNECTIONS',
    "connections the daemon's port takes at once (proxies, HTTP clients, strays alike)",
    1000,
    1,
    100_000,
  ),
  logMaxBytes: setting(
    'GAME_BRIDGE_LOG_MAX_BYTES',
    "daemon.log and each browser game's log are rotated to <file>.1 past this size",
    10 * 1024 * 1024,
    1024,
    1024 ** 4,
  ),
  compositeVersions: setting(
    'GAME_BRIDGE_COMPOSITE_VERSIONS',
    'versions of one composites module a daemon imports before it asks for a restart',
    50,
    1,
    10_000,
  ),
} as const;

/** The variables whose text is parsed where it is used, with what each one is. */
export const TEXT_SETTINGS: Record<string, string> = {
  GAME_BRIDGE_HOME: "the bridge's home (default ~/.game-bridge): the daemon, its lock, logs, launched games",
  GAME_BRIDGE_INSTANCES: 'the registry directory games announce themselves in (default <home>/instances)',
  GAME_BRIDGE_START_PAUSED:
    'read by the kits: 1 starts the game with its clock paused at simFrame 0 (set by launch_instance {paused}; not for people)',
  GAME_BRIDGE_PORT: "a client's default game port (same as --port)",
  GAME_BRIDGE_SCAN_RANGE: 'the ports list_instances probes (same as --scan-range; GAME_BRIDGE_SCAN is read too)',
  GAME_BRIDGE_CONFIG: 'the gamebridge.json to launch from (same as --config)',
  GAME_BRIDGE_MANIFEST: 'a manifest file for a game that serves no /tools (same as --manifest)',
  GAME_BRIDGE_VIEW:
    'player: a session sees and does only what a player could; debug (default) has everything (same as --view)',
  GAME_BRIDGE_LAUNCH_HINT: 'the command GameOffline names (same as --launch-hint; GAME_BRIDGE_LAUNCH is read too)',
  GAME_BRIDGE_DAEMON_PORT: "the daemon's own port (same as daemon --port; default: any free port)",
  GAME_BRIDGE_STANDBY: 'the standby daemon: light (default), 1 (a warm one), 0 (none)',
  GAME_BRIDGE_CHROMIUM: 'the Chromium to open browser games in (default: chromium on PATH)',
  GAME_BRIDGE_STANDBY_FOR: 'set by a daemon on the standby it starts (not for people)',
  GAME_BRIDGE_VERSION_OVERRIDE: 'a daemon that claims another version (for the handover test, not for people)',
};

/** A number setting from `env`, within its bounds; its default when unset, empty or not a number. */
export function numberSetting(s: NumberSetting, env: NodeJS.ProcessEnv = process.env): number {
  const text = env[s.name]?.trim();
  const n = text ? Number(text) : NaN;
  if (!Number.isFinite(n)) return s.default;
  return Math.min(s.max, Math.max(s.min, Math.round(n)));
}
