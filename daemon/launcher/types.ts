/** The launcher's public records. */
import type { BrowserRecord } from '../web/browser.js';

export interface LaunchedInstance {
  port: number;
  /** the launch pid: the shell running the declared command, leader of the game's process group */
  pid: number;
  name: string;
  version: string;
  /** working directory the command ran in */
  cwd: string;
  /** the command as run ({port} substituted) */
  command: string;
  logFile: string;
  startedAt: string;
  readyInMs: number;
  /** session id of the owner; undefined = detached */
  owner?: string;
  /** the gamebridge.json it was launched from */
  declaration: string;
  /** in launched.json only: the launch had not answered /health yet when this was written */
  starting?: true;
  /** a browser game (launch.web): what a successor daemon needs to take its page back */
  web?: WebRecord;
}

/** What launched.json keeps of a web instance (launcher/web-start.ts). */
export interface WebRecord {
  /** the carrier's join key (the page's fragment holds it) */
  key: string;
  /** the page as opened, without the fragment */
  url: string;
  headless: boolean;
  browser: BrowserRecord;
  /** the static folder served by the daemon, and the port it was served on */
  static?: { root: string; port: number };
  /** the process group of the page's server, when a command serves it */
  serverPgid?: number;
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
  signal?: AbortSignal;
  onProgress?: (p: LaunchProgress) => void;
}

export type StopHow = 'closed cleanly' | 'terminated' | 'killed';

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
