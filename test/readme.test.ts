/**
 * README.md's "Your own game in five minutes", run as written: the shell lines of its first code
 * block, in a throwaway HOME with npm's global prefix in a temp directory (so `npm link` touches
 * nothing outside the test). One change: the test gives `init` its own port range. Between
 * `launch` and `stop`, a real MCP client (the SDK, through the proxy) plays the launched game
 * the way the README says an agent would. Also: the README's Node snippet is the example file.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { call, connect, gameCall } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { reapAndReport } from './helpers/fault.js';
import { removeDir, ROOT, tempHome } from './helpers/procs.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The first ```sh block after a heading. */
function shellBlock(heading: string): string[] {
  const from = README.indexOf(`\n## ${heading}\n`);
  expect(from).toBeGreaterThan(0);
  const block = /```sh\n([\s\S]*?)```/.exec(README.slice(from))![1];
  return block.split('\n').filter((l) => l.trim());
}

function bash(
  line: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number; out: string; cwd: string }> {
  // `; pwd` carries a `cd` over to the next line, as in a terminal
  return new Promise((resolve) =>
    execFile(
      'bash',
      ['-c', `set -e; ${line}; echo "@@cwd $(pwd)"`],
      { env, cwd, timeout: 120000 },
      (err, stdout, stderr) => {
        const at = /@@cwd (.*)\n?$/.exec(stdout);
        resolve({
          code: err ? Number((err as { code?: unknown }).code ?? 1) : 0,
          out: `${stdout.replace(/@@cwd .*\n?$/, '')}${stderr}`,
          cwd: at ? at[1] : cwd,
        });
      },
    ),
  );
}

let work: string;
afterAll(async () => {
  if (work) {
    await reapAndReport(join(work, 'gb-home'));
    removeDir(work);
  }
});

describe('"Your own game in five minutes"', () => {
  const env: Record<string, string> = {};
  const ran: Array<{ line: string; code: number; out: string }> = [];
  let lines: string[] = [];
  let ports: number[] = [];
  let cwd = ROOT;
  let port = 0;
  beforeAll(async () => {
    work = tempHome('gb-readme-');
    const home = join(work, 'home');
    const prefix = join(work, 'npm-prefix');
    mkdirSync(home);
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    for (const [k, v] of Object.entries(process.env))
      if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_') && !k.startsWith('npm_')) env[k] = v;
    Object.assign(env, {
      HOME: home,
      PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
      npm_config_prefix: prefix,
      npm_config_offline: 'true',
      npm_config_cache: join(process.env.HOME ?? '/root', '.npm'),
      npm_config_update_notifier: 'false',
      GAME_BRIDGE_HOME: join(work, 'gb-home'),
    });
    ports = await freeRange(3);
    lines = shellBlock('Your own game in five minutes');
    for (const line of lines.slice(0, -1)) {
      const withPorts = line.startsWith('game-bridge-mcp init ')
        ? line.replace(/\s+#.*$/, '') + ` --port-range ${ports[0]}-${ports[2]}`
        : line;
      const r = await bash(withPorts, env, cwd);
      ran.push({ line, code: r.code, out: r.out });
      if (r.code !== 0) break;
      cwd = r.cwd;
    }
    port = Number(/✔ Tiny is up on port (\d+)/.exec(ran[5]?.out ?? '')?.[1]);
  }, 240000);

  test('is the block of commands a reader copies', () => {
    expect(lines.map((l) => l.split(/\s+#/)[0].trim())).toEqual([
      'npm link',
      'mkdir -p ~/tiny && cp examples/tiny-game/tiny-game.mjs ~/tiny/ && cd ~/tiny',
      'npm link game-bridge-mcp',
      'game-bridge-mcp init --name Tiny --command "node tiny-game.mjs {port}" --no-register',
      'game-bridge-mcp doctor',
      'game-bridge-mcp launch',
      'game-bridge-mcp stop',
    ]);
  });

  test('runs as written up to its launch', () => {
    expect(ran).toMatchObject(lines.slice(0, -1).map((line) => ({ line, code: 0 })));
    expect(cwd).toBe(join(env.HOME, 'tiny'));
    expect(ran[4].out).toContain('No problems found.');
    expect(ports).toContain(port);
  });

  test('an MCP client plays the game it launched', async () => {
    // what the agent does next: add 2 points through the bridge, and read them back
    const mcp = await connect({ env: { GAME_BRIDGE_HOME: env.GAME_BRIDGE_HOME }, cwd });
    try {
      const added = await gameCall(mcp, port, 'add', { n: 2 });
      expect(added.json).toMatchObject({ via: 'manifest', applied: true, game: { score: 2 } });
      expect((await call(mcp, 'list_instances')).json.live).toEqual([expect.objectContaining({ port, game: 'Tiny' })]);
    } finally {
      await mcp.close();
    }
  }, 60000);

  test('its last line stops that game', async () => {
    const stop = await bash(lines[lines.length - 1], env, cwd);
    expect(stop.code).toBe(0);
    expect(stop.out).toMatch(new RegExp(`stopped game Tiny on port ${port} \\(pid \\d+\\)`));
  }, 60000);
});

test('the README registers one game-bridge server, so Claude Code sees no conflicting scopes', () => {
  const adds = [...README.matchAll(/^claude mcp add .*$/gm)].map((m) => m[0].split(/\s+#/)[0].trim());
  expect(adds).toEqual(['claude mcp add -s user game-bridge -- game-bridge-mcp']);
  // the five-minute block's init writes no project-scope `game-bridge` beside it
  expect(shellBlock('Your own game in five minutes').filter((l) => / init /.test(` ${l}`))).toEqual([
    expect.stringContaining('--no-register'),
  ]);
});

test("the README's Node game is examples/tiny-game/tiny-game.mjs, line for line", () => {
  const snippet = /```ts\n(\/\/ tiny-game\.mjs[\s\S]*?)```/.exec(README)![1];
  expect(snippet).toBe(readFileSync(join(ROOT, 'examples', 'tiny-game', 'tiny-game.mjs'), 'utf8'));
});

/** The README, the other root pages and every page under docs/, as paths from the repository's root. */
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'SECURITY.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

test('no document holds the markers of an unresolved merge', () => {
  const found = DOCS.flatMap((doc) =>
    readFileSync(join(ROOT, doc), 'utf8')
      .split('\n')
      .flatMap((line, i) => (/^(<{7}|>{7}) /.test(line) ? [`${doc}:${i + 1}: ${line}`] : [])),
  );
  expect(found).toEqual([]);
});

/** A document's text without its fenced code blocks: a `#` or a link in code is not the document's. */
const proseOf = (doc: string) => readFileSync(join(ROOT, doc), 'utf8').replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchors of a document's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(doc: string): Set<string> {
  return new Set(
    [...proseOf(doc).matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

test('every link between the README and the docs leads to a document and a heading that exist', () => {
  // each linked document read once: its anchors, or null when it does not exist
  const anchors = new Map<string, Set<string> | null>();
  const anchorsFor = (doc: string) => {
    if (!anchors.has(doc)) anchors.set(doc, existsSync(join(ROOT, doc)) ? anchorsOf(doc) : null);
    return anchors.get(doc)!;
  };
  const broken: string[] = [];
  let checked = 0;
  for (const doc of DOCS) {
    // links to a Markdown file of the repository (or to a section of this one), with their anchor
    for (const m of proseOf(doc).matchAll(/\]\(([\w./-]*\.md|)(?:#([^)]+))?\)/g)) {
      checked++;
      const found = anchorsFor(m[1] ? join(dirname(doc), m[1]) : doc);
      if (!found || (m[2] !== undefined && !found.has(m[2]))) broken.push(`${doc} → ${m[0]}`);
    }
  }
  expect(checked).toBeGreaterThan(20);
  expect(broken).toEqual([]);
});

test('every picture a document shows is in the repository', () => {
  const shown = DOCS.flatMap((doc) =>
    [...proseOf(doc).matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => ({ doc, path: join(dirname(doc), m[1]) })),
  );
  expect(shown.map((s) => s.path)).toContain('docs/img/dashboard-1280.png');
  expect(shown.filter((s) => !existsSync(join(ROOT, s.path)))).toEqual([]);
});
