/**
 * Launch profiles (gamebridge.json `launch.profiles`): named variants of the one declared
 * command, e.g. a server and its clients. A profile's `args` are appended to the command, its
 * `env` is laid over the declaration's, and its `readyTimeoutMs` replaces the declaration's.
 * `{port}` and `{index}` are substituted everywhere at launch.
 */
import { usageError, type BridgeError } from '../../shared/errors.js';

export interface LaunchProfile {
  args?: string;
  env: Record<string, string>;
  readyTimeoutMs?: number;
}

/** What one launch runs: the declaration with a profile, a port and an index applied. */
export interface LaunchPlan {
  command: string;
  env: Record<string, string>;
  readyTimeoutMs: number;
}

/** The parts of a LaunchDeclaration (declaration.ts) a plan reads. */
interface Declared {
  file: string;
  command: string;
  env: Record<string, string>;
  readyTimeoutMs: number;
  profiles: Record<string, LaunchProfile>;
}

type Complain = (field: string, why: string) => BridgeError;

/** The `launch.profiles` object → profiles; every complaint names the field. */
export function parseProfiles(raw: unknown, bad: Complain): Record<string, LaunchProfile> {
  if (raw === undefined) return {};
  if (!isObject(raw))
    throw bad('"launch.profiles"', 'must be an object of named profiles, e.g. {"server": {"args": "--server"}}');
  const profiles: Record<string, LaunchProfile> = Object.create(null) as Record<string, LaunchProfile>;
  for (const [name, p] of Object.entries(raw)) {
    const field = `"launch.profiles.${name}`;
    if (!isObject(p)) throw bad(`${field}"`, 'must be an object with "args", "env" and/or "readyTimeoutMs"');
    if (p.args !== undefined && typeof p.args !== 'string')
      throw bad(`${field}.args"`, 'must be a string appended to the command');
    const rt = p.readyTimeoutMs;
    if (rt !== undefined && (typeof rt !== 'number' || !Number.isFinite(rt) || rt <= 0))
      throw bad(`${field}.readyTimeoutMs"`, 'must be a number of milliseconds > 0');
    profiles[name] = {
      args: p.args as string | undefined,
      env: parseEnv(p.env, `${field}.env`, bad),
      readyTimeoutMs: rt as number | undefined,
    };
  }
  return profiles;
}

/** An env object of strings (numbers and booleans are accepted as their text). */
export function parseEnv(raw: unknown, field: string, bad: Complain): Record<string, string> {
  const env: Record<string, string> = {};
  if (raw === undefined) return env;
  if (!isObject(raw)) throw bad(`${field}"`, 'must be an object of strings');
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === 'string') env[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') env[k] = String(v);
    else throw bad(`${field}.${k}"`, 'must be a string');
  }
  return env;
}

/** `{port}` and `{index}` → their values, in a command, an argument string or an env value. */
export function substitute(text: string, port: number, index: number): string {
  return text.replaceAll('{port}', String(port)).replaceAll('{index}', String(index));
}

/** The command, env and ready timeout of one launch; an unknown profile is a usage error naming the known ones. */
export function planLaunch(
  decl: Declared,
  port: number,
  opts: { profile?: string; index?: number; env: Record<string, string> },
): LaunchPlan {
  const index = opts.index ?? 0;
  // Own names only: `constructor` or `__proto__` would otherwise read the object's prototype.
  const profile =
    opts.profile === undefined || !Object.hasOwn(decl.profiles, opts.profile) ? undefined : decl.profiles[opts.profile];
  if (opts.profile !== undefined && !profile) throw unknownProfile(decl, opts.profile);
  const args = profile?.args?.trim();
  const command = substitute(args ? `${decl.command} ${args}` : decl.command, port, index);
  // The client's environment, not the daemon's: the game registers where that client reads.
  const env: Record<string, string> = { ...opts.env };
  for (const [k, v] of Object.entries({ ...decl.env, ...profile?.env }))
    env[k] = substitute(withClientEnv(v, opts.env), port, index);
  return { command, env, readyTimeoutMs: profile?.readyTimeoutMs ?? decl.readyTimeoutMs };
}

export function unknownProfile(decl: Declared, name: string): BridgeError {
  const known = Object.keys(decl.profiles);
  return usageError(
    `${decl.file} declares no launch profile '${name}'. ` +
      (known.length
        ? `Its profiles: ${known.join(', ')}.`
        : 'It declares none: add "launch.profiles" (see `game-bridge-mcp init --template multiplayer`).'),
    { file: decl.file, profile: name, known },
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `${NAME}` in an env value → the client's NAME (empty when unset): the proxy sends what is referenced. */
export function withClientEnv(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
}
