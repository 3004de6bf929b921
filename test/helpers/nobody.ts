/**
 * Another local user as the attacker: a Node script run as `nobody` (setpriv, which needs root;
 * CI runs as root), reading modules and fixtures from this clone. Where that cannot run, tests
 * that need it skip on a developer's machine, saying why, and fail under CI=true (a test that
 * cannot run must not pass).
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testNeeding } from './offline-npm.js';

const run = promisify(execFile);

const AS_NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];

/** Why no script can run here as `nobody` reading this clone, or undefined when one can. */
function whyNoOtherUser(): string | undefined {
  if (process.getuid?.() !== 0) return 'running a script as another user (nobody) needs root';
  const clone = process.cwd();
  try {
    execFileSync('setpriv', [...AS_NOBODY, 'test', '-r', join(clone, 'package.json')], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `nobody cannot read this clone (${clone}): a folder above it is closed to other users (mode 0700?); clone it where others can read to run the tests as another user`;
  }
}

/** `test`, or a skip saying why where no second user can read this clone (a failure under CI). */
export const asOtherUserTest = testNeeding(whyNoOtherUser(), 'CI runs as root in a clone every user can read.');

/** Runs `script` (an ES module's text) as `nobody`; its stdout. */
export async function asNobody(script: string, timeoutMs = 60_000): Promise<string> {
  const { stdout } = await run('setpriv', [...AS_NOBODY, process.execPath, '--input-type=module', '-e', script], {
    timeout: timeoutMs,
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' },
  });
  return stdout;
}

/** Starts `script` as `nobody` in the background (the caller kills it); its stdout arrives as lines in `lines`. */
export function spawnAsNobody(script: string): { child: ChildProcess; lines: string[] } {
  const child = spawn('setpriv', [...AS_NOBODY, process.execPath, '--input-type=module', '-e', script], {
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let rest = '';
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (rest + d.toString()).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
  });
  return { child, lines };
}
