/**
 * What is believed of daemon.json (shared/daemon-file.ts): the daemon's facts in their shape and
 * bounds, or nothing (the proxy then starts or waits for a daemon of its own); a standby that
 * does not read is left out.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockDirOf, lockHolder, lockOwnerFileOf, readDaemonFile } from '../../../shared/daemon-file.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gb-daemon-file-'));
  file = join(dir, 'daemon.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const facts = { pid: 4242, port: 7900, token: 'f'.repeat(64), version: '0.2.0', startedAt: '2026-01-01T00:00:00Z' };
const read = (body: unknown) => {
  writeFileSync(file, JSON.stringify(body), { mode: 0o600 });
  return readDaemonFile(file);
};

test("a daemon's facts are read whole", () => {
  const standby = { pid: 4343, pidStart: 9, kind: 'warm' };
  expect(read({ ...facts, pidStart: 7, standby })).toEqual({ ...facts, pidStart: 7, standby });
});

test('a port out of range is not believed', () => {
  expect(read({ ...facts, port: 70000 })).toBeUndefined();
});

test('a pid that is not a whole number is not believed', () => {
  expect(read({ ...facts, pid: 42.5 })).toBeUndefined();
});

test('an empty token is not believed', () => {
  expect(read({ ...facts, token: '' })).toBeUndefined();
});

test('a file without a version is not believed', () => {
  expect(read({ ...facts, version: undefined })).toBeUndefined();
});

test('a start time that is not a number is not believed', () => {
  expect(read({ ...facts, pidStart: 'soon' })).toBeUndefined();
});

test('a standby of an unknown kind is left out of facts that are believed', () => {
  expect(read({ ...facts, standby: { pid: 4343, kind: 'lukewarm' } })).toEqual(facts);
});

test('a torn file is not believed', () => {
  writeFileSync(file, '{"pid": 12, "port"', { mode: 0o600 });
  expect(readDaemonFile(file)).toBeUndefined();
});

describe("the lock's owner", () => {
  const own = (body: unknown) => {
    mkdirSync(lockDirOf(dir), { recursive: true });
    writeFileSync(lockOwnerFileOf(lockDirOf(dir)), JSON.stringify(body));
    return lockHolder(dir);
  };

  test('a live process named by the lock holds it', () => {
    expect(own({ pid: process.pid })).toBe(process.pid);
  });

  test('a pid given as text holds nothing', () => {
    expect(own({ pid: String(process.pid) })).toBeUndefined();
  });

  test('a start time that is not a number is as good as none', () => {
    expect(own({ pid: process.pid, pidStart: 'x' })).toBe(process.pid);
  });
});
