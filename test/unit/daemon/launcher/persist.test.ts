/**
 * Who may write launched.json: only the holder of the home's lock, checked again just before the
 * rename; and the holder puts its own table back when another process wrote the file last (a
 * daemon frozen in the middle of a save finishes that write when it wakes).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LaunchedWriter } from '../../../../daemon/launcher/persist.js';
import type { LaunchedInstance } from '../../../../daemon/launcher/types.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gb-writer-'));
  file = join(dir, 'launched.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const game = { port: 7001, pid: 4242, name: 'g' } as LaunchedInstance;
const table = () => ({ instances: [game], exited: [] });
const onDisk = () => JSON.parse(readFileSync(file, 'utf8')) as { savedBy: number; instances: Array<{ port: number }> };

test('a writer that may write saves its table, signed with its pid', () => {
  new LaunchedWriter(file, true, () => true, table).save();
  expect(onDisk()).toMatchObject({ savedBy: process.pid, instances: [{ port: 7001 }] });
});

test('no write once the lock is lost, nor when the lock goes while the snapshot is taken', () => {
  new LaunchedWriter(file, true, () => false, table).save();
  expect(readdirSync(dir)).toEqual([]);
  let asks = 0;
  // the first check passes; the one just before the rename sees the lock gone
  new LaunchedWriter(file, true, () => ++asks === 1, table).save();
  expect(asks).toBe(2);
  expect(readdirSync(dir)).toEqual([]); // no file, and no temp file left behind
});

test('the holder writes its table again when another process wrote the file last', () => {
  const writer = new LaunchedWriter(file, true, () => true, table);
  expect(writer.repair()).toBe(false); // no file: nothing to repair (a first save writes it)
  writer.save();
  expect(writer.repair()).toBe(false); // ours
  writeFileSync(file, JSON.stringify({ version: 1, savedBy: process.pid + 1, instances: [], exited: [] }), {
    mode: 0o600,
  });
  expect(writer.repair()).toBe(true);
  expect(onDisk()).toMatchObject({ savedBy: process.pid, instances: [{ port: 7001 }] });
});

test('a writer that lost the lock, or handed over, or never persists, repairs nothing', () => {
  writeFileSync(file, JSON.stringify({ version: 1, savedBy: process.pid + 1, instances: [], exited: [] }), {
    mode: 0o600,
  });
  expect(new LaunchedWriter(file, true, () => false, table).repair()).toBe(false);
  expect(new LaunchedWriter(file, false, () => true, table).repair()).toBe(false);
  const handedOver = new LaunchedWriter(file, true, () => true, table);
  handedOver.dispose();
  expect(handedOver.repair()).toBe(false);
  expect(onDisk().savedBy).toBe(process.pid + 1);
});
