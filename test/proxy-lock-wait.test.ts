/**
 * A proxy starts no daemon while a live process holds the home's lock: a daemon is on its way
 * there (a warm standby taking over removes the dead daemon's daemon.json before it writes its
 * own, and a proxy reading in between used to start a rival, which found the lock taken and
 * left, a boot later). When the holder dies without publishing, the proxy starts one.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processStart } from '../shared/daemon-file.js';
import { daemonsOf, reapAndReport } from './helpers/fault.js';
import { bridgeFreeEnv, CLI, removeDir, tempHome, waitFor } from './helpers/procs.js';

const home = tempHome('gb-lockwait-');
const started: number[] = [];
afterAll(async () => {
  await reapAndReport(home, started);
  removeDir(home);
});

test("a daemon is started only once the lock's live holder is gone", async () => {
  // the lock as a daemon that is starting holds it: owner.json names a live process, no daemon.json yet
  const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
  started.push(holder.pid!);
  const lockDir = join(home, 'daemon', 'daemon.lock');
  mkdirSync(lockDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(lockDir, 'owner.json'), JSON.stringify({ pid: holder.pid, pidStart: processStart(holder.pid!) }), {
    mode: 0o600,
  });

  const env = bridgeFreeEnv({ GAME_BRIDGE_HOME: home });
  const proxy = spawn(process.execPath, [CLI], { env, cwd: home, stdio: ['pipe', 'pipe', 'ignore'] });
  started.push(proxy.pid!);
  let out = '';
  proxy.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proxy.stdin!.write(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }) + '\n',
  );

  // Two seconds of a proxy looking for its daemon: long enough for a started rival to boot and say so.
  await new Promise((r) => setTimeout(r, 2000));
  const log = join(home, 'daemon', 'daemon.log');
  expect(existsSync(log) ? readFileSync(log, 'utf8') : '').not.toMatch(/already serves/);
  expect(daemonsOf(home)).toEqual([]);
  expect(out).toBe('');

  // The holder dies without publishing: the proxy starts a daemon, which takes the dead lock over and answers.
  holder.kill('SIGKILL');
  await waitFor('initialize answered', () => out.includes('"id":1'), 30000);
  expect(JSON.parse(out.split('\n')[0])).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
  started.push(...daemonsOf(home));
  proxy.stdin!.end();
}, 60000);
