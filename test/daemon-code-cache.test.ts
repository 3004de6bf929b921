/**
 * The daemon's code cache (daemon/life/code-cache.ts): a real proxy, started through the SDK client,
 * starts the daemon from a copy of the build (dist/daemon/life/boot.js running bundle.cjs), once with
 * the cache the build made and once each with it missing, damaged, not this bundle's, writable
 * by others and rejected by V8. Every daemon must serve tools/list and a tool call; daemon.log
 * says which way it started. The copy is this test's own: the shared dist/ is never altered.
 */
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { daemonFacts, processesOf } from './helpers/fault.js';
import { bridgeFreeEnv, DIST, removeDir, ROOT, tempHome, waitGone } from './helpers/procs.js';

let copy = '';
const homes: string[] = [];

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'gb-code-cache-'));
  // with the build's times: the proxy starts the bundle only when it is no older than the compile
  cpSync(join(DIST), join(copy, 'dist'), { recursive: true, preserveTimestamps: true });
  cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
});

afterAll(() => {
  for (const h of homes) removeDir(h);
  removeDir(copy);
});

const cacheFile = () => join(copy, 'dist', 'daemon', 'bundle.cache');
const pristine = () => readFileSync(join(DIST, 'daemon', 'bundle.cache'));

/** Start the copy's proxy (which starts its daemon) in a fresh home, list the tools, make a call, stop; what daemon.log says. */
async function serveOnce(env: Record<string, string> = {}): Promise<string> {
  const home = tempHome('gb-cc-home-');
  homes.push(home);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(copy, 'dist', 'proxy', 'main.js')],
    env: bridgeFreeEnv({ GAME_BRIDGE_HOME: home, ...env }),
    cwd: home,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'jest', version: '1.0.0' });
  try {
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('list_instances');
    const listed = await client.callTool({ name: 'list_instances', arguments: {} });
    expect(listed.isError).not.toBe(true);
    const daemon = daemonFacts(home);
    expect(daemon).toBeDefined();
    // the daemon this proxy started is the copy's boot.js (not the shared build's)
    const args = processesOf(home).find((p) => p.pid === daemon!.pid)?.args ?? '';
    expect(args).toContain(join(copy, 'dist', 'daemon', 'life', 'boot.js'));
    // with no V8 flag: one would cost this cache (V8 refuses cached code made under other flags)
    // and Node's own for its built-in modules, which is keyed on V8's flags too
    expect(args).not.toMatch(/ --[a-z]/);
    process.kill(daemon!.pid, 'SIGTERM');
    await waitGone(daemon!.pid, 10000);
  } finally {
    await client.close().catch(() => undefined);
  }
  return readFileSync(join(home, 'daemon', 'daemon.log'), 'utf8');
}

test('the build leaves a cache beside the bundle, readable by all and writable by its owner only', () => {
  const file = join(DIST, 'daemon', 'bundle.cache');
  expect(readFileSync(file).subarray(0, 25).toString('latin1')).toBe('game-bridge-code-cache 1 ');
  expect(statSync(file).mode & 0o777).toBe(0o644);
});

test('with the cache the build made, the daemon starts from it and serves', async () => {
  writeFileSync(cacheFile(), pristine(), { mode: 0o644 });
  const log = await serveOnce();
  expect(log).toContain('daemon bundle with its code cache');
  expect(log).not.toContain('without a code cache');
});

test('with no cache, the daemon starts without one and serves', async () => {
  rmSync(cacheFile(), { force: true });
  expect(await serveOnce()).toContain('daemon bundle without a code cache (none beside it)');
});

test('with a damaged cache (V8 would crash on it), the daemon starts without it and serves', async () => {
  const bytes = pristine();
  const body = bytes.indexOf(10) + 1;
  for (let i = body + 100; i < bytes.length; i += 997) bytes[i] ^= 0x5a;
  writeFileSync(cacheFile(), bytes, { mode: 0o644 });
  expect(await serveOnce()).toContain('without a code cache (the cache file is damaged)');
});

test("with another bundle's cache, the daemon starts without it and serves", async () => {
  const bytes = pristine();
  bytes[60] = bytes[60] === 0x30 ? 0x31 : 0x30; // a digit of the bundle's digest in the first line
  writeFileSync(cacheFile(), bytes, { mode: 0o644 });
  expect(await serveOnce()).toContain('without a code cache (the cache is for another bundle or Node)');
});

test('with a cache others could have written, the daemon does not run it', async () => {
  writeFileSync(cacheFile(), pristine());
  chmodSync(cacheFile(), 0o666);
  expect(await serveOnce()).toContain(
    'without a code cache (the cache file is not a plain file only its owner can write)',
  );
});

test('when V8 rejects the cache (other V8 flags), the daemon starts without it and serves', async () => {
  writeFileSync(cacheFile(), pristine(), { mode: 0o644 });
  chmodSync(cacheFile(), 0o644);
  expect(await serveOnce({ NODE_OPTIONS: '--stack-trace-limit=50' })).toContain(
    'without a code cache (V8 rejected it)',
  );
});

test('with a bundle cut short (an interrupted build), the daemon starts from the compiled modules and says so', async () => {
  const bundle = join(copy, 'dist', 'daemon', 'bundle.cjs');
  const whole = readFileSync(bundle);
  try {
    writeFileSync(bundle, whole.subarray(0, whole.length >> 1));
    const log = await serveOnce();
    expect(log).toContain('daemon bundle unusable (');
    expect(log).toContain('starting from the compiled modules instead; run `npm run build`');
  } finally {
    writeFileSync(bundle, whole);
  }
});
