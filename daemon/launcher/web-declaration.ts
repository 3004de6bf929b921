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
import type { WebFields } from './declaration-schema.js';

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

/** `launch.web` as the schema passed it (declaration-schema.ts) → the declaration, its folder checked on disk. */
export function webDeclaration(web: WebFields, dir: string, bad: Bad): WebDeclaration {
  let folder: string | undefined;
  if (web.static) {
    folder = resolve(dir, web.static);
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw bad('"launch.web.static"', `points at ${folder}, which is not a directory (build the game first?)`);
  }
  return {
    static: folder,
    command: web.command ?? undefined,
    url: web.url ?? undefined,
    headless: web.headless,
    kit: web.kit,
    ...(web.seed != null ? { seed: web.seed } : {}),
    ...(web.state != null ? { state: web.state } : {}),
  };
}

/** `{webPort}` and `{port}` → the ports, in a command or a URL. */
export function withWebPorts(text: string, port: number, webPort: number): string {
  return text.replaceAll('{webPort}', String(webPort)).replaceAll('{port}', String(port));
}
