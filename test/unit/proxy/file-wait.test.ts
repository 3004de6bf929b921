/** The connect loop's pause ends when daemon.json is published, and still ends without it. */
import { mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pauseUntilFileChanges } from '../../../proxy/file-wait.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gb-file-wait-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a file renamed into place (as the daemon publishes daemon.json) ends a long pause at once', async () => {
  const file = join(dir, 'daemon.json');
  const t = Date.now();
  const paused = pauseUntilFileChanges(file, 5000);
  setTimeout(() => {
    writeFileSync(join(dir, 'daemon.json.tmp'), '{}');
    renameSync(join(dir, 'daemon.json.tmp'), file);
  }, 100);
  await paused;
  expect(Date.now() - t).toBeLessThan(2000);
});

test('another file in the directory does not end the pause', async () => {
  const t = Date.now();
  const paused = pauseUntilFileChanges(join(dir, 'daemon.json'), 600);
  setTimeout(() => writeFileSync(join(dir, 'daemon.log'), 'line\n'), 50);
  await paused;
  expect(Date.now() - t).toBeGreaterThanOrEqual(590);
});

test('a directory that does not exist yet means the full pause, no error', async () => {
  const t = Date.now();
  await pauseUntilFileChanges(join(dir, 'missing', 'daemon.json'), 300);
  expect(Date.now() - t).toBeGreaterThanOrEqual(290);
});
