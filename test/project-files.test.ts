/**
 * What `register`, `init` and `save_test` write in a project, on a machine shared with another user
 * (`nobody`, through setpriv): nothing another user plants makes them write anywhere but the
 * file they name, a link in the folder is refused by its name and never read or written
 * through, and a rewritten configuration keeps its mode. The commands run in this process (so
 * the attacker knows their pid, as an attacker watching /proc would).
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { runInit } from '../cli/init.js';
import { runRegister, type ClientKind } from '../cli/client-config.js';
import { Recording } from '../daemon/recording/recordings.js';
import { saveTest } from '../daemon/recording/save.js';
import { asNobody, asOtherUserTest } from './helpers/nobody.js';
import { removeDir, tempHome } from './helpers/procs.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

/** A folder of this user's, with `victim` (a file of theirs the attacker wants written). */
function scene(): { base: string; victim: string } {
  const base = tempHome('gb-projfiles-');
  dirs.push(base);
  chmodSync(base, 0o755); // the other user may reach the shared folder inside it
  const victim = join(base, 'bashrc');
  writeFileSync(victim, 'original\n');
  return { base, victim };
}

/** A team folder inside `base` with `mode` (root's, as a shared folder would be). */
function sharedFolder(base: string, mode: number): string {
  const dir = join(base, 'team');
  mkdirSync(dir);
  chmodSync(dir, mode);
  return dir;
}

/** The other user plants `link -> target`. */
const plantAsNobody = (link: string, target: string) =>
  asNobody(`import { symlinkSync } from 'node:fs'; symlinkSync(${JSON.stringify(target)}, ${JSON.stringify(link)});`);

async function register(dir: string, clients: ClientKind[] = ['claude']) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runRegister({ dir, clients, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const init = (dir: string) => runInit({ dir, interactive: false, out: () => undefined });

asOtherUserTest(
  "register in a shared sticky folder writes .mcp.json, never through another user's link at its temp name",
  async () => {
    const { base, victim } = scene();
    const team = sharedFolder(base, 0o1777);
    await plantAsNobody(join(team, `.mcp.json.${process.pid}.tmp`), victim);
    const r = await register(team);
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
    expect(lstatSync(join(team, '.mcp.json')).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(join(team, '.mcp.json'), 'utf8')).mcpServers['game-bridge']).toBeDefined();
  },
);

asOtherUserTest('register refuses a folder any user can write, naming it, before writing anything there', async () => {
  const { base, victim } = scene();
  const team = sharedFolder(base, 0o777);
  await plantAsNobody(join(team, `.mcp.json.${process.pid}.tmp`), victim);
  const r = await register(team);
  expect(r.code).toBe(1);
  expect(r.err).toContain(`${team} can be changed by another user (it is writable by every user`);
  expect(readFileSync(victim, 'utf8')).toBe('original\n');
  expect(existsSync(join(team, '.mcp.json'))).toBe(false);
});

asOtherUserTest(
  "init refuses a folder any user can write, so another user's link never makes it write elsewhere",
  async () => {
    const { base } = scene();
    const team = sharedFolder(base, 0o777);
    const elsewhere = join(base, 'elsewhere.json');
    await plantAsNobody(join(team, 'gamebridge.json'), elsewhere);
    expect(await init(team)).toBe(1);
    expect(existsSync(elsewhere)).toBe(false);
  },
);

test('register keeps a 0600 .mcp.json at 0600 and keeps the other servers in it', async () => {
  const { base } = scene();
  const file = join(base, '.mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: 'x', env: { TOKEN: 'secret' } } } }), {
    mode: 0o600,
  });
  chmodSync(file, 0o600);
  const r = await register(base);
  expect(r.code).toBe(0);
  expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  expect(doc.mcpServers.other.env.TOKEN).toBe('secret');
  expect(doc.mcpServers['game-bridge']).toBeDefined();
});

test("register refuses a .mcp.json that links out of the folder, naming the link, without touching the link's target", async () => {
  const { base } = scene();
  const home = join(base, 'home');
  mkdirSync(home);
  const claudeJson = join(home, '.claude.json');
  const secret = JSON.stringify({ mcpServers: { mine: { env: { TOKEN: 'secret' } } } });
  writeFileSync(claudeJson, secret, { mode: 0o600 });
  const repo = join(base, 'repo');
  mkdirSync(repo);
  symlinkSync(claudeJson, join(repo, '.mcp.json'));
  const r = await register(repo);
  expect(r.code).toBe(1);
  expect(r.err).toContain(`${join(repo, '.mcp.json')} is a symbolic link (to ${claudeJson})`);
  expect(lstatSync(join(repo, '.mcp.json')).isSymbolicLink()).toBe(true);
  expect(readFileSync(claudeJson, 'utf8')).toBe(secret);
});

test.each(['.cursor', '.vscode'] as const)(
  'register refuses a linked %s folder by its name and writes nothing into its target',
  async (folder) => {
    const { base } = scene();
    const target = join(base, 'target');
    mkdirSync(target);
    const repo = join(base, 'repo');
    mkdirSync(repo);
    symlinkSync(target, join(repo, folder));
    const r = await register(repo, [folder === '.cursor' ? 'cursor' : 'vscode']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${join(repo, folder)} is a symbolic link (to ${target})`);
    expect(existsSync(join(target, 'mcp.json'))).toBe(false);
  },
);

test('init refuses a dangling gamebridge.json link and creates nothing where it points', async () => {
  const { base } = scene();
  const repo = join(base, 'repo');
  mkdirSync(repo);
  const elsewhere = join(base, 'elsewhere.json');
  symlinkSync(elsewhere, join(repo, 'gamebridge.json'));
  expect(await init(repo)).toBe(1);
  expect(existsSync(elsewhere)).toBe(false);
  expect(lstatSync(join(repo, 'gamebridge.json')).isSymbolicLink()).toBe(true);
});

test('init --force refuses a gamebridge.json that links to another file and leaves that file as it was', async () => {
  const { base, victim } = scene();
  const repo = join(base, 'repo');
  mkdirSync(repo);
  symlinkSync(victim, join(repo, 'gamebridge.json'));
  expect(await runInit({ dir: repo, interactive: false, force: true, out: () => undefined })).toBe(1);
  expect(readFileSync(victim, 'utf8')).toBe('original\n');
});

/** save_test as the daemon runs it, for a project whose gamebridge.json is `config`. */
function save(config: string, name = 'first') {
  const recording = new Recording();
  recording.steps.push({ kind: 'do', name: 'drop', arguments: { x: 1 }, at: Date.now() });
  return saveTest({ name, overwrite: true, recording, config, game: { name: 'g' }, frameExact: false });
}

asOtherUserTest(
  "save_test in a shared sticky tests folder writes the test, never through another user's link at its temp name",
  async () => {
    const { base, victim } = scene();
    const repo = join(base, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, 'gamebridge.json'), '{}');
    const tests = join(repo, 'gamebridge-tests');
    mkdirSync(tests);
    chmodSync(tests, 0o1777);
    await plantAsNobody(join(tests, `first.jsonl.${process.pid}.tmp`), victim);
    save(join(repo, 'gamebridge.json'));
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
    expect(lstatSync(join(tests, 'first.jsonl')).isFile()).toBe(true);
  },
);

test('save_test refuses a linked gamebridge-tests folder by its name and writes nothing into its target', () => {
  const { base } = scene();
  const target = join(base, 'target');
  mkdirSync(target);
  const repo = join(base, 'repo');
  mkdirSync(repo);
  writeFileSync(join(repo, 'gamebridge.json'), '{}');
  symlinkSync(target, join(repo, 'gamebridge-tests'));
  expect(() => save(join(repo, 'gamebridge.json'))).toThrow(
    `${join(repo, 'gamebridge-tests')} is a symbolic link (to ${target})`,
  );
  expect(existsSync(join(target, 'first.jsonl'))).toBe(false);
});
