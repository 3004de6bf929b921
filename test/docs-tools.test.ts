/**
 * The tool tables of README.md and docs/TOOLS.md are written by `npm run docs:tools` from what
 * the real server lists (tools/list, and describe_toolset's bridge toolset on a live game).
 * The field tables of docs/TOOLS.md are written by the same command from the tools' answer schemas.
 * These tests run the script's --check against the built server: the committed tables must be
 * what the server says now, and a table that differs is named as stale with the command to fix it.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, ROOT, tempHome } from './helpers/procs.js';

const SCRIPT = join(ROOT, 'scripts', 'docs-tools.mjs');

function check(files?: string[]): Promise<{ code: number; out: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_')) env[k] = v;
  if (files) env.DOCS_TOOLS_FILES = files.join(',');
  return new Promise((resolve) =>
    execFile(process.execPath, [SCRIPT, '--check'], { env, cwd: ROOT, timeout: 60000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

test("the README's and docs/TOOLS.md's tool tables are the ones the server lists", async () => {
  const r = await check();
  expect(r).toEqual({ code: 0, out: 'The tool tables are current.\n' });
}, 60000);

test('a tool table that differs from the server is reported stale, with the command that rewrites it', async () => {
  const dir = tempHome('gb-docs-tools-');
  try {
    const copy = join(dir, 'README.md');
    copyFileSync(join(ROOT, 'README.md'), copy);
    const text = readFileSync(copy, 'utf8');
    const row = /^\| `instance_log` \|.*$/m.exec(text)![0];
    writeFileSync(copy, text.replace(row, '| `instance_log` | an old title | what it used to do | reads |'));
    const r = await check([copy]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`Stale tool tables in ${copy}`);
    expect(r.out).toContain('npm run docs:tools');
    expect(readFileSync(copy, 'utf8')).not.toContain(row);
  } finally {
    removeDir(dir);
  }
}, 60000);

test("a field row of docs/TOOLS.md that differs from the tool's answer schema is reported stale", async () => {
  const dir = tempHome('gb-docs-fields-');
  try {
    const copy = join(dir, 'TOOLS.md');
    copyFileSync(join(ROOT, 'docs', 'TOOLS.md'), copy);
    const text = readFileSync(copy, 'utf8');
    const row = /^\| `ms` \| its lease.*$/m.exec(text)![0];
    writeFileSync(copy, text.replace(row, '| `ms` | how long it was held, as it used to say |'));
    const r = await check([copy]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`Stale tool tables in ${copy}`);
  } finally {
    removeDir(dir);
  }
}, 60000);
