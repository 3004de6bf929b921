/**
 * argv + environment → one client session's settings (README.md, "The CLI").
 *
 * The daemon parses each proxy's argv with this, so every client keeps its own flags. The
 * proxy itself never imports this on its start path (yargs is not small).
 */
import yargs, { type Argv } from 'yargs';
import { resolve } from 'node:path';
import { usageError } from './errors.js';
import { bridgeHome, registryDir, type Env } from './paths.js';
import { stringEnv } from './env.js';
import { selfCommand } from './self-command.js';

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
}

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

/** The session options, shared by the bare command and `--no-daemon`; not inherited by subcommands. */
export function withSessionOptions<T>(y: Argv<T>) {
  return y
    .option('port', {
      alias: 'p',
      type: 'string',
      requiresArg: true,
      describe: 'Default game port for this client (env GAME_BRIDGE_PORT)',
      global: false,
    })
    .option('scan-range', {
      type: 'string',
      describe: `Ports list_instances probes (default ${DEFAULT_SCAN_RANGE}; env GAME_BRIDGE_SCAN_RANGE)`,
      global: false,
    })
    .option('scan', {
      type: 'boolean',
      default: true,
      describe: 'Probe the scan range (--no-scan turns it off)',
      global: false,
    })
    .option('registry', {
      type: 'boolean',
      default: true,
      describe: 'Read the self-registration registry (--no-registry turns it off)',
      global: false,
    })
    .option('registry-dir', {
      type: 'string',
      describe: 'Registry directory (env GAME_BRIDGE_INSTANCES)',
      global: false,
    })
    .option('config', {
      type: 'string',
      describe: 'gamebridge.json to launch from (env GAME_BRIDGE_CONFIG)',
      global: false,
    })
    .option('launch-hint', {
      type: 'string',
      describe: 'How to start a game, shown in GameOffline, e.g. "make run PORT={port}"',
      global: false,
    })
    .option('manifest', {
      type: 'string',
      describe: 'Manifest file for a game that serves no /tools (env GAME_BRIDGE_MANIFEST)',
      global: false,
    })
    .option('eager', {
      type: 'boolean',
      default: false,
      describe: 'Advertise every tool of every live game flatly',
      global: false,
    })
    .option('timeout', {
      type: 'number',
      describe: `HTTP and command timeout in ms (default ${DEFAULT_TIMEOUT_MS})`,
      global: false,
    })
    .option('max-chars', {
      type: 'number',
      describe: `Cut answers longer than this (default ${DEFAULT_MAX_ANSWER_CHARS})`,
      global: false,
    })
    .option('daemon', {
      type: 'boolean',
      default: true,
      describe: '--no-daemon runs the engine in this process',
      global: false,
    });
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
  };
}

/**
 * Parse a client's argv (session flags only, as the daemon receives them in `hello`).
 * Unknown flags are an error: a typo must not silently change behaviour.
 */
export function parseSessionArgs(argv: string[], env: Env = process.env, cwd = process.cwd()): SessionConfig {
  let failure: string | undefined;
  const opts = withSessionOptions(yargs(argv))
    .strict()
    .help(false)
    .version(false)
    .exitProcess(false)
    .fail((msg, err) => {
      failure = msg || err?.message || 'bad arguments';
    })
    .parseSync();
  if (failure) throw usageError(`${failure}. Run ${selfCommand()} --help for the options.`);
  if (opts._.length)
    throw usageError(`Unexpected argument '${String(opts._[0])}'. Run ${selfCommand()} --help for the options.`);
  return sessionConfigFrom(opts as Record<string, unknown>, env, cwd);
}
