/** The launcher's public records. */
import type { BrowserRecord } from '../web/browser.js';

export interface LauncherOptions {
  home: string;
  timeoutMs?: number;
  /** false: keep no launched.json (default true) */
  persist?: boolean;
  /** false once this daemon no longer holds the home's lock (then launched.json is not ours to write) */
  mayWrite?: () => boolean;
}

export interface LaunchedInstance {
  port: number;
  /** the game's own pid: the process listening on the port (the exec'd command, or found in the launch's process tree) */
  pid: number;
  /** the start time of `pid` (shared/daemon-file processStart): a recycled pid does not match */
  pidStart?: number;
  /** the process group the launch runs in (its leader is the pid the launch spawned); absent in files from older daemons: then pid */
  pgid?: number;
  name: string;
  version: string;
  /** working directory the command ran in */
  cwd: string;
  /** the command as run ({port}, {index} and the profile's args substituted) */
  command: string;
  logFile: string;
  startedAt: string;
  readyInMs: number;
  /** session id of the owner; undefined = detached */
  owner?: string;
  /** the gamebridge.json it was launched from */
  declaration: string;
  /** the launch profile (gamebridge.json launch.profiles) it was started with */
  profile?: string;
  /** its {index} within a launch of several (0 for a single launch) */
  index?: number;
  /** the last command the game confirmed it applied through this bridge */
  lastCommand?: LastCommand;
  /** ports this launch was tried on first, each taken by another process before the game bound it */
  portsTaken?: number[];
  /** in launched.json only: the launch had not answered /health yet when this was written */
  starting?: true;
  /** a browser game (launch.web): what a successor daemon needs to end what is left of it */
  web?: WebRecord;
}

/** What launched.json keeps of a web instance (launcher/web-start.ts, web-readopt.ts). */
export interface WebRecord {
  /** the page as opened, without the fragment */
  url: string;
  headless: boolean;
  browser: BrowserRecord;
  /** the static folder served by the daemon, and the port it was served on */
  static?: { root: string; port: number };
  /** the process group of the page's server, when a command serves it */
  serverPgid?: number;
  /** the start time of `serverPgid`'s leader: a successor daemon signals the group only while it matches */
  serverStart?: number;
  /** a page without the game kit: the carrier answers for it through the browser */
  kit?: false;
  /** the seed of the page's Math.random and crypto.getRandomValues */
  seed?: string;
}

export interface LastCommand {
  /** the game's command id, when it reports one */
  id?: number;
  command: string;
  at: string;
}

export interface LaunchProgress {
  elapsedMs: number;
  message: string;
}

export interface LaunchOptions {
  /** the client's working directory (gamebridge.json is looked up from here) */
  cwd: string;
  /** --config / GAME_BRIDGE_CONFIG, already resolved by the caller */
  configPath?: string;
  /** the client's environment: the game inherits it, plus the declaration's env */
  env: Record<string, string>;
  owner?: string;
  /** a profile of launch.profiles: its args are appended to the command, its env and readyTimeoutMs apply */
  profile?: string;
  /** {index} in the command, args and env (default 0) */
  index?: number;
  /** a browser game's seed, in place of launch.web.seed */
  seed?: string;
  /** start the game with its clock paused at simFrame 0 (GAME_BRIDGE_START_PAUSED=1; a page: the fragment or the page clock) */
  paused?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: LaunchProgress) => void;
}

export type StopHow = 'closed cleanly' | 'terminated' | 'killed' | `had already exited (${string})`;

export interface StopResult {
  port: number;
  stopped: boolean;
  how: StopHow;
}

export interface LogTail {
  port: number;
  logFile: string;
  lines: string[];
  totalLines?: number;
}

/** The process group of a launched instance (older launched.json files have only pid). */
export const groupOf = (inst: Pick<LaunchedInstance, 'pid' | 'pgid'>): number => inst.pgid ?? inst.pid;
