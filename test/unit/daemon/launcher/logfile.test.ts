/**
 * A page's console lines into its game's log (daemon/launcher/logfile.ts ConsoleLog), on real
 * files: lines beyond what one write takes are dropped and their count is said in the log, and
 * the log never passes its bound, the part before it kept in `<log>.1`.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleLog, MAX_PENDING_LINES } from '../../../../daemon/launcher/logfile.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gb-logfile-'));
  file = join(dir, 'instance-1-1.log');
  writeFileSync(file, '[game-bridge] launching\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('lines beyond what one write takes are dropped and their count is said in the log', () => {
  const log = new ConsoleLog(() => file, 1 << 20);
  for (let i = 0; i < MAX_PENDING_LINES + 250; i++) log.line(`console.log: line ${i}`);
  log.flush();
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  expect(lines.filter((l) => l.startsWith('console.log: '))).toHaveLength(MAX_PENDING_LINES);
  expect(lines.at(-1)).toMatch(/^\[game-bridge\] 250 console lines dropped: the page wrote more than 1000 in 100 ms/);
});

test('the log never passes its bound, the part before kept in <log>.1', () => {
  const bound = 8 * 1024;
  const log = new ConsoleLog(() => file, bound);
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 40; i++) log.line(`console.log: round ${round} line ${i} ${'x'.repeat(60)}`);
    log.flush();
    expect(statSync(file).size).toBeLessThanOrEqual(bound);
  }
  expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(bound);
  expect(readFileSync(file, 'utf8')).toMatch(
    /^\[game-bridge\] the log passed 8192 bytes: the part before is in instance-1-1\.log\.1/,
  );
});

test('a line longer than the log holds is cut, saying how long it was', () => {
  const log = new ConsoleLog(() => file, 4096);
  log.line(`console.log: ${'y'.repeat(100_000)}`);
  log.flush();
  expect(statSync(file).size).toBeLessThanOrEqual(4096);
  expect(readFileSync(file, 'utf8')).toMatch(/y… \(100013 characters\)\n$/);
});
