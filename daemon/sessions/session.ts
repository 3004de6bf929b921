/**
 * One MCP session for one client: a low-level SDK Server configured from that
 * client's settings, exposing the seven tools (plus every game tool flatly with --eager).
 * Transport-agnostic: stdio (--no-daemon) and the daemon's WebSocket both connect here.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { SessionConfig } from '../../shared/config.js';
import type { ReplayVerdict } from '../../shared/frames.js';
import { VERSION } from '../../shared/version.js';
import { usageError } from '../../shared/errors.js';
import { errorResult, okResult } from '../tools/answer.js';
import { explainExit } from '../launcher/index.js';
import type { DaemonState } from '../state.js';
import { CompositeRegistry } from '../composites/registry.js';
import type { Composite } from '../composites/types.js';
import { EagerTools } from './eager.js';
import { SessionContext } from './context.js';
import { TOOLS, TOOLS_BY_NAME } from '../tools/index.js';
import type { ToolCallExtra } from '../tools/types.js';
import { BRIDGE_TOOL_NAMES } from '../game/manifest.js';
import { projectComposites } from '../composites/project.js';

export const INSTRUCTIONS = [
  'game-bridge drives running games (any engine) through a small HTTP contract.',
  'The path: list_instances (find running games) or launch_instance (start the one declared in gamebridge.json)',
  '→ list_toolsets {port} → describe_toolset {port, toolset} → call_tool {port, name, arguments}.',
  "A game's own tools are NOT separate MCP tools: they are reached through call_tool, so a game tool missing from the tool list still exists.",
  `Every game also has the \`bridge\` toolset (${BRIDGE_TOOL_NAMES.join(', ')}): get_state {path} reads one part of the state, wait_for {path, equals|gt|...} waits for a condition.`,
  'call_tool returns the state after the game applied the command. Errors start with their class (GameOffline, CommandRejected, ...) and say what to do next.',
  'stop_instance stops a game launched here; instance_log reads its output.',
].join(' ');

export interface EngineSession {
  server: Server;
  context: SessionContext;
  replayVerdict(msg: unknown): ReplayVerdict;
  close(): Promise<void>;
}

export interface EngineSessionOptions {
  composites?: Composite[];
  /** the client's argv did not parse: every tool call says so (stderr is often hidden by clients) */
  configError?: string;
  cwd?: string;
  pid?: number;
}

export function createEngineSession(state: DaemonState, config: SessionConfig, sessionId: string, opts: EngineSessionOptions = {}): EngineSession {
  const composites = new CompositeRegistry(opts.composites ?? [], projectComposites(config, (l) => state.log(l)));
  void composites.all().catch(() => undefined); // loaded now, so the first replay verdict knows them
  const context = new SessionContext(state, config, sessionId, composites);
  const eager = config.eager ? new EagerTools(context) : undefined;
  const registration = { id: sessionId, cwd: config.cwd, pid: opts.pid, startedAt: new Date().toISOString() };
  state.addSession(registration);

  const server = new Server(
    { name: 'game-bridge-mcp', title: 'Game Bridge', version: VERSION },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = TOOLS.map((t) => t.advertised);
    if (eager) tools.push(...(await eager.list()));
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name;
    const token = req.params._meta?.progressToken;
    const toolExtra: ToolCallExtra = {
      signal: extra.signal,
      async progress(progress, total, message) {
        if (token === undefined) return;
        await extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) } })
          .catch(() => undefined);
      },
    };
    try {
      if (opts.configError) {
        throw usageError(
          `This bridge was started with bad arguments (${opts.configError.replace(/^BridgeUsageError: /, '')}). ` +
            "Fix the game-bridge-mcp arguments in the MCP client's server configuration and restart it.",
        );
      }
      const def = TOOLS_BY_NAME.get(name);
      if (def) {
        return okResult(await def.run(def.parse(req.params.arguments), context, toolExtra), config.maxAnswerChars);
      }
      if (eager) {
        const out = await eager.call(name, (req.params.arguments ?? {}) as Record<string, unknown>, toolExtra);
        if (out) return okResult(out, config.maxAnswerChars);
      }
      throw usageError(
        `There is no MCP tool '${name}'. The tools are: ${TOOLS.map((t) => t.name).join(', ')}. ` +
          `A game's own tools are called with call_tool {port, name: '${name}', arguments}.`,
      );
    } catch (e) {
      return errorResult(await explainExit(state.launcher, e), config.maxAnswerChars, (l) => state.log(l));
    }
  });

  if (eager) {
    eager.onChange(() => void server.sendToolListChanged().catch(() => undefined));
  }

  let closed = false;
  return {
    server,
    context,
    replayVerdict: (msg) => replayVerdict(msg, context, eager),
    async close() {
      if (closed) return;
      closed = true;
      eager?.stop();
      state.endSession(registration);
      await server.close().catch(() => undefined);
    },
  };
}

const SAFE_METHODS = new Set(['initialize', 'ping', 'tools/list', 'resources/list', 'prompts/list', 'server/discover', 'resources/templates/list']);

/** Read-only requests are safe to re-send after a daemon restart (docs/DECISIONS.md); anything that can change a game is not. */
export function replayVerdict(msg: unknown, ctx: SessionContext, eager?: EagerTools): ReplayVerdict {
  const m = msg as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (!m || typeof m.method !== 'string') return 'unsafe';
  if (SAFE_METHODS.has(m.method)) return 'safe';
  if (m.method !== 'tools/call') return 'unsafe';
  const name = typeof m.params?.name === 'string' ? m.params.name : '';
  const args = (m.params?.arguments && typeof m.params.arguments === 'object' ? m.params.arguments : {}) as Record<string, unknown>;
  const def = TOOLS_BY_NAME.get(name);
  if (def) return def.replay(args, ctx);
  return eager?.verdict(name) ?? 'unsafe';
}
