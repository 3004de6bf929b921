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

/** `{port}` and `{index}` → their values, in a command, an argument string or an env value. */
export function substitute(text: string, port: number, index: number): string {
  return text.replaceAll('{port}', String(port)).replaceAll('{index}', String(index));
}

/**
 * Set to 1 for a launch with `paused`: every kit then starts its clock paused at simFrame 0, so
 * the bridge steps the game's first frame (docs/KITS.md, "Starting paused").
 */
export const START_PAUSED_ENV = 'GAME_BRIDGE_START_PAUSED';

/** The command, env and ready timeout of one launch; an unknown profile is a usage error naming the known ones. */
export function planLaunch(
  decl: Declared,
  port: number,
  opts: { profile?: string; index?: number; env: Record<string, string>; paused?: boolean },
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
  // Whether the game starts paused is the launch's to say, not whatever the client's shell held.
  delete env[START_PAUSED_ENV];
  for (const [k, v] of Object.entries({ ...decl.env, ...profile?.env }))
    env[k] = substitute(withClientEnv(v, opts.env), port, index);
  if (opts.paused) env[START_PAUSED_ENV] = '1';
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

/** `${NAME}` in an env value → the client's NAME (empty when unset): the proxy sends what is referenced. */
export function withClientEnv(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
}
