/**
 * Who may write launched.json: only the holder of the home's lock, checked again just before the
 * rename; and the holder puts its own table back when another process wrote the file last (a
 * daemon frozen in the middle of a save finishes that write when it wakes). And what is believed
 * of the file when read back: each entry in its own shape, or reported and left out.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LaunchedWriter, readLaunchedFile } from '../../../../daemon/launcher/persist.js';
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

describe('reading launched.json back', () => {
  const logs = () => join(dir, 'logs');
  const entry = (over: Record<string, unknown> = {}) => ({
    port: 7001,
    pid: 4242,
    name: 'g',
    version: '1',
    cwd: dir,
    command: 'game --port 7001',
    logFile: join(logs(), 'g.log'),
    startedAt: '2026-01-01T00:00:00.000Z',
    readyInMs: 5,
    declaration: join(dir, 'gamebridge.json'),
    ...over,
  });
  const exit = (over: Record<string, unknown> = {}) => ({
    ...entry({ readyInMs: undefined }),
    exitedAt: null,
    uptimeMs: 10,
    exitCode: null,
    signal: null,
    statusFrom: 'unknown',
    lastLines: ['bye'],
    ...over,
  });
  const read = (body: unknown) => {
    writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body), { mode: 0o600 });
    return readLaunchedFile(file, logs());
  };

  test('a well-formed table is read back whole', () => {
    const r = read({ version: 1, savedAt: 'then', savedBy: 1, instances: [entry()], exited: [exit({ port: 7002 })] });
    expect(r).toEqual({ instances: [entry()], exited: [exit({ port: 7002 })], savedAt: 'then', rejected: [] });
  });

  test('a browser game whose record has no browser is ignored and named', () => {
    const r = read({ version: 1, instances: [entry({ web: {} }), entry({ port: 7002 })] });
    expect(r.instances.map((i) => i.port)).toEqual([7002]);
    expect(r.rejected).toEqual([
      expect.stringMatching(/^entry \{"port":7001.*: bad web\.url \(must be a string, got undefined\)$/),
    ]);
  });

  test('an entry whose name is not text is ignored and named', () => {
    const r = read({ version: 1, instances: [entry({ name: { a: 1 } })] });
    expect(r.instances).toEqual([]);
    expect(r.rejected).toEqual([expect.stringMatching(/: bad name \(must be a string, got \{"a":1\}\)$/)]);
  });

  test('an entry with a port out of range is ignored as a bad port', () => {
    expect(read({ version: 1, instances: [entry({ port: 70000 })] }).rejected).toEqual([
      expect.stringMatching(/: bad port \(must be at most 65535\)$/),
    ]);
  });

  test('an entry naming init as its pid is ignored as a bad pid', () => {
    expect(read({ version: 1, instances: [entry({ pid: 1 })] }).rejected).toEqual([
      expect.stringMatching(/: bad pid \(must be at least 2\)$/),
    ]);
  });

  test('an entry whose log lies outside logs/ is ignored and says so', () => {
    expect(read({ version: 1, instances: [entry({ logFile: '/etc/passwd' })] }).rejected).toEqual([
      expect.stringMatching(new RegExp(`: log file outside ${logs()}$`)),
    ]);
  });

  test('an entry that is not an object is ignored as such', () => {
    expect(read({ version: 1, instances: [null] }).rejected).toEqual(['entry null: not an object']);
  });

  test('an exit record with a port out of range is ignored and named', () => {
    const r = read({ version: 1, instances: [], exited: [exit({ port: 70000 }), exit({ port: 7003 })] });
    expect(r.exited.map((e) => e.port)).toEqual([7003]);
    expect(r.rejected).toEqual([expect.stringMatching(/^exit record .*: bad port \(must be at most 65535\)$/)]);
  });

  test('past the bound, the oldest exit records go and the newest are kept, saying how many went', () => {
    const r = read({
      version: 1,
      instances: [],
      exited: Array.from({ length: 1002 }, (_, k) => exit({ uptimeMs: k })),
    });
    expect(r.exited).toHaveLength(1000);
    expect(r.exited[0].uptimeMs).toBe(2);
    expect(r.rejected).toEqual(['2 oldest exit records (more than 1000 listed)']);
  });

  test('keys the daemon does not know are dropped from an entry', () => {
    expect(read({ version: 1, instances: [entry({ extra: 'x'.repeat(1000) })] }).instances).toEqual([entry()]);
  });

  test('a file without an instances list is refused whole, naming the file', () => {
    expect(read({ version: 1, instances: 'none' })).toEqual({
      instances: [],
      exited: [],
      rejected: [`${file}: it has no "instances" list`],
    });
  });

  test('a file that is not JSON is refused whole, naming the file', () => {
    expect(read('{"instances": [ <torn').rejected).toEqual([expect.stringMatching(new RegExp(`^${file}: .*JSON`))]);
  });

  test('an unreadable file is moved aside when asked, and nothing in it is lost', () => {
    writeFileSync(file, '{"instances": 7}', { mode: 0o600 });
    const r = readLaunchedFile(file, logs(), { setAsideBad: true });
    expect(r.setAside).toMatch(/launched\.json\.bad-\d+$/);
    expect(readFileSync(r.setAside!, 'utf8')).toBe('{"instances": 7}');
  });
});
