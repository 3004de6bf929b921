/**
 * The web kit's WebMCP door, reached by a real in-browser agent: Playwright MCP (the pinned
 * `@playwright/mcp` devDependency, driven through the official SDK client over stdio) on
 * Debian's Chromium with WebMCP on opens the Star Catcher page the daemon serves, lists the
 * tools the kit registered there (its `webmcp_*` tools) and plays the game through them.
 * Playwright MCP's browser opens the page without the carrier's fragment, so it plays its own
 * copy of the game: the one the daemon opened is not touched.
 *
 * Needs Debian's Chromium and `npm ci` (the package is a devDependency): without either it is a
 * visible skip on a developer's machine and a failure under CI=true.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CHROMIUM } from './helpers/browser.js';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { testNeeding } from './helpers/offline-npm.js';
import { freeRange } from './helpers/ports.js';
import { DIST, removeDir, ROOT, stopDaemon, tempHome, waitFor, waitGone } from './helpers/procs.js';

jest.setTimeout(240_000);

const PLAYWRIGHT_MCP = join(ROOT, 'node_modules', '@playwright', 'mcp', 'cli.js');
const PHASER_WWW = join(DIST, 'examples', 'phaser-game', 'www');
const missing = !existsSync(PLAYWRIGHT_MCP)
  ? `Playwright MCP (${PLAYWRIGHT_MCP}): run npm ci`
  : !existsSync(CHROMIUM)
    ? `Chromium (${CHROMIUM}): apt-get install -y chromium`
    : undefined;
const needing = testNeeding(
  missing,
  ".ci/run installs Debian's Chromium and `npm ci` the pinned @playwright/mcp devDependency.",
);

type Answer = { content: Array<{ type: string; text?: string }>; isError?: boolean };

let home: string;
let h: McpHandle;
let port: number;
let pageUrl: string;
let peer: Client | undefined;
let peerPid: number | undefined;
let profile: string;
let listChanges = 0;

beforeAll(async () => {
  if (missing) return;
  home = tempHome('gb-webmcp-pwmcp-');
  const project = join(home, 'project');
  mkdirSync(project);
  const [first] = await freeRange(2);
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify({
      name: 'Star Catcher',
      launch: { portRange: `${first}-${first + 1}`, readyTimeoutMs: 120_000, web: { static: PHASER_WWW } },
    }),
  );
  h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: project, args: ['--no-scan', '--timeout', '10000'] });
  const launched = await call(h, 'launch_instance', {}, 150_000);
  if (launched.isError) throw new Error(launched.text);
  port = launched.json.port;
  // The page's address, as the game's log gives it to a person (without the carrier's fragment).
  const log = (await call(h, 'instance_log', { port })).json.lines.join('\n');
  const opened = / and open (http:\/\/127\.0\.0\.1:\d+\/\S*) in Chromium/.exec(log);
  if (!opened) throw new Error(`the game's log does not say what it opened:\n${log}`);
  pageUrl = opened[1];

  // Playwright MCP as a person would run it, the browser's WebMCP switched on by its config file.
  profile = join(home, 'playwright-profile');
  writeFileSync(
    join(home, 'playwright-mcp.json'),
    JSON.stringify({ browser: { userDataDir: profile, launchOptions: { args: ['--enable-features=WebMCP'] } } }),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      PLAYWRIGHT_MCP,
      ...['--config', join(home, 'playwright-mcp.json')],
      ...['--executable-path', CHROMIUM, '--no-sandbox', '--headless'],
      ...['--output-dir', join(home, 'playwright-output')],
    ],
    cwd: home,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  peer = new Client({ name: 'jest', version: '1.0.0' });
  peer.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanges++);
  await peer.connect(transport);
  peerPid = transport.pid ?? undefined;
}, 300_000);

afterAll(async () => {
  await peer?.close().catch(() => undefined);
  if (peerPid) await waitGone(peerPid, 5000);
  // Playwright MCP ends its Chromium as it exits; whatever of it is left on the profile goes by pid.
  if (profile) for (const pid of processesOn(profile)) killGroup(pid);
  await h?.close();
  if (home) {
    stopDaemon(home);
    removeDir(home);
  }
});

/** Chromium processes started on the test's profile (their command line names it). */
function processesOn(dir: string): number[] {
  const flag = `--user-data-dir=${dir}`;
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0').includes(flag);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

async function peerCall(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const res = (await peer!.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as Answer;
  const text = res.content.map((c) => c.text ?? '').join('\n');
  if (res.isError) throw new Error(`${name} failed: ${text.slice(0, 500)}`);
  return text;
}

/** What the page's tool answered (Playwright MCP passes it on as JSON after its preamble). */
async function pageTool(name: string, args: Record<string, unknown> = {}): Promise<any> {
  const text = await peerCall(`webmcp_${name}`, args);
  const body = text.split('untrusted:\n')[1]?.split('\n### ')[0];
  if (!body) throw new Error(`no page answer in: ${text.slice(0, 500)}`);
  return JSON.parse(body).structuredContent;
}

needing(
  "Playwright MCP opens the daemon's Star Catcher page and lists the kit's player tools, no debug tool",
  async () => {
    const navigated = await peerCall('browser_navigate', { url: pageUrl });
    expect(navigated).toMatch(/Page Title: Star Catcher/);
    expect(navigated).toMatch(/7 webmcp tools available on the page/);
    await waitFor('tools/list_changed from Playwright MCP', () => listChanges > 0, 20_000);
    const { tools } = await peer!.listTools();
    const page = tools.filter((t) => t.name.startsWith('webmcp_'));
    expect(page.map((t) => t.name).sort()).toEqual([
      'webmcp_click',
      'webmcp_move_to',
      'webmcp_press',
      'webmcp_reset',
      'webmcp_set_value',
      'webmcp_snapshot',
      'webmcp_start',
    ]);
    expect(page.find((t) => t.name === 'webmcp_move_to')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { x: { type: 'number' } },
      required: ['x'],
    });
    expect(page.find((t) => t.name === 'webmcp_snapshot')?.annotations?.readOnlyHint).toBe(true);
    for (const debug of ['spawn', 'set_seed', 'log_state', 'ping', 'close', 'get_state'])
      expect(tools.map((t) => t.name)).not.toContain(`webmcp_${debug}`);
  },
);

needing("Playwright MCP plays the game through the kit's tools and sees the player's state change", async () => {
  expect((await pageTool('snapshot')).screen).toBe('MenuScreen');
  const started = await pageTool('start');
  expect(started).toMatchObject({
    ok: true,
    commandId: expect.any(Number),
    state: { player: { screen: 'GameScreen' } },
  });
  expect(started.state.player.basketX).toBe(400);
  const moved = await pageTool('move_to', { x: 300 });
  expect(moved).toMatchObject({ ok: true, commandId: started.commandId + 1, state: { player: { basketX: 300 } } });
  expect(moved.state.game).toBeUndefined();
  // The game the daemon opened is its own copy, not the one Playwright MCP plays.
  expect((await gameCall(h, port, 'get_state', { path: 'ui.screen' })).json.value).toBe('MenuScreen');
});
