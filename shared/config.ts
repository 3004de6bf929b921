/**
 * argv + environment → one client session's settings (docs/CLI.md, "The server's options"): the options as
 * parsed (shared/session-args.ts parses a client's flags) → SessionConfig, and their defaults.
 */
import { resolve } from 'node:path';
import { usageError } from './errors.js';
import { bridgeHome, registryDir, type Env } from './paths.js';
import { stringEnv } from './env.js';

export const DEFAULT_SCAN_RANGE = '7777,7800-7839';
export const DEFAULT_PORT = 7777;
export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_ANSWER_CHARS = 16000;
/** A scan bigger than this is almost certainly a typo (and would take a while). */
export const MAX_SCAN_PORTS = 20000;

export interface SessionConfig {
  /** --port / GAME_BRIDGE_PORT: the default game port for this client */
  port?: number;
  scanRange: number[];
  scanRangeText: string;
  scan: boolean;
  registry: boolean;
  registryDir: string;
  /** --config / GAME_BRIDGE_CONFIG: an explicit gamebridge.json */
  configPath?: string;
  launchHint?: string;
  /** --manifest / GAME_BRIDGE_MANIFEST: a manifest for a game that cannot serve one */
  manifestPath?: string;
  eager: boolean;
  /** HTTP and command timeout */
  timeoutMs: number;
  /** bounded answers: results longer than this are cut with a marker */
  maxAnswerChars: number;
  noDaemon: boolean;
  /** the client's working directory (gamebridge.json is looked up from here) */
  cwd: string;
  /** the client's environment (launched games inherit it) */
  env: Record<string, string>;
  home: string;
  /** --view / GAME_BRIDGE_VIEW: `player` sees and does only what a player could (docs/TOOLS.md, "The player view") */
  view: View;
}

export const VIEWS = ['debug', 'player'] as const;
export type View = (typeof VIEWS)[number];

/** "7777,7800-7810" → [7777, 7800, ..., 7810]; throws BridgeUsageError on anything else. */
export function parsePortList(text: string): number[] {
  const out = new Set<number>();
  for (const raw of text.split(',')) {
    const part = raw.trim();
    if (!part) continue;
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!m) throw usageError(`Bad port range '${part}' in '${text}'. Use ports and ranges like 7777,7800-7810.`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (!validPort(lo) || !validPort(hi) || hi < lo) {
      throw usageError(`Bad port range '${part}': ports are 1-65535 and a range goes low-high (7800-7810).`);
    }
    if (out.size + (hi - lo + 1) > MAX_SCAN_PORTS) {
      throw usageError(`Port range '${text}' has more than ${MAX_SCAN_PORTS} ports; narrow it.`);
    }
    for (let p = lo; p <= hi; p++) out.add(p);
  }
  return [...out];
}

export function validPort(p: unknown): p is number {
  return typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535;
}

/** Parse a port given as number or string; throws BridgeUsageError naming `what`. */
export function parsePort(value: unknown, what = 'port'): number {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (!validPort(n)) throw usageError(`Bad ${what} ${JSON.stringify(value)}: a port is an integer 1-65535.`);
  return n;
}

const pick = (env: Env, ...names: string[]) => {
  for (const n of names) if (env[n] !== undefined && env[n] !== '') return env[n];
  return undefined;
};

/** Raw parsed options → SessionConfig. Throws BridgeUsageError with a one-line reason. */
export function sessionConfigFrom(opts: Record<string, unknown>, env: Env, cwd: string): SessionConfig {
  const portRaw = opts.port ?? pick(env, 'GAME_BRIDGE_PORT');
  const port =
    portRaw === undefined ? undefined : parsePort(portRaw, opts.port !== undefined ? '--port' : 'GAME_BRIDGE_PORT');
  const scanRangeText = String(
    opts['scan-range'] ?? pick(env, 'GAME_BRIDGE_SCAN_RANGE', 'GAME_BRIDGE_SCAN') ?? DEFAULT_SCAN_RANGE,
  );
  const timeoutMs = Number(opts.timeout ?? DEFAULT_TIMEOUT_MS);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw usageError(`Bad --timeout ${String(opts.timeout)}: give milliseconds > 0.`);
  const maxAnswerChars = Number(opts['max-chars'] ?? DEFAULT_MAX_ANSWER_CHARS);
  if (!Number.isFinite(maxAnswerChars) || maxAnswerChars < 500)
    throw usageError(`Bad --max-chars ${String(opts['max-chars'])}: give at least 500.`);
  const viewText = String(opts.view ?? pick(env, 'GAME_BRIDGE_VIEW') ?? 'debug');
  if (!(VIEWS as readonly string[]).includes(viewText))
    throw usageError(
      `Bad ${opts.view !== undefined ? '--view' : 'GAME_BRIDGE_VIEW'} '${viewText}': give debug or player.`,
    );
  const abs = (p: unknown) => (p === undefined ? undefined : resolve(cwd, String(p)));
  const cleanEnv = stringEnv(env);
  return {
    port,
    scanRange: parsePortList(scanRangeText),
    scanRangeText,
    scan: opts.scan !== false,
    registry: opts.registry !== false,
    registryDir: abs(opts['registry-dir']) ?? registryDir(env),
    configPath: abs(opts.config ?? pick(env, 'GAME_BRIDGE_CONFIG')),
    launchHint:
      (opts['launch-hint'] as string | undefined) ?? pick(env, 'GAME_BRIDGE_LAUNCH_HINT', 'GAME_BRIDGE_LAUNCH'),
    manifestPath: abs(opts.manifest ?? pick(env, 'GAME_BRIDGE_MANIFEST')),
    eager: opts.eager === true,
    timeoutMs,
    maxAnswerChars,
    noDaemon: opts.daemon === false,
    cwd,
    env: cleanEnv,
    home: bridgeHome(env),
    view: viewText as View,
  };
}
