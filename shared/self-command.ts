/**
 * The command that runs this CLI where the user is: `game-bridge-mcp` when that name on PATH is
 * this very install (npm i -g, npm link, npx), else `node /abs/…/dist/proxy/main.js` (a clone).
 * Hints printed by the CLI and the daemon use it, so a hint pasted as written works.
 */
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/proxy/main.js, found from dist/shared/ (compiled) or dist/daemon/ (the daemon bundle): both are its siblings; from the sources (tests), the build's. */
const MAIN_JS =
  [new URL('../proxy/main.js', import.meta.url), new URL('../dist/proxy/main.js', import.meta.url)]
    .map((u) => fileURLToPath(u))
    .find((p) => existsSync(p) && p.endsWith('.js')) ?? fileURLToPath(new URL('../proxy/main.js', import.meta.url));

/** The absolute path of this install's bin, dist/proxy/main.js (what run_test runs the CLI with). */
export const mainJs = (): string => MAIN_JS;

let cached: string | undefined;

/** `game-bridge-mcp` if PATH finds this install under that name, else `node <abs main.js>`. */
export function selfCommand(): string {
  cached ??= onPath('game-bridge-mcp') ? 'game-bridge-mcp' : `node ${quote(MAIN_JS)}`;
  return cached;
}

/**
 * The same as a command and its arguments, for files an MCP client spawns from (.mcp.json):
 * `game-bridge-mcp` when PATH finds this install, else node (the one on PATH, or this one) and
 * the absolute main.js.
 */
export function selfInvocation(): { command: string; args: string[] } {
  if (onPath('game-bridge-mcp')) return { command: 'game-bridge-mcp', args: [] };
  return { command: nodeOnPath() ? 'node' : process.execPath, args: [MAIN_JS] };
}

function nodeOnPath(): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'node'))) return true;
  return false;
}

/** Does a PATH entry named `name` resolve to our own main.js? */
function onPath(name: string): boolean {
  const target = real(MAIN_JS);
  if (!target) return false;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    // npm (link, -g, npx) makes the file it links executable; what matters is that it is ours.
    if (real(join(dir, name)) === target) return true;
  }
  return false;
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Quote a path for a POSIX shell only when it needs it. */
function quote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}
