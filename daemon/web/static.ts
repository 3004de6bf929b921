/**
 * Serves a web game's `static` folder on 127.0.0.1 (sirv does the file serving: MIME types,
 * ranges, no `..` in a path). The page gets its own origin, separate from the contract port.
 * Every local user can reach the port, so only the folder's own files are served: nothing a
 * symbolic link leads to outside it (a cloned repository with `www/fs -> /` would otherwise
 * serve the user's keys), and no dotfile or dot-folder (`.env`, `.git/config`). The door's
 * bounds and Host and browser checks are the loopback guard's (shared/loopback.ts).
 *
 *   const site = await serveStatic({ root: '/abs/dist', port: 0 });
 *   site.url      http://127.0.0.1:<port>/   (index.html is served for "/")
 *   await site.close()
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import sirv from 'sirv';
import { usageError } from '../../shared/errors.js';
import { openLoopbackDoor, refuse, STATIC_CONNECTIONS, type Refusal } from '../../shared/loopback.js';

export interface StaticSite {
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function serveStatic(options: {
  root: string;
  port?: number;
  /** connections at once (default STATIC_CONNECTIONS) */
  maxConnections?: number;
}): Promise<StaticSite> {
  if (!existsSync(options.root) || !statSync(options.root).isDirectory()) {
    throw usageError(`the static folder '${options.root}' does not exist (build the game first?)`);
  }
  const root = realpathSync(options.root);
  // dev: re-read files on each request, so a rebuilt game is served without restarting anything.
  const files = sirv(root, { dev: true, etag: true, dotfiles: false });
  const notFound = (res: ServerResponse, path: string) =>
    refuse(res, { status: 404, error: `not found: ${path.slice(0, 200)}` });
  const door = await openLoopbackDoor({
    cap: options.maxConnections ?? STATIC_CONNECTIONS,
    port: options.port ?? 0,
    what: `serving ${options.root}`,
    onRequest: (req, res) => {
      const refused = pathRefusal(root, req);
      if (refused) return refuse(res, refused);
      files(req, res, () => notFound(res, req.url ?? '/'));
    },
  });
  return { port: door.port, url: `http://127.0.0.1:${door.port}/`, close: () => door.close() };
}

/** The files sirv may read for a path (dev mode): the path, with .html/.htm, or its index. */
const CANDIDATES = ['', '.html', '.htm', `${sep}index.html`, `${sep}index.htm`];

/**
 * A path naming a dotfile (or anything in a dot-folder), or one whose file resolves outside the
 * folder through a symbolic link, is answered 404: the same as a file that is not there.
 */
function pathRefusal(root: string, req: IncomingMessage): Refusal | undefined {
  let path: string;
  try {
    path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  } catch {
    return { status: 400, error: 'Bad Request: the path is not valid URL encoding' };
  }
  const missing = { status: 404, error: `not found: ${(req.url ?? '/').slice(0, 200)}` };
  if (path.split('/').some((part) => part.startsWith('.')) || path.includes('\0')) return missing;
  const base = join(root, path);
  for (const suffix of CANDIDATES) {
    let real: string;
    try {
      real = realpathSync(base + suffix);
    } catch {
      continue; // not there: sirv will not read it either
    }
    if (real !== root && !real.startsWith(root + sep)) return missing;
  }
  return undefined;
}
