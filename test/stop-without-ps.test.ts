/**
 * Stopping a game where `ps` is missing (a slim image, or a client's minimal PATH that the
 * daemon inherits): tree-kill spawned `ps`, the spawn error went to the daemon's
 * uncaught-exception log, tree-kill never called back, and the stop (cached) and every later one
 * hung with the game left running. The escalation is bounded and falls back to the game's
 * process group. Run in a process of its own, set up as the daemon is (PATH, exception handler).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST } from './helpers/procs.js';

let emptyDir = '';
let pgid = 0;
afterEach(() => {
  if (pgid) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  rmSync(emptyDir, { recursive: true, force: true });
});

const script = `
import { spawn } from 'node:child_process';
const { escalate } = await import(${JSON.stringify(join(DIST, 'daemon', 'launcher', 'stop.js'))});
const { treeAlive } = await import(${JSON.stringify(join(DIST, 'daemon', 'launcher', 'processes.js'))});
process.on('uncaughtException', (e) => console.error('uncaught exception: ' + e.message));
// A launched game as the launcher makes it: its own process group, a child under it.
const game = spawn('/bin/sh', ['-c', '/bin/sleep 300 & exec /bin/sleep 301'], { detached: true, stdio: 'ignore' });
console.log(JSON.stringify({ pgid: game.pid }));
await new Promise((r) => setTimeout(r, 200));
const t0 = Date.now();
const how = await Promise.race([escalate(game.pid), new Promise((r) => setTimeout(() => r('hung'), 8000))]);
console.log(JSON.stringify({ how, ms: Date.now() - t0, left: treeAlive(game.pid) }));
process.exit(0);
`;

test('a game tree is stopped within seconds with no `ps` on the PATH', () => {
  emptyDir = mkdtempSync(join(tmpdir(), 'gb-nops-'));
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: emptyDir },
    encoding: 'utf8',
    timeout: 20000,
  });
  const [first, result] = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { pgid: number; how: string; ms: number; left: boolean });
  pgid = first.pgid;
  expect(result.how).toBe('terminated');
  expect(result.ms).toBeLessThan(6000);
  expect(result.left).toBe(false); // nothing of the group runs (zombies aside: their parent is gone)
}, 30000);
