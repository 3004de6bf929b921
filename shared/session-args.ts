/**
 * A client's flags → its session's settings, parsed with yargs. The daemon parses each proxy's
 * argv with this, so every client keeps its own flags; it loads this module only for a client
 * that passes flags (most pass none), and the bare proxy never loads it: yargs is not small.
 */
import yargs, { type Argv } from 'yargs';
import {
  sessionConfigFrom,
  DEFAULT_SCAN_RANGE,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_MAX_ANSWER_CHARS,
  type SessionConfig,
} from './config.js';
import { usageError } from './errors.js';
import type { Env } from './paths.js';
import { nearest } from './near.js';
import { selfCommand } from './self-command.js';

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
    .option('view', {
      type: 'string',
      requiresArg: true,
      describe: 'debug (default) or player: see and do only what a player could (env GAME_BRIDGE_VIEW)',
      global: false,
    })
    .option('daemon', {
      type: 'boolean',
      default: true,
      describe: '--no-daemon runs the engine in this process',
      global: false,
    });
}

/**
 * Parse a client's argv (session flags only, as the daemon receives them in `hello`).
 * Unknown flags are an error: a typo must not silently change behaviour.
 */
export function parseSessionArgs(argv: string[], env: Env = process.env, cwd = process.cwd()): SessionConfig {
  let failure: string | undefined;
  const parser = withSessionOptions(yargs(argv));
  const opts = parser
    .strict()
    .help(false)
    .version(false)
    .exitProcess(false)
    .fail((msg, err) => {
      failure = msg || err?.message || 'bad arguments';
    })
    .parseSync();
  if (failure)
    throw usageError(
      `${withNearFlags(failure, parser as unknown as OptionsOf)}. Run ${selfCommand()} --help for the options.`,
    );
  if (opts._.length)
    throw usageError(`Unexpected argument '${String(opts._[0])}'. Run ${selfCommand()} --help for the options.`);
  return sessionConfigFrom(opts as Record<string, unknown>, env, cwd);
}

/** yargs keeps the options it was given at run time; its types leave that method out. */
type OptionsOf = { getOptions(): { key: Record<string, unknown> } };

/** yargs' "Unknown argument: prot" with the flag it most likely meant: `(did you mean --port?)`. */
function withNearFlags(failure: string, parser: OptionsOf): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(failure);
  if (!unknown) return failure;
  const flags = Object.keys(parser.getOptions().key).filter((k) => k.length > 1);
  const near = unknown[1]
    .split(', ')
    .map((u) => [u, nearest(u, flags)] as const)
    .filter(([, n]) => n !== undefined)
    .map(([u, n]) => `--${n} for ${u}`);
  if (!near.length) return failure;
  return `${failure} (did you mean ${near.length === 1 && !unknown[1].includes(', ') ? near[0].replace(/ for .*/, '') : near.join(', ')}?)`;
}
