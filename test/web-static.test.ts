/**
 * The static server serves the game's folder and nothing else, to anyone on the machine: a
 * symbolic link out of the folder (a cloned repository with `www/fs -> /`) and dotfiles
 * (`.env`, `.git/config`) are answered 404, as a missing file is; a link that stays inside the
 * folder is served. The attacker is another local user (`nobody`) reading over the port.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveStatic, type StaticSite } from '../daemon/web/static.js';
import { asNobody, asOtherUserTest } from './helpers/nobody.js';
import { removeDir } from './helpers/procs.js';

let site: StaticSite;
const dir = mkdtempSync(join(tmpdir(), 'gb-static-'));
const www = join(dir, 'www');
const secret = join(dir, 'secret.txt');

beforeAll(async () => {
  mkdirSync(join(www, 'real-assets'), { recursive: true });
  mkdirSync(join(www, '.git'));
  writeFileSync(join(www, 'index.html'), '<!doctype html><title>game</title>');
  writeFileSync(join(www, 'real-assets', 'sprite.txt'), 'sprite');
  writeFileSync(join(www, '.env'), 'API_KEY=hunter2');
  writeFileSync(join(www, '.git', 'config'), '[remote "origin"]\n  url = https://token@example.com/x.git');
  writeFileSync(secret, 'the victim secret');
  symlinkSync('/', join(www, 'fs'));
  symlinkSync(secret, join(www, 'leak.txt'));
  symlinkSync(dir, join(www, 'up'));
  symlinkSync('real-assets', join(www, 'assets'));
  site = await serveStatic({ root: www });
});

afterAll(async () => {
  await site?.close();
  removeDir(dir);
});

/** Each path's status and body, fetched by `nobody`. */
async function fetchedByNobody(paths: string[]): Promise<Record<string, { status: number; body: string }>> {
  const script = `
    const out = {};
    for (const p of ${JSON.stringify(paths)}) {
      const r = await fetch('http://127.0.0.1:${site.port}' + p);
      out[p] = { status: r.status, body: (await r.text()).slice(0, 200) };
    }
    console.log(JSON.stringify(out));`;
  return JSON.parse(await asNobody(script));
}

asOtherUserTest('a symbolic link out of the folder is not followed, for another local user', async () => {
  const seen = await fetchedByNobody(['/fs/etc/passwd', '/fs/etc/shadow', '/leak.txt', '/up/secret.txt', '/fs/']);
  for (const [path, r] of Object.entries(seen)) {
    expect(`${path} ${r.status}`).toBe(`${path} 404`);
    expect(r.body).not.toMatch(/root:|victim secret/);
  }
});

asOtherUserTest('dotfiles and dot-folders are not served, encoded or not', async () => {
  const seen = await fetchedByNobody(['/.env', '/.git/config', '/%2eenv', '/real-assets/../.env', '/.git/']);
  for (const [path, r] of Object.entries(seen)) {
    expect(`${path} ${r.status}`).toBe(`${path} 404`);
    expect(r.body).not.toMatch(/hunter2|token@/);
  }
});

test("the folder's own files are served, through a link that stays inside it too", async () => {
  expect(await (await fetch(`${site.url}`)).text()).toMatch(/<title>game<\/title>/);
  expect(await (await fetch(`${site.url}real-assets/sprite.txt`)).text()).toBe('sprite');
  expect(await (await fetch(`${site.url}assets/sprite.txt`)).text()).toBe('sprite');
});
