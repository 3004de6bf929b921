/**
 * The tool tables of README.md and docs/TOOLS.md, written from what the real server says: its
 * `tools/list` (names, titles, descriptions, annotations) and, for the bridge toolset, the
 * `describe_toolset` answer on a live game that declares every capability (the example Crate
 * Stack with its screenshot). And the field table of every tool in docs/TOOLS.md, written from
 * its answer schema (docs-fields.mjs).
 *
 *   npm run docs:tools            rewrite the marked regions
 *   npm run docs:tools -- --check exit 1 and name the stale files, writing nothing
 *
 * A region runs from `<!-- tools:NAME -->` to `<!-- /tools:NAME -->`. Needs `npm run build`.
 * DOCS_TOOLS_FILES=a.md,b.md works on other files instead (the test checks a planted stale copy).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fieldTables } from './docs-fields.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FILES = process.env.DOCS_TOOLS_FILES ? process.env.DOCS_TOOLS_FILES.split(',') : ['README.md', 'docs/TOOLS.md'];

/** A port nothing listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The first sentence of a description: what fits a table cell. */
function firstSentence(text) {
  const one = (text ?? '').replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(one);
  // a pipe would end the cell; outside code, `<name>` would be read as an HTML tag
  return (m ? m[1] : one)
    .replace(/\|/g, '\\|')
    .split('`')
    .map((part, i) => (i % 2 ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('`');
}

/** What the server says, read through the SDK client from a server in a home of its own. */
async function readServer() {
  const home = mkdtempSync(join(tmpdir(), 'gb-docs-tools-'));
  const port = await freePort();
  const game = spawn(
    process.execPath,
    [join(ROOT, 'dist/examples/crate-stack/main.js'), '--port', String(port), '--screenshot'],
    { env: { ...process.env, GAME_BRIDGE_HOME: home }, stdio: 'ignore' },
  );
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => typeof v === 'string' && !k.startsWith('GAME_BRIDGE_')),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'dist/proxy/main.js'), '--no-daemon', '--no-scan', '--scan-range', String(port)],
    env: { ...env, GAME_BRIDGE_HOME: home },
    cwd: home,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'docs-tools', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    let bridge;
    for (let i = 0; i < 100 && !bridge; i++) {
      const r = await client.callTool({ name: 'describe_toolset', arguments: { port, toolset: 'bridge' } });
      if (!r.isError) bridge = r.structuredContent;
      else await new Promise((res) => setTimeout(res, 100));
    }
    if (!bridge) throw new Error(`The example game on port ${port} never answered describe_toolset.`);
    return { tools, bridge };
  } finally {
    await client.close().catch(() => undefined);
    game.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  }
}

/** The MCP tools, one row each, in the order the server lists them. */
function mcpTable(tools) {
  const rows = tools.map((t) => {
    const a = t.annotations ?? {};
    const kind = a.readOnlyHint ? 'reads' : a.destructiveHint ? 'changes (destructive)' : 'changes';
    return `| \`${t.name}\` | ${t.title ?? ''} | ${firstSentence(t.description)} | ${kind} |`;
  });
  return ['| tool | title | what it does | effect |', '|---|---|---|---|', ...rows].join('\n');
}

/** The bridge toolset, one row each, reached through call_tool. */
function bridgeTable(bridge) {
  const rows = bridge.tools.map(
    (t) => `| \`${t.name}\` | ${firstSentence(t.description)} | ${t.readOnly ? 'reads' : 'changes'} |`,
  );
  return ['| bridge tool | what it does | effect |', '|---|---|---|', ...rows].join('\n');
}

/** A document with each marked region replaced; a region it lacks is left alone. */
function rewrite(text, regions) {
  let out = text;
  for (const [name, body] of Object.entries(regions)) {
    const open = `<!-- tools:${name} -->`;
    const close = `<!-- /tools:${name} -->`;
    const from = out.indexOf(open);
    const to = out.indexOf(close);
    if (from < 0 || to < from) continue;
    out = `${out.slice(0, from + open.length)}\n${body}\n${out.slice(to)}`;
  }
  return out;
}

const { tools, bridge } = await readServer();
const regions = { mcp: mcpTable(tools), bridge: bridgeTable(bridge), ...(await fieldTables()) };
const check = process.argv.includes('--check');
const stale = [];
for (const file of FILES) {
  const path = resolve(ROOT, file);
  const text = readFileSync(path, 'utf8');
  const next = rewrite(text, regions);
  if (next === text) continue;
  stale.push(file);
  if (!check) writeFileSync(path, next);
}
if (check && stale.length) {
  process.stderr.write(
    `Stale tool tables in ${stale.join(', ')}: the server's tools or their answers changed. Run \`npm run docs:tools\` and commit the result.\n`,
  );
  process.exit(1);
}
process.stdout.write(
  stale.length ? `Rewrote the tool tables in ${stale.join(', ')}.\n` : 'The tool tables are current.\n',
);
