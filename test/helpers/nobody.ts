/**
 * Another local user as the attacker: a Node script run as `nobody` (setpriv, which needs root;
 * CI runs as root). Where it cannot run, tests that need it skip on a developer's machine and
 * fail under CI=true (a test that cannot run must not pass).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from '@jest/globals';

const run = promisify(execFile);

/** Can this process run a script as another user? */
export const canSwitchUser = process.getuid?.() === 0;

/** `test`, or `test.skip` where no second user can be had (never under CI). */
export const asOtherUserTest = (canSwitchUser || process.env.CI === 'true' ? test : test.skip) as typeof test;

/** Runs `script` (an ES module's text) as `nobody`; its stdout. */
export async function asNobody(script: string, timeoutMs = 60_000): Promise<string> {
  const { stdout } = await run(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script],
    { timeout: timeoutMs, cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' } },
  );
  return stdout;
}

/** Starts `script` as `nobody` in the background (the caller kills it); its stdout arrives as lines in `lines`. */
export function spawnAsNobody(script: string): { child: ChildProcess; lines: string[] } {
  const child = spawn(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script],
    {
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines: string[] = [];
  let rest = '';
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (rest + d.toString()).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
  });
  return { child, lines };
}
