/**
 * The in-process engine over stdio (`game-bridge-mcp --no-daemon`, and the library's
 * startStdioServer). No daemon: this process owns the games it launches, so it reaps them
 * when the client goes away (stdin closed), and on SIGINT/SIGTERM.
 */
import { randomUUID } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parseSessionArgs, type SessionConfig } from '../shared/config.js';
import { isBridgeError } from '../shared/errors.js';
import { Bridge } from './bridge.js';
import type { Composite } from './composites/types.js';
import { createEngineSession, type EngineSession } from './sessions/session.js';

export interface StdioServerHandle {
  bridge: Bridge;
  session: EngineSession;
  /** reap launched games and close; idempotent */
  shutdown(): Promise<void>;
}

export async function startStdioServer(config: SessionConfig, opts: { composites?: Composite[] } = {}): Promise<StdioServerHandle> {
  const bridge = new Bridge({ home: config.home, mode: 'in-process', log: (l) => process.stderr.write(`game-bridge: ${l}\n`) });
  const session = createEngineSession(bridge, config, randomUUID(), { composites: opts.composites, pid: process.pid, cwd: config.cwd });
  const transport = new StdioServerTransport();
  let shuttingDown: Promise<void> | undefined;
  const shutdown = () =>
    (shuttingDown ??= (async () => {
      await bridge.reapAll().catch(() => undefined);
      await session.close();
      bridge.close();
    })());
  await session.server.connect(transport);
  return { bridge, session, shutdown };
}

/** Entry point for `--no-daemon`: parse argv, serve stdio until the client leaves. */
export async function runStdioEngine(argv: string[]): Promise<void> {
  let config: SessionConfig;
  try {
    config = parseSessionArgs(argv, process.env, process.cwd());
  } catch (e) {
    process.stderr.write(`game-bridge-mcp: ${isBridgeError(e) ? e.message : String(e)}\n`);
    process.exit(2);
  }
  const handle = await startStdioServer(config);
  const exit = (code: number) => void handle.shutdown().finally(() => process.exit(code));
  process.stdin.on('end', () => exit(0));
  process.stdin.on('close', () => exit(0));
  process.stdout.on('error', () => exit(0)); // EPIPE: the client is gone
  process.on('SIGINT', () => exit(130));
  process.on('SIGTERM', () => exit(143));
}
