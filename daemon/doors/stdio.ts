/**
 * The in-process engine over stdio (`game-bridge-mcp --no-daemon`, and the library's
 * startStdioServer). No daemon: this process owns the games it launches, so it reaps them
 * when the client goes away (stdin closed, stdout broken), and on SIGINT/SIGTERM.
 *
 * Its stdio framing is the proxy's (shared/stdio-lines.ts), not the SDK's StdioServerTransport:
 * a malformed line gets a JSON-RPC error here too instead of being dropped without a word.
 */
import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { SessionConfig } from '../../shared/config.js';
import { parseSessionArgs } from '../../shared/session-args.js';
import { isBridgeError } from '../../shared/errors.js';
import { classifyLine, Stdio, tooLongText } from '../../shared/stdio-lines.js';
import { DaemonState } from '../state/state.js';
import type { Composite } from '../composites/types.js';
import { createEngineSession, type EngineSession } from '../sessions/session.js';

/** The SDK Transport over this process's stdin/stdout, one JSON-RPC message per line. */
class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly stdio: Stdio;

  constructor(onEnd: (why: string) => void) {
    this.stdio = new Stdio({
      line: (line) => {
        const c = classifyLine(line);
        if (c.kind === 'answer') this.stdio.write(c.answer);
        else this.onmessage?.(c.msg as unknown as JSONRPCMessage);
      },
      tooLong: (bytes, id) => this.stdio.write(tooLongText(bytes, id)),
      end: (why) => {
        this.onclose?.();
        onEnd(why);
      },
    });
  }

  async start(): Promise<void> {
    this.stdio.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.stdio.write(JSON.stringify(message))) await new Promise<void>((r) => this.stdio.onDrain(r));
  }

  async close(): Promise<void> {
    this.stdio.pause();
  }
}

export interface StdioServerHandle {
  state: DaemonState;
  session: EngineSession;
  /** reap launched games and close; idempotent */
  shutdown(): Promise<void>;
}

/**
 * Serve MCP on this process's stdio with the engine in-process. `onEnd` runs when the client
 * goes away (default: reap the games and exit 0).
 *
 * @example
 * // my-server.mjs: register it with a client as `node my-server.mjs --config ./gamebridge.json`
 * import { parseSessionArgs, startStdioServer } from 'game-bridge-mcp';
 *
 * const score = {
 *   name: 'score_twice',
 *   description: 'Adds 1 twice and answers the score',
 *   async run(ctx) {
 *     await ctx.commandAndSync('add', { n: 1 });
 *     return (await ctx.commandAndSync('add', { n: 1 })).game;
 *   },
 * };
 * await startStdioServer(parseSessionArgs(process.argv.slice(2)), { composites: [score] });
 */
export async function startStdioServer(
  config: SessionConfig,
  opts: { composites?: Composite[]; onEnd?: (handle: StdioServerHandle) => void } = {},
): Promise<StdioServerHandle> {
  const state = new DaemonState({
    home: config.home,
    mode: 'in-process',
    log: (l) => process.stderr.write(`game-bridge: ${l}\n`),
  });
  const session = createEngineSession(state, config, randomUUID(), {
    composites: opts.composites,
    pid: process.pid,
    cwd: config.cwd,
  });
  let shuttingDown: Promise<void> | undefined;
  const handle: StdioServerHandle = {
    state,
    session,
    shutdown: () =>
      (shuttingDown ??= (async () => {
        await state.reapAll().catch(() => undefined);
        await session.close();
        state.close();
      })()),
  };
  const onEnd = opts.onEnd ?? ((h: StdioServerHandle) => void h.shutdown().finally(() => process.exit(0)));
  serveStdio(() => session.buildServer(), { transport: session.tap(new StdioLineTransport(() => onEnd(handle))) });
  return handle;
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
  process.on('SIGINT', () => exit(130));
  process.on('SIGTERM', () => exit(143));
}
