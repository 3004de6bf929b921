/**
 * `game-bridge-mcp dashboard`: ask the running daemon for a one-time key (authenticated both ways,
 * as status and stop are: the token never crosses the wire, and the answer must prove it), print
 * the page's URL with it, and open a browser when there is a display (through a local file only
 * the user can read, so no other user sees the key in the opener's command line).
 * Opening is best effort: the URL is printed first, and a missing opener never fails the command.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writePrivateFile } from '../shared/private-files.js';
import { clientCredentials, PROOF_HEADER, proofOk } from '../shared/auth.js';
import { readDaemonFile, sameProcess } from '../shared/daemon-file.js';
import { bridgeHome, homePaths } from '../shared/paths.js';
import { selfCommand } from '../shared/self-command.js';

interface KeyAnswer {
  url: string;
  expiresInMs: number;
}

/** Print the URL (and open it unless `open` is false); exit code 1 when no daemon answers. */
export async function runDashboard(opts: { open: boolean }): Promise<number> {
  const paths = homePaths(bridgeHome());
  const info = readDaemonFile(paths.daemonJson);
  if (!info || !sameProcess(info.pid, info.pidStart)) {
    process.stderr.write(
      `No daemon is running for ${paths.home}. It starts when an MCP client connects to game-bridge-mcp ` +
        `(or run \`${selfCommand()} daemon\` in another terminal), then run \`${selfCommand()} dashboard\` again.\n`,
    );
    return 1;
  }
  let answer: KeyAnswer;
  try {
    answer = JSON.parse(await postKey(info.port, info.token)) as KeyAnswer;
  } catch (e) {
    process.stderr.write(
      `The daemon (pid ${info.pid}, port ${info.port}) did not give a dashboard key: ${(e as Error).message}. See ${paths.daemonLog}.\n`,
    );
    return 1;
  }
  const minutes = Math.round(answer.expiresInMs / 60000);
  process.stdout.write(`${answer.url}\n`);
  process.stderr.write(
    `Open this URL once within ${minutes} minutes; it logs this browser in for the daemon's life.\n`,
  );
  if (opts.open && opener('')) {
    // The browser is handed a file only this user can read, which redirects with the key: a
    // key URL as the opener's argument would be readable by every local user in /proc/*/cmdline.
    const page = join(paths.daemonDir, 'dashboard-open.html');
    try {
      writePrivateFile(page, redirectPage(answer.url));
      if (openBrowser(pathToFileURL(page).href)) process.stderr.write('Opening it in your browser.\n');
    } catch (e) {
      process.stderr.write(`Could not open it in a browser (${(e as Error).message}); open the URL above.\n`);
    }
  }
  return 0;
}

/** A page that sends the browser on to `url` at once. */
function redirectPage(url: string): string {
  const safe = url.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${safe}"><title>game-bridge dashboard</title>\n`;
}

/**
 * POST /dashboard/key on a connection that is closed after the answer (fetch's keep-alive
 * would hold the command open for seconds after it printed the URL). Only an answer proving the
 * token counts: anything else listening there could hand back a URL of its own.
 */
function postKey(port: number, token: string): Promise<string> {
  const { authorization, nonce } = clientCredentials(token);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/dashboard/key', method: 'POST', agent: false, headers: { authorization } },
      (res) => {
        // Nothing an unproven answer says is read, printed or waited for.
        if (!proofOk(token, nonce, res.headers[PROOF_HEADER])) {
          req.destroy();
          return reject(new Error(`whatever answers on port ${port} did not prove it knows daemon.json's token`));
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(body)
            : reject(new Error(`HTTP ${res.statusCode} ${body.trim().slice(0, 500)}`)),
        );
      },
    );
    // the whole exchange, not only a silent socket: a trickling sender cannot hold the command
    const timer = setTimeout(() => req.destroy(new Error('no answer within 5 s')), 5000);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end();
  });
}

/**
 * The platform's opener, when there is a display to open on: a program given the URL as one
 * argument, never a shell (cmd's `start` would read a `&` in a path as the next command).
 */
export function opener(
  url: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): [string, string[]] | undefined {
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return ['xdg-open', [url]];
  return undefined;
}

/** Start the opener detached; true when one was started (it may still fail on its own). */
export function openBrowser(url: string): boolean {
  const cmd = opener(url);
  if (!cmd) return false;
  try {
    const child = spawn(cmd[0], cmd[1], { detached: true, stdio: 'ignore', windowsHide: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
