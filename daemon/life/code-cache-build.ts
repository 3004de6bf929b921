/**
 * The daemon's step of `npm run build` after the bundles: writes dist/daemon/bundle.cache, the V8
 * code cache of dist/daemon/bundle.cjs (daemon/life/code-cache.ts). A child process boots the bundle
 * as a daemon in a temporary home, a real client (the proxy, through the SDK) initialises, lists
 * the tools and makes one call, then the child saves what V8 has compiled by then: the first
 * client's path is in the cache too, not only the boot. Run with `--daemon` it is that child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { pidAlive } from '../../shared/daemon-file.js';
import { stringEnv } from '../../shared/env.js';
import { bundleFiles, cacheFileBytes, compileBundle, runBundle } from './code-cache.js';
import { waitUntil } from '../launcher/processes.js';

const HERE = fileURLToPath(import.meta.url);
// The bundle sits in dist/daemon/, one floor above this file (dist/daemon/life/).
const FILES = bundleFiles(join(dirname(HERE), '..'));
const PROXY = join(dirname(HERE), '..', '..', 'proxy', 'main.js');
const STEP_MS = 60000;

/** The child: the bundle as a daemon; on `save`, its compiled code into the cache file (0644, beside the bundle). */
async function serveThenSave(): Promise<void> {
  const raw = readFileSync(FILES.bundle);
  const script = compileBundle(FILES.bundle, raw.toString('utf8'));
  await runBundle(script, FILES.bundle).runDaemon();
  process.on('message', (m: { t?: string }) => {
    if (m?.t !== 'save') return;
    const tmp = `${FILES.cache}.${process.pid}.tmp`;
    writeFileSync(tmp, cacheFileBytes(raw, script.createCachedData()), { mode: 0o644, flag: 'wx' });
    chmodSync(tmp, 0o644); // whatever the umask: readable by whoever runs the daemon, writable by the builder only
    renameSync(tmp, FILES.cache);
    process.send?.({ t: 'saved' }, () => process.exit(0));
  });
  process.send?.({ t: 'ready' });
}

/** The next message `t` from the child, or a failure naming what did not happen. */
function childSays(child: ChildProcess, t: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the daemon did not say '${t}' within ${STEP_MS} ms`)), STEP_MS);
    child.on('message', (m: { t?: string }) => {
      if (m?.t !== t) return;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => reject(new Error(`the daemon exited (${code}) before saying '${t}'`)));
  });
}

/** The parent: a daemon child in a temporary home, one client's session against it, then the save. */
async function buildCache(): Promise<void> {
  rmSync(FILES.cache, { force: true });
  const home = mkdtempSync(join(tmpdir(), 'gb-code-cache-'));
  const env = Object.fromEntries(Object.entries(stringEnv()).filter(([k]) => !k.startsWith('GAME_BRIDGE_')));
  env.GAME_BRIDGE_HOME = home;
  env.GAME_BRIDGE_STANDBY = '0'; // this daemon exits without its shutdown: a standby would take the temp home over
  const logFile = join(home, 'build.log');
  const fd = openSync(logFile, 'a', 0o600);
  const child = spawn(process.execPath, [HERE, '--daemon'], {
    env,
    cwd: home,
    stdio: ['ignore', fd, fd, 'ipc'],
  });
  closeSync(fd);
  const client = new Client({ name: 'game-bridge-code-cache', version: '0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [PROXY], cwd: home, env });
  try {
    await childSays(child, 'ready');
    await client.connect(transport);
    await client.listTools();
    await client.callTool({ name: 'list_instances', arguments: {} });
    const saved = childSays(child, 'saved');
    child.send({ t: 'save' });
    await saved;
  } catch (e) {
    console.error(`BuildError: the daemon's code cache was not made: ${(e as Error).message}. Its log:`);
    console.error(readFileSync(logFile, 'utf8').slice(-4000));
    process.exitCode = 1;
  } finally {
    await client.close().catch(() => undefined);
    // The proxy first: alive when its daemon dies, it would start a successor in this home.
    await proxyGone(transport.pid);
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}

/** Wait for the proxy to exit (it finishes what it holds after its stdin closes), then make sure. */
async function proxyGone(pid: number | null): Promise<void> {
  if (pid && !(await waitUntil(() => !pidAlive(pid), 5000, 20))) process.kill(pid, 'SIGKILL');
}

await (process.argv.includes('--daemon') ? serveThenSave() : buildCache());
