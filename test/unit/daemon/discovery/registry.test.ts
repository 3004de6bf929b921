/**
 * What the registry reader believes of an entry a game wrote: a port or no entry at all; the
 * other fields are hints, each left out when it is not what it should be.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRegistry } from '../../../../daemon/discovery/registry.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gb-registry-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The one entry read from `<dir>/<name>` holding `body`, or undefined when the file was skipped. */
async function readOne(body: unknown, name = '4242.json') {
  writeFileSync(join(dir, name), JSON.stringify(body));
  const r = await readRegistry(dir);
  expect(r.entries.length + r.skipped).toBe(1);
  return r.entries[0];
}

test('an entry as the contract shows it is read whole', async () => {
  const body = { name: 'Orbital', version: '0.9.2', protocol: 1, port: 7820, pid: 4242, host: '127.0.0.1' };
  expect(await readOne({ ...body, started: '2026-03-01T10:00:00Z', cwd: '/home/me/orbital' })).toEqual({
    file: join(dir, '4242.json'),
    ...body,
    started: '2026-03-01T10:00:00Z',
    cwd: '/home/me/orbital',
  });
});

test('a port given as its digits is read as a number', async () => {
  expect(await readOne({ port: '7820' })).toMatchObject({ port: 7820 });
});

test('a port out of range makes the file no entry', async () => {
  expect(await readOne({ port: 70000 })).toBeUndefined();
});

test('a pid of init in the content gives way to the pid of the file name', async () => {
  expect(await readOne({ port: 7820, pid: 1 })).toMatchObject({ pid: 4242 });
});

test('a file named 0.json without a pid in it is no entry', async () => {
  expect(await readOne({ port: 7820 }, '0.json')).toBeUndefined();
});

test('a name too long to be a name is left out of an entry that still counts', async () => {
  const e = await readOne({ port: 7820, name: 'x'.repeat(60_000) });
  expect(e).toMatchObject({ port: 7820, pid: 4242 });
  expect(e).not.toHaveProperty('name');
});

test('a version given as a number is read as text', async () => {
  expect(await readOne({ port: 7820, version: 2 })).toMatchObject({ version: '2' });
});

test('a cwd that is not text is left out', async () => {
  expect(await readOne({ port: 7820, cwd: ['/'] })).not.toHaveProperty('cwd');
});
