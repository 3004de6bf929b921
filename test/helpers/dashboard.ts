/** The dashboard's URL for a test's home, from the real `game-bridge-mcp dashboard` command. */
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { promisify } from 'node:util';
import { CLI } from './procs.js';

const run = promisify(execFile);

/** Run `dashboard --no-open` for `home`; the one-time URL it prints. */
export async function dashboardUrl(home: string): Promise<string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_') && k !== 'DISPLAY' && k !== 'WAYLAND_DISPLAY')
      env[k] = v;
  const { stdout } = await run(process.execPath, [CLI, 'dashboard', '--no-open'], {
    env: { ...env, GAME_BRIDGE_HOME: home },
    timeout: 60000,
  });
  const url = stdout.trim().split('\n').pop() ?? '';
  if (!/^http:\/\/127\.0\.0\.1:\d+\/dashboard\?key=/.test(url)) throw new Error(`dashboard printed no URL: ${stdout}`);
  return url;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A plain HTTP request with exactly the headers given (Host included: fetch would not let us). */
export function rawRequest(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
        // an event stream never ends: its first bytes are enough
        if (String(res.headers['content-type']).startsWith('text/event-stream')) res.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
