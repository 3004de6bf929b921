/**
 * The MCP client both demos drive the bridge with: the official SDK Client spawning the real
 * proxy in the demo's project folder, and a tool call that turns an error answer into a
 * StepFailed with the bridge's own text.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { VERSION } from '../shared/version.js';
import { stringEnv } from '../shared/env.js';
import { selfCommand } from '../shared/self-command.js';
import { readDaemonFile } from '../shared/daemon-file.js';
import { bridgeHome, homePaths } from '../shared/paths.js';

export const DIST = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(DIST, 'proxy', 'main.js');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers read field by field for printing; their shapes are in docs/TOOLS.md
export type Json = Record<string, any>;

export class StepFailed extends Error {}

/** The server's last stderr lines, indented, for a failed demo's report ('' when it wrote none). */
export function stderrTail(stderr: string): string {
  if (!stderr.trim()) return '';
  return `  server stderr (last lines):\n${stderr
    .trim()
    .split('\n')
    .slice(-10)
    .map((l) => `    ${l}`)
    .join('\n')}`;
}

export interface DemoClient {
  client: Client;
  /** the proxy's last stderr lines */
  stderr(): string;
  /** a bridge tool; its JSON answer, or StepFailed with the error text */
  tool(name: string, args?: Json, timeout?: number): Promise<Json>;
  /** the whole result, image blocks included */
  raw(
    name: string,
    args?: Json,
    timeout?: number,
  ): Promise<{
    content: Array<{ type: string; text?: string; data?: string }>;
    structuredContent?: Json;
    isError?: boolean;
  }>;
  close(): Promise<void>;
}

/** Spawns the proxy (which finds or starts the daemon) in `project` and connects the SDK client to it. */
export async function openDemoClient(project: string, noDaemon = false): Promise<DemoClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...(noDaemon ? ['--no-daemon'] : [])],
    cwd: project,
    env: stringEnv(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const client = new Client({ name: 'game-bridge-demo', version: VERSION });
  const raw: DemoClient['raw'] = async (name, args = {}, timeout = 60000) =>
    (await client.callTool({ name, arguments: args }, { timeout })) as Awaited<ReturnType<DemoClient['raw']>>;
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    raw,
    async tool(name, args = {}, timeout = 60000) {
      const res = await raw(name, args, timeout);
      const text = res.content.find((c) => c.type === 'text')?.text ?? '';
      if (res.isError) throw new StepFailed(`${name} ${JSON.stringify(args)} failed:\n    ${text}`);
      return res.structuredContent ?? JSON.parse(text);
    },
    close: () => client.close().catch(() => undefined),
  };
}

/** A demo's last lines: the daemon it started (or found) stays for MCP clients, and how to use or end it. */
export function demoEnding(noDaemon = false): string[] {
  const register = `Register the same server with your MCP client: claude mcp add -s user game-bridge -- ${selfCommand()} (others: docs/SETUP.md)`;
  if (noDaemon) return [register];
  const info = readDaemonFile(homePaths(bridgeHome()).daemonJson);
  const who = info ? `The daemon (pid ${info.pid}) is still running` : 'The daemon is still running';
  return [
    `${who} for your MCP clients: it exits after 10 idle minutes, or now with \`${selfCommand()} stop\`.`,
    register,
  ];
}
