/**
 * merge-reports writes only where it was told, never through another user's links: run in a
 * folder another user (`nobody`) can write, whose links point at root's 0600 files, it refuses
 * the folder and those files stay as they were; a link at the report's own name is refused in a
 * folder of one's own; and a JUnit file's traces go beside it in a folder named after it, not
 * into the traces/ of the folder it is in. The blob names the trace and carries its bytes, as a
 * CI artifact would. The links and folders are given to `nobody` with lchown (root only: CI runs
 * as root; elsewhere these tests skip, saying why).
 */
import {
  chmodSync,
  existsSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { testNeeding } from './helpers/offline-npm.js';
import { bridgeFreeEnv, removeDir, runCli, tempHome } from './helpers/procs.js';

const NOBODY = 65534;
const asRoot = testNeeding(
  process.getuid?.() === 0 ? undefined : 'giving files to another user (nobody) needs root',
  'CI runs as root.',
);

let root: string;
let vault: string;
let blobs: string;
const TRACE = 'traces/evil.trace.html';
const VICTIMS = ['results.xml', 'trace', 'index.html'];

const line = (o: object) => JSON.stringify(o);

beforeAll(() => {
  root = tempHome('gb-report-writes-');
  chmodSync(root, 0o755);
  vault = join(root, 'vault');
  mkdirSync(vault, { mode: 0o700 });
  for (const v of VICTIMS) writeFileSync(join(vault, v), `root's ${v}\n`, { mode: 0o600 });
  blobs = join(root, 'blobs');
  mkdirSync(blobs);
  const failed = {
    file: 'gamebridge-tests/evil.jsonl',
    name: 'evil',
    ok: false,
    ms: 5,
    steps: [{ line: 2, text: 'inc', ok: false, ms: 1 }],
    failure: { line: 2, step: 'inc', message: 'AssertionFailed: no' },
    trace: TRACE,
  };
  const header = {
    gamebridgeBlob: 1,
    tool: '0.2.0',
    shard: { index: 1, total: 1 },
    startedAt: '2026-01-01T00:00:00.000Z',
    ms: 10,
  };
  const attachments = { [TRACE]: Buffer.from('PWNED by the blob\n').toString('base64') };
  writeFileSync(
    join(blobs, 'blob-1-of-1.jsonl'),
    [line(header), line({ test: failed, attachments })].join('\n') + '\n',
  );
});

afterAll(() => removeDir(root));

const merge = (cwd: string, ...args: string[]) =>
  runCli(['merge-reports', blobs, ...args], { cwd, env: bridgeFreeEnv({ GAME_BRIDGE_HOME: join(root, 'home') }) });

/** A folder and links in it, as `nobody` would have made them. */
function nobodysFolder(name: string): string {
  const dir = join(root, name);
  const give = (p: string) => lchownSync(p, NOBODY, NOBODY);
  mkdirSync(join(dir, 'traces'), { recursive: true });
  mkdirSync(join(dir, 'gamebridge-report', 'traces'), { recursive: true });
  symlinkSync(join(vault, 'results.xml'), join(dir, 'results.xml'));
  symlinkSync(join(vault, 'trace'), join(dir, TRACE));
  symlinkSync(join(vault, 'trace'), join(dir, 'gamebridge-report', TRACE));
  symlinkSync(join(vault, 'index.html'), join(dir, 'gamebridge-report', 'index.html'));
  for (const p of ['', 'traces', TRACE, 'results.xml', 'gamebridge-report', 'gamebridge-report/traces'])
    give(join(dir, p));
  give(join(dir, 'gamebridge-report', TRACE));
  give(join(dir, 'gamebridge-report', 'index.html'));
  return dir;
}

/** Root's files as they were: their bytes and their 0600 mode. */
function expectVaultUntouched(): void {
  for (const v of VICTIMS) {
    expect(readFileSync(join(vault, v), 'utf8')).toBe(`root's ${v}\n`);
    expect(statSync(join(vault, v)).mode & 0o777).toBe(0o600);
  }
}

asRoot(
  "merge-reports --reporter junit in a folder nobody owns refuses it and writes nothing through nobody's links",
  async () => {
    const dir = nobodysFolder('shared-junit');
    const r = await merge(dir, '--reporter', 'junit', '--output', 'results.xml');
    expect(r.err).toMatch(/shared-junit\S* can be changed by another user .*nothing was written/);
    expect(r.code).toBe(2);
    expectVaultUntouched();
  },
  60_000,
);

asRoot(
  "merge-reports' default HTML report in a folder nobody owns refuses it and writes nothing through nobody's links",
  async () => {
    const dir = nobodysFolder('shared-html');
    const r = await merge(dir);
    expect(r.err).toMatch(/shared-html\S* can be changed by another user .*nothing was written/);
    expect(r.code).toBe(2);
    expectVaultUntouched();
  },
  60_000,
);

asRoot(
  "merge-reports refuses another user's link at the report's name in a folder of one's own",
  async () => {
    const dir = join(root, 'mine');
    mkdirSync(dir);
    symlinkSync(join(vault, 'results.xml'), join(dir, 'results.xml'));
    lchownSync(join(dir, 'results.xml'), NOBODY, NOBODY);
    const r = await merge(dir, '--reporter', 'junit', '--output', 'results.xml');
    expect(r.err).toMatch(/results\.xml is a symbolic link \(to \S+vault\/results\.xml\); nothing was written/);
    expect(r.code).toBe(2);
    expectVaultUntouched();
  },
  60_000,
);

test("a JUnit report's traces go beside it in a folder named after it, not into its folder's traces/", async () => {
  const dir = join(root, 'out');
  mkdirSync(dir);
  const r = await merge(root, '--reporter', 'junit', '--output', join(dir, 'x.xml'));
  expect(r.code).toBe(0);
  expect(readFileSync(join(dir, 'x.traces', 'evil.trace.html'), 'utf8')).toBe('PWNED by the blob\n');
  expect(existsSync(join(dir, 'traces'))).toBe(false);
  expect(readFileSync(join(dir, 'x.xml'), 'utf8')).toContain(`trace: out/x.traces/evil.trace.html`);
}, 60_000);
