/**
 * The bare proxy (what an MCP client spawns) must start light: no MCP SDK, no yargs, none of the
 * CLI or the engine. The real proxy runs under a module-load recorder (test/fixtures/load-log)
 * and serves a real client through a real daemon; then the recorded module list is read.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { publishedDaemon } from './helpers/fault.js';
import { alive, bridgeFreeEnv, CLI, DIST, ROOT, Reaper, removeDir, tempHome, waitFor } from './helpers/procs.js';

const REGISTER = join(ROOT, 'test', 'fixtures', 'load-log', 'register.mjs');
const HEAVY = /node_modules\/(yargs|yargs-parser|@modelcontextprotocol)\//;
const reaper = new Reaper();
const homes: string[] = [];

afterAll(async () => {
  await reaper.reap();
  homes.forEach(removeDir);
});

function baseEnv(home: string): Record<string, string> {
  return bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_SCAN_RANGE: '7999', LOAD_LOG: join(home, 'loads.txt') });
}

/** The modules the process recorded, once its exit hook wrote the CommonJS part. */
async function loadedModules(logFile: string): Promise<string[]> {
  const read = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const text = await waitFor(
    'the module log to be complete',
    () => (read().endsWith('\nend\n') ? read() : undefined),
    10000,
  );
  return text.split('\n').filter((l) => l && l !== 'end');
}

/** The modules bundled into a non-minified esbuild bundle (it names each with a `// path` line). */
function bundledModules(bundle: string): string[] {
  return [...readFileSync(bundle, 'utf8').matchAll(/^\/\/ ((?:node_modules|dist)\/\S+)$/gm)].map((m) => m[1]);
}

test('the bare proxy serves a client without loading the SDK, yargs, the CLI or the engine', async () => {
  const home = tempHome('gb-start-');
  homes.push(home);
  const env = baseEnv(home);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', REGISTER, CLI],
    env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'jest', version: '1.0.0' });
  await client.connect(transport);
  reaper.track(transport.pid ?? undefined);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('list_instances');
  const listed = (await client.callTool({ name: 'list_instances', arguments: {} })) as { isError?: boolean };
  expect(listed.isError).toBeFalsy();
  const daemon = publishedDaemon(home);
  reaper.track(daemon.pid);
  await client.close();

  const loaded = await loadedModules(env.LOAD_LOG);
  // the recorder works: it saw the bin and the proxy's bundle, and nothing heavy beside them
  const bundle = join(DIST, 'proxy', 'bundle.mjs');
  expect(loaded.some((l) => l.endsWith(join(DIST, 'proxy', 'main.js')))).toBe(true);
  expect(loaded.some((l) => l.endsWith(bundle))).toBe(true);
  expect(loaded.filter((l) => HEAVY.test(l))).toEqual([]);
  expect(loaded.filter((l) => l.includes(join(DIST, 'cli')) || l.includes(join(DIST, 'daemon')))).toEqual([]);
  // and inside the bundle: the proxy, shared code, ws, and the core of zod's mini build (daemon.json's schema)
  const inside = bundledModules(bundle);
  expect(inside).toContain('dist/proxy/run.js');
  expect(inside.some((m) => m.startsWith('node_modules/ws/'))).toBe(true);
  expect(
    inside.filter((m) => !/^(dist\/(proxy|shared)\/|node_modules\/ws\/|node_modules\/zod\/v4\/(core|mini)\/)/.test(m)),
  ).toEqual([]);
  expect(alive(daemon.pid)).toBe(true); // the daemon served the call; the reaper stops it
});

test('the recorder does see yargs when a subcommand needs it (so the check above can fail)', async () => {
  const home = tempHome('gb-start-');
  homes.push(home);
  const env = baseEnv(home);
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', REGISTER, CLI, '--help'], { env });
  expect(stdout).toContain('Commands (each has --help):');
  const loaded = await loadedModules(env.LOAD_LOG);
  expect(loaded.some((l) => HEAVY.test(l))).toBe(true);
});
