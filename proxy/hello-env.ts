/**
 * The environment the proxy tells the daemon: only what the daemon and a launched game need,
 * never every API key the client's shell happens to hold. The daemon is shared by every session
 * of the user (and runs project code: composites), so it gets: GAME_BRIDGE_* (the session's
 * settings), PATH and HOME, the locale, display and terminal plumbing a game process expects,
 * and the variables the project's gamebridge.json references (`$NAME` / `${NAME}` in any
 * string under `launch`). See docs/DECISIONS.md.
 */
import { readFileSync, statSync } from 'node:fs';
import { locateDeclaration } from '../shared/declaration-path.js';

const ALWAYS = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'TMPDIR',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XAUTHORITY',
  'XDG_RUNTIME_DIR',
]);
const REFERENCE = /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g;
const MAX_DECLARATION_BYTES = 1024 * 1024;

/** --config X / --config=X from the proxy's argv, else GAME_BRIDGE_CONFIG. */
function configArg(argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--config') return argv[i + 1];
    if (argv[i].startsWith('--config=')) return argv[i].slice(9);
  }
  return env.GAME_BRIDGE_CONFIG || undefined;
}

/**
 * Every string in `launch`, at any depth: the command and env, a profile's args and env, a web
 * server's command. Whatever part of the declaration a launch uses, what it names is sent.
 */
function stringsIn(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (depth > 8 || typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap((v) => stringsIn(v, depth + 1));
}

/** Names of variables the client's launch declaration references (none when there is none). */
export function referencedNames(cwd: string, argv: string[], env: NodeJS.ProcessEnv): Set<string> {
  const names = new Set<string>();
  try {
    const found = locateDeclaration(cwd, configArg(argv, env));
    if (!found.file || statSync(found.file).size > MAX_DECLARATION_BYTES) return names;
    const launch = (JSON.parse(readFileSync(found.file, 'utf8')) as { launch?: unknown }).launch;
    for (const t of stringsIn(launch)) for (const m of t.matchAll(REFERENCE)) names.add(m[1]);
  } catch {
    /* no readable declaration: the daemon reports that when a launch needs one */
  }
  return names;
}

/** The subset of `env` that goes into hello. */
export function helloEnv(env: NodeJS.ProcessEnv, cwd: string, argv: string[]): Record<string, string> {
  const wanted = referencedNames(cwd, argv, env);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (
      typeof v === 'string' &&
      (ALWAYS.has(k) || k.startsWith('GAME_BRIDGE_') || k.startsWith('LC_') || wanted.has(k))
    )
      out[k] = v;
  }
  return out;
}
