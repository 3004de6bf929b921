/** doctor's look at the files a launch command names (cli/doctor-command.ts). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkCommandFiles } from '../../../cli/doctor-command.js';
import type { Finding } from '../../../cli/findings.js';

const cwd = mkdtempSync(join(tmpdir(), 'gb-doctor-cmd-'));
writeFileSync(join(cwd, 'game.mjs'), '');

function findings(command: string): Finding[] {
  const f: Finding[] = [];
  checkCommandFiles('gamebridge.json', command, cwd, f, { PATH: process.env.PATH });
  return f;
}

test('a script argument that does not exist is a problem naming it and the folder', () => {
  const [f] = findings('node missing.mjs {port}');
  expect(f.level).toBe('problem');
  expect(f.what).toBe(`gamebridge.json: launch.command names missing.mjs, which does not exist in ${cwd}`);
});

test('a program that is not on PATH is a problem naming it', () => {
  expect(findings('no-such-engine-xyz --port {port}')[0].what).toMatch(/runs no-such-engine-xyz, which is not on PATH/);
});

test('a program given as a missing path is a problem naming the folder it is resolved in', () => {
  expect(findings('./run.sh {port}')[0].what).toMatch(/runs \.\/run\.sh, which does not exist in /);
});

test('a command whose files exist has no findings', () => {
  expect(findings('node game.mjs --port {port}')).toEqual([]);
});

test('a command the shell must interpret is not guessed at', () => {
  expect(findings('cd sub && node missing.mjs {port}')).toEqual([]);
  expect(findings('node $GAME {port}')).toEqual([]);
});
