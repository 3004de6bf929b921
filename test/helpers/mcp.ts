/** A real MCP client (the official SDK Client + StdioClientTransport) on the real CLI. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freeRange } from './ports.js';
import { bridgeFreeEnv, CLI, removeDir, stopDaemon, tempHome } from './procs.js';
import { ERROR_CLASSES } from '../../shared/errors.js';

export interface McpHandle {
  client: Client;
  transport: StdioClientTransport;
  pid: number | undefined;
  stderr: () => string;
  close(): Promise<void>;
}

export async function connect(
  opts: { args?: string[]; env?: Record<string, string>; cwd?: string; name?: string } = {},
): Promise<McpHandle> {
  const env = bridgeFreeEnv(opts.env);
  // Isolation: a test never talks to (or starts) the user's own daemon in ~/.game-bridge.
  if (!env.GAME_BRIDGE_HOME) throw new Error('connect(): give the test its own GAME_BRIDGE_HOME');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...(opts.args ?? [])],
    env,
    cwd: opts.cwd,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: opts.name ?? 'jest', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    pid: transport.pid ?? undefined,
    stderr: () => err,
    async close() {
      await client.close().catch(() => undefined);
    },
  };
}

/** Call a tool and return its JSON (structuredContent) and raw result. */
export async function call(h: McpHandle, name: string, args: Record<string, unknown> = {}, timeout = 30000) {
  const res = (await h.client.callTool({ name, arguments: args }, undefined, { timeout })) as {
    content: Array<{ type: string; text?: string }>;
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
  };
  const text = res.content.find((c) => c.type === 'text')?.text ?? '';
  if (res.isError) expectOneClass(text);
  return {
    res,
    text,
    json: (res.structuredContent ?? (res.isError ? undefined : JSON.parse(text))) as Record<string, any>,
    isError: res.isError === true,
  };
}

/**
 * Every error answer any suite meets is checked here: its text starts with its class, and names
 * no class of ours after that. A class inside the text is an error of ours passed on as a plain
 * message (`BridgeUsageError: Launch failed…: ChromiumMissing: …`), which an agent reads as two.
 */
function expectOneClass(text: string): void {
  const head = /^([A-Za-z]+): /.exec(text);
  if (!head || !(ERROR_CLASSES as readonly string[]).includes(head[1]))
    throw new Error(`An error answer does not start with its class: ${text.slice(0, 300)}`);
  const inner = new RegExp(`\\b(${[...ERROR_CLASSES, 'BrowserFailed'].join('|')}): `).exec(text.slice(head[0].length));
  if (inner) throw new Error(`An error answer names a second class (${inner[1]}): ${text.slice(0, 300)}`);
}

/** call_tool shorthand */
export function gameCall(
  h: McpHandle,
  port: number,
  name: string,
  args: Record<string, unknown> = {},
  timeout?: number,
) {
  return call(h, 'call_tool', { port, name, arguments: args }, timeout);
}

/**
 * The homes and clients a test file opens, pushed as it goes: after all its tests the clients
 * are closed, each home's daemon stopped and the home removed.
 */
export function cleanedAfterAll(): { homes: string[]; handles: McpHandle[] } {
  const homes: string[] = [];
  const handles: McpHandle[] = [];
  afterAll(async () => {
    await Promise.all(handles.map((h) => h.close()));
    for (const home of homes) {
      stopDaemon(home);
      removeDir(home);
    }
  });
  return { homes, handles };
}

/** What launchWebGame opened: the client, the game's port, the launch's answer, the home and the project folder. */
export interface WebGameRun {
  h: McpHandle;
  port: number;
  launched: Record<string, any>;
  home: string;
  project: string;
}

/**
 * One web game (`launch.web`) in a project of its own under a fresh home, on `ports` free ports,
 * launched through the real proxy + daemon; closed, stopped and removed after the file's tests.
 * `configs` writes more declarations beside gamebridge.json on the same ports.
 */
export async function launchWebGame(o: {
  prefix: string;
  name: string;
  web: Record<string, unknown>;
  ports?: number;
  timeout?: number;
  configs?: Record<string, { name: string; web: Record<string, unknown> }>;
  cleanup: { homes: string[]; handles: McpHandle[] };
}): Promise<WebGameRun> {
  const home = tempHome(o.prefix);
  o.cleanup.homes.push(home);
  const project = join(home, 'project');
  mkdirSync(project);
  const count = o.ports ?? 2;
  const [first] = await freeRange(count);
  const declare = (file: string, name: string, web: Record<string, unknown>) =>
    writeFileSync(
      join(project, file),
      JSON.stringify({ name, launch: { portRange: `${first}-${first + count - 1}`, readyTimeoutMs: 90_000, web } }),
    );
  declare('gamebridge.json', o.name, o.web);
  for (const [file, c] of Object.entries(o.configs ?? {})) declare(file, c.name, c.web);
  const h = await connect({
    env: { GAME_BRIDGE_HOME: home },
    cwd: project,
    args: ['--no-scan', '--timeout', String(o.timeout ?? 10000)],
  });
  o.cleanup.handles.push(h);
  const launched = await call(h, 'launch_instance', {}, 120_000);
  if (launched.isError) throw new Error(launched.text);
  return { h, port: launched.json.port as number, launched: launched.json, home, project };
}
