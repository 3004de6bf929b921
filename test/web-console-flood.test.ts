/**
 * A page that logs without pause cannot grow what the shared daemon keeps: through the real
 * proxy, daemon and Chromium, a page writes about 3,000 console lines a second and, every two
 * seconds, 5,000 in one go. The game's log stays under GAME_BRIDGE_LOG_MAX_BYTES (the part before
 * is in `<log>.1`). Whether lines are dropped depends on how fast this machine lets the page
 * write; the dropped count's words are held by test/unit/daemon/launcher/logfile.test.ts.
 */
import { copyFileSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, cleanedAfterAll, connect, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { DIST, tempHome, waitFor } from './helpers/procs.js';

jest.setTimeout(240_000);

const BOUND = 64 * 1024;
const PAGE = `<!doctype html><title>chatty</title><script type="module">
import { createGameSurface } from './gamebridge.js';
const s = createGameSurface({ name: 'Chatty', version: '1', snapshot: () => ({}) });
s.listen();
(function f() { s.tick(); requestAnimationFrame(f); })();
let n = 0;
setInterval(() => { for (let i = 0; i < 30; i++) console.log('line', n++, { at: n, pad: 'x'.repeat(80) }); }, 10);
setInterval(() => { for (let i = 0; i < 5000; i++) console.log('burst', i); }, 2000);
</script>`;

let h: McpHandle;
let logFile: string;
let port: number;
// declared before the cleanup, so it runs first: the game stops while its client is open
afterAll(async () => {
  if (port) await call(h, 'stop_instance', { port }, 60_000);
});
const { homes, handles } = cleanedAfterAll();

beforeAll(async () => {
  const home = tempHome('gb-flood-');
  homes.push(home);
  const dir = join(home, 'project');
  mkdirSync(join(dir, 'www'), { recursive: true });
  copyFileSync(join(DIST, 'web', 'gamebridge.js'), join(dir, 'www', 'gamebridge.js'));
  writeFileSync(join(dir, 'www', 'index.html'), PAGE);
  const [first] = await freeRange(2);
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({
      name: 'Chatty',
      launch: { portRange: `${first}-${first + 1}`, readyTimeoutMs: 90_000, web: { static: 'www' } },
    }),
  );
  h = await connect({
    env: { GAME_BRIDGE_HOME: home, GAME_BRIDGE_LOG_MAX_BYTES: String(BOUND) },
    cwd: dir,
    args: ['--no-scan', '--timeout', '20000'],
  });
  handles.push(h);
  const launched = await call(h, 'launch_instance', {}, 120_000);
  if (launched.isError) throw new Error(launched.text);
  port = launched.json.port as number;
  logFile = launched.json.logFile as string;
}, 180_000);

test("a chatty page's log stays under its bound, the part before kept in <log>.1", async () => {
  await waitFor('the log to pass its bound once', () => (existsSync(`${logFile}.1`) ? true : null), 120_000);
  for (let i = 0; i < 10; i++) {
    expect(statSync(logFile).size).toBeLessThanOrEqual(BOUND);
    expect(statSync(`${logFile}.1`).size).toBeLessThanOrEqual(BOUND);
    await new Promise((r) => setTimeout(r, 300));
  }
  const { text } = await call(h, 'instance_log', { port, lines: 200 });
  expect(text).toMatch(/console\.log: (line|burst) \d+/);
});
