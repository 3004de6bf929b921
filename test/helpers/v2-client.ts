/** The SDK v2 client (both protocol eras) on the real proxy, the in-process engine, or HTTP. */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { bridgeFreeEnv, CLI } from './procs.js';

/** 'legacy': the 2025 initialize handshake; 'auto': probe with server/discover; 'modern': 2026-07-28 or nothing. */
export type EraMode = 'legacy' | 'auto' | 'modern';

function newClient(mode: EraMode): Client {
  const versionNegotiation =
    mode === 'legacy' ? undefined : mode === 'auto' ? { mode: 'auto' as const } : { mode: { pin: '2026-07-28' } };
  return new Client({ name: `jest-v2-${mode}`, version: '1.0.0' }, versionNegotiation ? { versionNegotiation } : {});
}

/** A v2 client on `game-bridge-mcp [args]` over stdio (the proxy, or the engine with --no-daemon). */
export async function stdioClient(
  mode: EraMode,
  env: Record<string, string>,
  args: string[] = [],
  cwd?: string,
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const full = bridgeFreeEnv(env);
  if (!full.GAME_BRIDGE_HOME) throw new Error('stdioClient(): give the test its own GAME_BRIDGE_HOME');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...args],
    env: full,
    cwd,
    stderr: 'ignore',
  });
  const client = newClient(mode);
  await client.connect(transport);
  return { client, transport };
}

/** A v2 client on the daemon's /mcp. */
export async function httpClientV2(mode: EraMode, url: string, token: string): Promise<Client> {
  const client = newClient(mode);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** call a tool and parse its JSON answer (throws the tool's error text) */
export async function toolJson(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const res = (await client.callTool({ name, arguments: args })) as {
    content: Array<{ type: string; text?: string }>;
    isError?: boolean;
  };
  const text = res.content.find((c) => c.type === 'text')?.text ?? '';
  if (res.isError) throw new Error(text);
  return JSON.parse(text) as Record<string, any>;
}
