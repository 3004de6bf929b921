/**
 * How the test runner reaches a game: as an MCP client of the daemon, like any agent (the SDK
 * client spawning this package's proxy with the test's gamebridge.json as --config). One driver
 * per test run, so every game it launches is its session's, and nothing else can take it.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { stringEnv } from '../../shared/env.js';
import { VERSION } from '../../shared/version.js';

export const PROXY = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'proxy', 'main.js');

import type { GameAnswer, McpAnswers } from '../../shared/answers/types.js';

/** A JSON object: a step's arguments, a failure's facts. */
export type Json = Record<string, unknown>;

/** A tool call the bridge answered with an error: its class-first text and its facts. */
export class ToolFailed extends Error {
  constructor(
    readonly text: string,
    readonly facts: Json,
  ) {
    super(text);
  }
}

export interface Driver {
  /** an advertised tool (launch_instance, stop_instance…); its JSON, or ToolFailed */
  tool<N extends keyof McpAnswers>(name: N, args?: Json, timeoutMs?: number): Promise<McpAnswers[N]>;
  /** a game or bridge tool through call_tool on `port` */
  game<N extends string>(port: number, name: N, args?: Json, timeoutMs?: number): Promise<GameAnswer<N>>;
  /** the image of a screenshot, as PNG bytes */
  screenshot(port: number): Promise<Buffer>;
  stderr(): string;
  close(): Promise<void>;
}

const IGNORE_SIGINT = ['--import', 'data:text/javascript,process.on("SIGINT",()=>{})'];

/** Answers as large as a whole state: the runner compares states, so they must not be cut. */
const MAX_CHARS = '4000000';

/** `config`: the gamebridge.json its launches use (none: the client only stops games). */
export async function openDriver(config?: string): Promise<Driver> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    // Ctrl-C reaches the whole process group: the runner's proxies outlive it, so the runner can
    // still stop the games they launched (a proxy exits when the runner closes its stdin).
    args: [IGNORE_SIGINT, PROXY, ...(config ? ['--config', config] : []), '--max-chars', MAX_CHARS].flat(),
    cwd: config ? dirname(config) : process.cwd(),
    env: stringEnv(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const client = new Client({ name: 'game-bridge-test', version: VERSION });
  await client.connect(transport);
  type Raw = {
    content: Array<{ type: string; text?: string; data?: string }>;
    structuredContent?: Json;
    isError?: boolean;
  };
  const raw = async (name: string, args: Json, timeoutMs: number) =>
    (await client.callTool({ name, arguments: args }, { timeout: timeoutMs })) as Raw;
  const json = (res: Raw): Json => {
    const text = res.content.find((c) => c.type === 'text')?.text ?? '';
    if (res.isError) throw new ToolFailed(text, res.structuredContent ?? {});
    return res.structuredContent ?? (JSON.parse(text) as Json);
  };
  // the answers are the schemas' (shared/answers/): the daemon's tests hold its answers to them
  return {
    tool: async <N extends keyof McpAnswers>(name: N, args: Json = {}, timeoutMs = 120000) =>
      json(await raw(name, args, timeoutMs)) as McpAnswers[N],
    game: async <N extends string>(port: number, name: N, args: Json = {}, timeoutMs = 120000) =>
      json(await raw('call_tool', { port, name, arguments: args }, timeoutMs)) as GameAnswer<N>,
    async screenshot(port) {
      const res = await raw('call_tool', { port, name: 'screenshot', arguments: {} }, 60000);
      json(res);
      const img = res.content.find((c) => c.type === 'image');
      if (!img?.data) throw new ToolFailed('the screenshot answer carried no image', {});
      return Buffer.from(img.data, 'base64');
    },
    stderr: () => stderr,
    close: () => client.close().catch(() => undefined),
  };
}
