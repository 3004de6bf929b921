/**
 * Real third-party clients against a real daemon on a pinned port: Claude Code (temp HOME) shows
 * ✔ Connected for the HTTP registration with its bearer header and, with
 * MCP_PROTOCOL_NEGOTIATION=auto, for a stdio registration that it opens with `server/discover`
 * (2026-07-28); the MCP Inspector CLI over `--transport http` lists the MCP tools.
 * Both clients come from the npm cache only, at the versions test/clients.json pins
 * (test/helpers/offline-npm.ts): absent, the test is a visible skip, and fails under CI=true.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, Reaper, removeDir, tempHome } from './helpers/procs.js';
import { endHttpDaemon, startHttpDaemon, type HttpDaemon } from './helpers/http-daemon.js';
import { installOffline, pinnedClient, runCommand, testNeeding } from './helpers/offline-npm.js';

/** The client releases checked (pinned, as every dependency; the same Claude Code as test/package.test.ts). */
const CLAUDE_CODE = pinnedClient('@anthropic-ai/claude-code');
const INSPECTOR = pinnedClient('@modelcontextprotocol/inspector');
const MCP_TOOLS = [
  'list_instances',
  'launch_instance',
  'list_toolsets',
  'describe_toolset',
  'call_tool',
  'stop_instance',
  'instance_log',
];

const reaper = new Reaper();
let d: HttpDaemon | undefined;

// Installed before the tests are declared: a missing client decides whether a test runs or skips.
const work = tempHome('gb-clients-');
const cc = join(work, 'claude-code');
const inspector = join(work, 'inspector');
const ccMissing = await installOffline(cc, [CLAUDE_CODE]);
const inspectorMissing = await installOffline(inspector, [INSPECTOR]);

// Each test starts its daemon once its client is installed: an install can take longer than the
// daemon's idle exit on a loaded machine.
afterEach(async () => {
  await endHttpDaemon(reaper, d);
  d = undefined;
}, 60000);

afterAll(() => removeDir(work));

/** The daemon on a pinned port, started now. */
async function daemon(): Promise<HttpDaemon> {
  d = await startHttpDaemon(reaper);
  return d;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

testNeeding(ccMissing)(
  'Claude Code: the HTTP registration and a 2026-era stdio registration both show ✔ Connected',
  async () => {
    // Its postinstall puts the platform's native binary in place; run it explicitly (npm's script policy varies).
    expect(
      (
        await runCommand(process.execPath, [join(cc, 'node_modules', '@anthropic-ai', 'claude-code', 'install.cjs')], {
          cwd: cc,
          timeoutMs: 60000,
        })
      ).code,
    ).toBe(0);
    const claude = join(cc, 'node_modules', '.bin', 'claude');
    const d = await daemon();
    const env = { HOME: join(work, 'home'), XDG_CONFIG_HOME: join(work, 'home', '.config') };
    const opts = { cwd: work, env, timeoutMs: 60000 };
    const added = await runCommand(
      claude,
      [
        'mcp',
        'add',
        '-s',
        'user',
        '--transport',
        'http',
        'gb-http',
        d.url,
        '--header',
        `Authorization: Bearer ${d.token}`,
      ],
      opts,
    );
    expect(`${added.code} ${added.out}`).toMatch(/^0 /);
    // The stdio proxy behind a tee, so the test sees what Claude Code sent first.
    const sent = join(work, 'sent.jsonl');
    const proxy = `tee -a '${sent}' | '${process.execPath}' '${CLI}'`;
    const addedStdio = await runCommand(
      claude,
      ['mcp', 'add', '-s', 'user', 'gb-stdio', '-e', `GAME_BRIDGE_HOME=${d.home}`, '--', 'sh', '-c', proxy],
      opts,
    );
    expect(`${addedStdio.code} ${addedStdio.out}`).toMatch(/^0 /);

    // `claude mcp list` exits 0 whatever the health: read what it says.
    const listed = await runCommand(claude, ['mcp', 'list'], {
      ...opts,
      env: { ...env, MCP_PROTOCOL_NEGOTIATION: 'auto' },
      timeoutMs: 120000,
    });
    console.log(`CLAUDE MCP LIST:\n${listed.out}`);
    expect(listed.out).toMatch(new RegExp(`gb-http: ${escape(d.url)} \\(HTTP\\) - ✔ Connected`));
    expect(listed.out).toMatch(/gb-stdio: .* - ✔ Connected/);
    const messages = readFileSync(sent, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { method?: string; params?: { _meta?: Record<string, unknown> } });
    expect(messages[0].method).toBe('server/discover');
    const listTools = messages.find((m) => m.method === 'tools/list');
    expect(listTools?.params?._meta?.['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
  },
  300000,
);

testNeeding(inspectorMissing)(
  'MCP Inspector CLI, --transport http with the bearer header: tools/list names the MCP tools',
  async () => {
    const d = await daemon();
    const r = await runCommand(
      join(inspector, 'node_modules', '.bin', 'mcp-inspector'),
      ['--cli', d.url, '--transport', 'http', '--header', `Authorization: Bearer ${d.token}`, '--method', 'tools/list'],
      { cwd: work, timeoutMs: 120000 },
    );
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as { tools: Array<{ name: string }> };
    console.log(`INSPECTOR tools/list: ${listed.tools.map((t) => t.name).join(', ')}`);
    expect(listed.tools.map((t) => t.name).sort()).toEqual([...MCP_TOOLS].sort());
  },
  300000,
);
