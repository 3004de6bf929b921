/**
 * gamebridge.json (docs/CONTRACT.md): find it by walking up from the client's cwd (or take the
 * path the client named) and validate it into a LaunchDeclaration. Every complaint names the
 * file and the field, because the person reading it has to go and fix that file.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parsePortList } from '../../shared/config.js';
import { isBridgeError, usageError } from '../../shared/errors.js';
import { selfCommand } from '../../shared/self-command.js';
import { parseEnv, parseProfiles, type LaunchProfile } from './profiles.js';

export const DECLARATION_FILE = 'gamebridge.json';
export const DEFAULT_READY_TIMEOUT_MS = 60000;
const MAX_DECLARATION_BYTES = 1024 * 1024;
/** Used when a declaration names no portRange (the spec's own example range). */
export const DEFAULT_PORT_RANGE = '7820-7839';

export interface LaunchDeclaration {
  /** the gamebridge.json this came from (absolute) */
  file: string;
  /** the directory holding it */
  dir: string;
  name?: string;
  /** still holds `{port}`: substituted per launch */
  command: string;
  /** absolute (the file's `launch.cwd`, relative to its directory) */
  cwd: string;
  portRange: number[];
  readyTimeoutMs: number;
  /** may hold `{port}` and `{index}` too */
  env: Record<string, string>;
  /** launch.profiles: named variants (args appended, env laid over, own readyTimeoutMs) */
  profiles: Record<string, LaunchProfile>;
  /** absolute path of the composites module, if the file names one */
  composites?: string;
}

/** Computed when needed: it looks at PATH. */
const howToCreate = () => `Create one in your project root (\`${selfCommand()} init\` writes a template), or name one with --config / GAME_BRIDGE_CONFIG.`;

export function findDeclaration(opts: { cwd: string; configPath?: string }): LaunchDeclaration {
  if (opts.configPath) {
    let file = resolve(opts.cwd, opts.configPath);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, DECLARATION_FILE);
    if (!existsSync(file)) {
      throw usageError(`The launch declaration ${file} (from --config / GAME_BRIDGE_CONFIG) does not exist. ${howToCreate()}`, { file });
    }
    return readDeclaration(file);
  }
  const looked: string[] = [];
  let dir = resolve(opts.cwd);
  for (;;) {
    looked.push(dir);
    const file = join(dir, DECLARATION_FILE);
    if (existsSync(file) && statSync(file).isFile()) return readDeclaration(file);
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw usageError(`No ${DECLARATION_FILE} found. Looked in: ${looked.join(', ')}. ${howToCreate()}`, { looked });
}

export function readDeclaration(file: string): LaunchDeclaration {
  const bad = (field: string, why: string) =>
    usageError(`${file}: ${field} ${why}. Fix the file (see \`${selfCommand()} init\` for a template).`, { file, field });
  let raw: unknown;
  // Only a regular file of sane size: the path may come from a tool argument, and reading
  // /dev/zero or a FIFO would block the daemon for every client.
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    throw usageError(`${file} cannot be read (${(e as Error).message}). ${howToCreate()}`, { file });
  }
  if (!st.isFile() || st.size > MAX_DECLARATION_BYTES) {
    throw usageError(`${file} is not a gamebridge.json (${st.isFile() ? `larger than ${MAX_DECLARATION_BYTES} bytes` : 'not a regular file'}). ${howToCreate()}`, { file });
  }
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw usageError(`${file} is not valid JSON (${(e as Error).message}). Fix the file (see \`${selfCommand()} init\` for a template).`, { file });
  }
  if (!isObject(raw)) throw bad('the top level', 'must be a JSON object');
  const dir = dirname(file);
  const name = raw.name;
  if (name !== undefined && typeof name !== 'string') throw bad('"name"', 'must be a string');
  const launch = raw.launch;
  if (!isObject(launch)) throw bad('"launch"', 'is missing: it must be an object with at least "command"');
  const command = launch.command;
  if (typeof command !== 'string' || !command.trim()) {
    throw bad('"launch.command"', 'is missing: give the shell command that starts the game, with {port} where the debug port goes');
  }

  const cwdField = launch.cwd ?? '.';
  if (typeof cwdField !== 'string') throw bad('"launch.cwd"', 'must be a string (relative to the file\'s directory)');
  const cwd = resolve(dir, cwdField);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw bad('"launch.cwd"', `points at ${cwd}, which is not a directory`);

  let portRange: number[];
  const pr = launch.portRange ?? DEFAULT_PORT_RANGE;
  try {
    if (typeof pr === 'string') portRange = parsePortList(pr);
    else if (typeof pr === 'number') portRange = parsePortList(String(pr));
    else if (Array.isArray(pr) && pr.every((p) => typeof p === 'number' || typeof p === 'string')) portRange = parsePortList(pr.join(','));
    else throw bad('"launch.portRange"', `is ${JSON.stringify(pr)}: give a range like "7820-7839"`);
  } catch (e) {
    if (isBridgeError(e) && e.data.kind === 'BridgeUsageError' && e.data.field) throw e;
    throw bad('"launch.portRange"', `is ${JSON.stringify(pr)}: give a range like "7820-7839"`);
  }
  if (!portRange.length) throw bad('"launch.portRange"', 'is empty: give a range like "7820-7839"');

  const rt = launch.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  if (typeof rt !== 'number' || !Number.isFinite(rt) || rt <= 0) throw bad('"launch.readyTimeoutMs"', 'must be a number of milliseconds > 0');

  const env = parseEnv(launch.env, '"launch.env', bad);
  const profiles = parseProfiles(launch.profiles, bad);

  let composites: string | undefined;
  if (raw.composites !== undefined) {
    if (typeof raw.composites !== 'string' || !raw.composites) throw bad('"composites"', 'must be a path (relative to the file\'s directory)');
    composites = resolve(dir, raw.composites);
  }

  return { file, dir, name, command, cwd, portRange, readyTimeoutMs: rt, env, profiles, composites };
}

/** `{port}` → the port, in a command or an env value. */
export function withPort(text: string, port: number): string {
  return text.replaceAll('{port}', String(port));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
