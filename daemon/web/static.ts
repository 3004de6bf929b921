/**
 * Serves a web game's `static` folder on 127.0.0.1 (sirv does the file serving: MIME types,
 * ranges, no path traversal). The page gets its own origin, separate from the contract port.
 *
 *   const site = await serveStatic({ root: '/abs/dist', port: 0 });
 *   site.url      http://127.0.0.1:<port>/   (index.html is served for "/")
 *   await site.close()
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, statSync } from 'node:fs';
import sirv from 'sirv';
import { usageError } from '../../shared/errors.js';

export interface StaticSite {
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function serveStatic(options: { root: string; port?: number }): Promise<StaticSite> {
  if (!existsSync(options.root) || !statSync(options.root).isDirectory()) {
    throw usageError(`the static folder '${options.root}' does not exist (build the game first?)`);
  }
  // dev: re-read files on each request, so a rebuilt game is served without restarting anything.
  const files = sirv(options.root, { dev: true, etag: true, dotfiles: false });
  const server = http.createServer((req, res) => {
    const host = req.headers.host;
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('Forbidden: unexpected Host header\n');
      return;
    }
    files(req, res, () => void res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`not found: ${req.url}\n`));
  });
  server.keepAliveTimeout = 30_000;
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `cannot serve ${options.root} on 127.0.0.1:${options.port ?? 0}: ${e.code === 'EADDRINUSE' ? 'the port is already in use' : e.message}`,
        ),
      ),
    );
    server.listen({ port: options.port ?? 0, host: '127.0.0.1', exclusive: true }, () =>
      resolve((server.address() as AddressInfo).port),
    );
  });
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
