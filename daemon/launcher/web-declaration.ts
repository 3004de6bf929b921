/**
 * The web form of a launch declaration (docs/CONTRACT.md, "Browser games"):
 *
 *   "launch": {"web": {"command": "npx vite --port {webPort} --strictPort",
 *                      "url": "http://127.0.0.1:{webPort}/", "static": null, "headless": true}}
 *
 * Either `static` (a folder served by the daemon, relative to the file) or `command` (a server the
 * game's own tooling runs, with `{webPort}` where its port goes, and `url` saying where the page is).
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BridgeError } from '../../shared/errors.js';

export interface WebDeclaration {
  /** absolute folder served by the daemon, or undefined when a command serves the page */
  static?: string;
  /** the server's command; may hold {webPort} and {port} */
  command?: string;
  /** the page: a full URL (may hold {webPort}), or a path inside the static folder; default its index.html */
  url?: string;
  /** default true; false opens a window a person can watch */
  headless: boolean;
  /** false: the page has no game kit, and the page carrier answers the contract itself through the browser */
  kit: boolean;
  /** seeds Math.random and crypto.getRandomValues before the page's scripts */
  seed?: string;
  /** an expression evaluated in a page without the kit: its value is the state's `game` */
  state?: string;
}

type Bad = (field: string, why: string) => BridgeError;

/** Validates `launch.web`; undefined when the declaration has none. */
export function parseWebDeclaration(raw: unknown, dir: string, bad: Bad): WebDeclaration | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw bad(
      '"launch.web"',
      'must be an object: {"static": "dist"} or {"command": "…{webPort}…", "url": "http://127.0.0.1:{webPort}/"}',
    );
  const web = raw as Record<string, unknown>;
  const optString = (key: string): string | undefined => {
    const v = web[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string' || !v.trim()) throw bad(`"launch.web.${key}"`, 'must be a non-empty string or null');
    return v;
  };
  const command = optString('command');
  const staticDir = optString('static');
  const url = optString('url');
  if (web.headless !== undefined && typeof web.headless !== 'boolean')
    throw bad('"launch.web.headless"', 'must be true or false');
  if (web.kit !== undefined && typeof web.kit !== 'boolean')
    throw bad('"launch.web.kit"', 'must be true or false (false: a page without the game kit)');
  if (command && staticDir)
    throw bad(
      '"launch.web"',
      'names both "command" and "static": give one (a folder the bridge serves, or a server your tooling runs)',
    );
  if (!command && !staticDir)
    throw bad(
      '"launch.web"',
      'needs "static" (a folder to serve, e.g. "dist") or "command" (a server, with {webPort} where its port goes)',
    );
  if (command && !url)
    throw bad(
      '"launch.web.url"',
      'is missing: say where the command serves the page, e.g. "http://127.0.0.1:{webPort}/"',
    );
  if (url && command && !/^https?:\/\//.test(url))
    throw bad('"launch.web.url"', `is ${JSON.stringify(url)}: with a command it must be a full http URL`);
  let folder: string | undefined;
  if (staticDir) {
    folder = resolve(dir, staticDir);
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw bad('"launch.web.static"', `points at ${folder}, which is not a directory (build the game first?)`);
  }
  const seed = web.seed === undefined || web.seed === null ? undefined : checkSeed(web.seed, bad);
  const state = optString('state');
  if (state !== undefined && web.kit !== false)
    throw bad(
      '"launch.web.state"',
      'reads the state of a page without the kit ("kit": false); a page with the kit publishes its own snapshot',
    );
  return {
    static: folder,
    command,
    url,
    headless: web.headless !== false,
    kit: web.kit !== false,
    ...(seed !== undefined ? { seed } : {}),
    ...(state !== undefined ? { state } : {}),
  };
}

const MAX_SEED_CHARS = 200;

/** A seed as the page gets it: a string or a whole number, up to 200 characters. */
export function checkSeed(raw: unknown, bad: Bad): string {
  if (
    !(typeof raw === 'string' || Number.isSafeInteger(raw)) ||
    String(raw).length === 0 ||
    String(raw).length > MAX_SEED_CHARS
  )
    throw bad('"launch.web.seed"', `must be a string or a whole number (up to ${MAX_SEED_CHARS} characters), e.g. 42`);
  return String(raw);
}

/** `{webPort}` and `{port}` → the ports, in a command or a URL. */
export function withWebPorts(text: string, port: number, webPort: number): string {
  return text.replaceAll('{webPort}', String(webPort)).replaceAll('{port}', String(port));
}
