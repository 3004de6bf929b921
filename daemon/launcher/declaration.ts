/**
 * gamebridge.json (docs/CONTRACT.md): find it by walking up from the client's cwd (or take the
 * path the client named) and validate it into a LaunchDeclaration. Every complaint names the
 * file and the field, because the person reading it has to go and fix that file; none quotes
 * the file's contents (a path from a tool argument may name any file). Where the walk stops,
 * and which files are believed: shared/declaration-path.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DECLARATION_FILE, distrustFile, locateDeclaration } from '../../shared/declaration-path.js';
import { trustFix } from '../../shared/trust.js';
import { parsePortList } from '../../shared/config.js';
import { isBridgeError, usageError } from '../../shared/errors.js';
import { selfCommand } from '../../shared/self-command.js';
import { parseEnv, parseProfiles, type LaunchProfile } from './profiles.js';
export { withClientEnv } from './profiles.js';
import { parseWebDeclaration, type WebDeclaration } from './web-declaration.js';

export { DECLARATION_FILE };
export const DEFAULT_READY_TIMEOUT_MS = 60000;
const MAX_DECLARATION_BYTES = 1024 * 1024;
/** Used when a declaration names no portRange (the range docs/LAUNCHING.md shows). */
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
  /** launch.web: a browser game (its page opened in Chromium, joined to a page carrier); command is then '' */
  web?: WebDeclaration;
}

/** Computed when needed: it looks at PATH. */
const howToCreate = () =>
  `Create one in your project root (\`${selfCommand()} init\` writes a template), or name one with --config / GAME_BRIDGE_CONFIG.`;

/** `home`: the client's HOME, a boundary of the walk (the daemon's own may differ). */
export function findDeclaration(opts: { cwd: string; configPath?: string; home?: string }): LaunchDeclaration {
  const found = locateDeclaration(opts.cwd, opts.configPath, opts.home);
  if (found.refused) {
    const { file, path, why } = found.refused;
    throw usageError(
      `${file} is not used: ${path === file ? 'it' : path} ${why.replace(/^it /, '')}. ${trustFix(path)}`,
      { file, refused: path },
    );
  }
  if (found.file) return readDeclaration(found.file);
  if (opts.configPath) {
    throw usageError(
      `The launch declaration ${found.looked[0]} (from --config / GAME_BRIDGE_CONFIG) does not exist. ${howToCreate()}`,
      { file: found.looked[0] },
    );
  }
  const stopped = found.stopped ? ` The search stopped at ${found.stopped}.` : '';
  throw usageError(`No ${DECLARATION_FILE} found. Looked in: ${found.looked.join(', ')}.${stopped} ${howToCreate()}`, {
    looked: found.looked,
  });
}

export function readDeclaration(file: string): LaunchDeclaration {
  const bad = (field: string, why: string) =>
    usageError(`${file}: ${field} ${why}. Fix the file (see \`${selfCommand()} init\` for a template).`, {
      file,
      field,
    });
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
    throw usageError(
      `${file} is not a gamebridge.json (${st.isFile() ? `larger than ${MAX_DECLARATION_BYTES} bytes` : 'not a regular file'}). ${howToCreate()}`,
      { file },
    );
  }
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    // Only where it broke, never what the file says: the path may name someone's secrets.
    const at = /position (\d+)/.exec((e as Error).message)?.[1];
    throw usageError(
      `${file} is not valid JSON${at ? ` (at byte ${at})` : ''}. Fix the file (see \`${selfCommand()} init\` for a template).`,
      { file },
    );
  }
  if (!isObject(raw)) throw bad('the top level', 'must be a JSON object');
  const dir = dirname(file);
  const name = raw.name;
  if (name !== undefined && typeof name !== 'string') throw bad('"name"', 'must be a string');
  const launch = raw.launch;
  if (!isObject(launch)) throw bad('"launch"', 'is missing: it must be an object with at least "command"');
  const web = parseWebDeclaration(launch.web, dir, bad);
  const command = web ? '' : launch.command;
  if (typeof command !== 'string' || (!web && !command.trim())) {
    throw bad(
      '"launch.command"',
      'is missing: give the shell command that starts the game, with {port} where the debug port goes',
    );
  }

  const cwdField = launch.cwd ?? '.';
  if (typeof cwdField !== 'string') throw bad('"launch.cwd"', "must be a string (relative to the file's directory)");
  const cwd = resolve(dir, cwdField);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory())
    throw bad('"launch.cwd"', `points at ${cwd}, which is not a directory`);

  let portRange: number[];
  const pr = launch.portRange ?? DEFAULT_PORT_RANGE;
  try {
    if (typeof pr === 'string') portRange = parsePortList(pr);
    else if (typeof pr === 'number') portRange = parsePortList(String(pr));
    else if (Array.isArray(pr) && pr.every((p) => typeof p === 'number' || typeof p === 'string'))
      portRange = parsePortList(pr.join(','));
    else throw bad('"launch.portRange"', `is ${JSON.stringify(pr)}: give a range like "7820-7839"`);
  } catch (e) {
    if (isBridgeError(e) && e.data.kind === 'BridgeUsageError' && e.data.field) throw e;
    throw bad('"launch.portRange"', `is ${JSON.stringify(pr)}: give a range like "7820-7839"`);
  }
  if (!portRange.length) throw bad('"launch.portRange"', 'is empty: give a range like "7820-7839"');

  const rt = launch.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  if (typeof rt !== 'number' || !Number.isFinite(rt) || rt <= 0)
    throw bad('"launch.readyTimeoutMs"', 'must be a number of milliseconds > 0');

  const env = parseEnv(launch.env, '"launch.env', bad);
  const profiles = parseProfiles(launch.profiles, bad);

  let composites: string | undefined;
  if (raw.composites !== undefined) {
    if (typeof raw.composites !== 'string' || !raw.composites)
      throw bad('"composites"', "must be a path (relative to the file's directory)");
    composites = resolve(dir, raw.composites);
    // The daemon imports this module: it must be as trustworthy as the declaration itself.
    const refused = existsSync(composites) ? distrustFile(composites) : undefined;
    if (refused)
      throw bad(
        '"composites"',
        `names ${composites}, which is not used: ${refused.path === composites ? 'it' : refused.path} ${refused.why.replace(/^it /, '')}. ${trustFix(refused.path)}`,
      );
  }

  return { file, dir, name, command, cwd, portRange, readyTimeoutMs: rt, env, profiles, composites, web };
}

/** `{port}` → the port, in a command or an env value. */
export function withPort(text: string, port: number): string {
  return text.replaceAll('{port}', String(port));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
