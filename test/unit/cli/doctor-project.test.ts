/** doctor's look at a project's gamebridge.json (cli/doctor-project.ts): every launch form `launch` accepts passes. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDeclaration } from '../../../cli/doctor-project.js';
import type { Finding } from '../../../cli/findings.js';

/** The launch forms docs/LAUNCHING.md and docs/BROWSER.md show, each as `launch` takes it. */
const FORMS: Record<string, object> = {
  'a command with {port}': { command: 'node game.js --port {port}' },
  'a command whose port is in its environment': { command: 'node game.js', env: { GAME_PORT: '{port}' } },
  'a command with profiles': {
    command: 'node game.js --port {port}',
    profiles: { server: { args: '--server' }, client: { args: '--client {index}' } },
  },
  'a page the bridge serves, with the kit': { web: { static: 'dist' } },
  'a page the bridge serves, without the kit': { web: { static: 'dist', kit: false } },
  'a page without the kit, its state and seed named': {
    web: { static: 'dist', kit: false, state: 'window.game', seed: 42, url: 'index.html', headless: false },
  },
  "a page the game's own server serves": {
    web: { command: 'node serve.js --port {webPort}', url: 'http://127.0.0.1:{webPort}/' },
  },
  "a page without the kit on the game's own server": {
    web: { command: 'node serve.js {webPort}', url: 'http://127.0.0.1:{webPort}/play.html', kit: false },
  },
};

async function doctor(launch: object): Promise<Finding[]> {
  const project = mkdtempSync(join(tmpdir(), 'gb-doctor-forms-'));
  mkdirSync(join(project, 'dist'));
  for (const f of ['game.js', 'serve.js', join('dist', 'index.html')]) writeFileSync(join(project, f), '');
  writeFileSync(join(project, 'gamebridge.json'), JSON.stringify({ name: 'Form', launch }));
  const f: Finding[] = [];
  await checkDeclaration(project, undefined, f);
  return f;
}

test.each(Object.keys(FORMS))('%s passes', async (form) => {
  const f = await doctor(FORMS[form]);
  expect(f.filter((x) => x.level !== 'ok')).toEqual([]);
});

test('a page without the kit is described as the page it opens, not as an empty command', async () => {
  const [ok] = await doctor(FORMS['a page the bridge serves, without the kit']);
  expect(ok.what).not.toContain('""');
  expect(ok.what).toMatch(/opens .*dist[\\/]index\.html in Chromium, without the kit/);
});

test("a page's server that is not on PATH is a problem naming it", async () => {
  const f = await doctor({ web: { command: 'no-such-server-xyz {webPort}', url: 'http://127.0.0.1:{webPort}/' } });
  expect(f.map((x) => x.what).join('\n')).toMatch(/launch\.web\.command runs no-such-server-xyz, which is not on PATH/);
});

test('a command without {port} anywhere is still a problem', async () => {
  const f = await doctor({ command: 'node game.js' });
  expect(f.map((x) => x.what).join('\n')).toMatch(/launch\.command has no \{port\}/);
});
