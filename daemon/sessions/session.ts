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
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DaemonState, SessionInfo } from '../state.js';
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
  /** Run a tool in-process (the dashboard's form); `record` puts it in the call feed. */
  call(name: string, args: Record<string, unknown>, record?: boolean): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface EngineSessionOptions {
  composites?: Composite[];
  /** the client's argv did not parse: every tool call says so (stderr is often hidden by clients) */
  configError?: string;
  cwd?: string;
  pid?: number;
  /** the dashboard's own session: not listed among the sessions, and it never adopts a game */
  observer?: boolean;
}

export function createEngineSession(state: DaemonState, config: SessionConfig, sessionId: string, opts: EngineSessionOptions = {}): EngineSession {
  const composites = new CompositeRegistry(opts.composites ?? [], projectComposites(config, (l) => state.log(l)));
  void composites.all().catch(() => undefined); // loaded now, so the first replay verdict knows them
  const context = new SessionContext(state, config, sessionId, composites, opts.observer === true);
  const eager = config.eager ? new EagerTools(context) : undefined;
  const registration: SessionInfo = { id: sessionId, cwd: config.cwd, pid: opts.pid, startedAt: new Date().toISOString() };
  if (!opts.observer) state.addSession(registration);

  const server = new Server(
    { name: 'game-bridge-mcp', title: 'Game Bridge', version: VERSION },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = TOOLS.map((t) => t.advertised);
    if (eager) tools.push(...(await eager.list()));
    return { tools };
  });

  /** One tool call, whichever way it came (a client's tools/call, or the dashboard's form). */
  const runTool = async (name: string, rawArgs: unknown, toolExtra: ToolCallExtra): Promise<CallToolResult> => {
    try {
      if (opts.configError) {
        throw usageError(
          `This bridge was started with bad arguments (${opts.configError.replace(/^BridgeUsageError: /, '')}). ` +
            "Fix the game-bridge-mcp arguments in the MCP client's server configuration and restart it.",
        );
      }
      const def = TOOLS_BY_NAME.get(name);
      if (def) {
        return okResult(await def.run(def.parse(rawArgs), context, toolExtra), config.maxAnswerChars);
      }
      if (eager) {
        const out = await eager.call(name, (rawArgs ?? {}) as Record<string, unknown>, toolExtra);
        if (out) return okResult(out, config.maxAnswerChars);
      }
      throw usageError(
        `There is no MCP tool '${name}'. The tools are: ${TOOLS.map((t) => t.name).join(', ')}. ` +
          `A game's own tools are called with call_tool {port, name: '${name}', arguments}.`,
      );
    } catch (e) {
      return errorResult(e, config.maxAnswerChars, (l) => state.log(l));
    }
  };

  /** Run a call and put it in the daemon's call feed (the dashboard shows it as it lands). */
  const recordedCall = async (name: string, rawArgs: unknown, toolExtra: ToolCallExtra): Promise<CallToolResult> => {
    const at = Date.now();
    const t0 = performance.now();
    const result = await runTool(name, rawArgs, toolExtra);
    const args = (rawArgs && typeof rawArgs === 'object' ? rawArgs : {}) as Record<string, unknown>;
    const first = result.content[0];
    state.feed.record({
      at,
      session: sessionId,
      client: opts.observer ? 'dashboard' : registration.client?.name,
      tool: name,
      args,
      port: portOf(name, args, context),
      ms: performance.now() - t0,
      isError: result.isError === true,
      text: first?.type === 'text' ? first.text : '',
      images: result.content.filter((c) => c.type === 'image').length,
    });
    return result;
  };

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
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
    return recordedCall(req.params.name, req.params.arguments, toolExtra);
  });

  // The client's name and version, for the dashboard's session list.
  server.oninitialized = () => {
    const v = server.getClientVersion();
    if (v) registration.client = { name: String(v.name), version: String(v.version) };
  };

  if (eager) {
    eager.onChange(() => void server.sendToolListChanged().catch(() => undefined));
  }

  let closed = false;
  return {
    server,
    context,
    replayVerdict: (msg) => replayVerdict(msg, context, eager),
    call(name, args, record = true) {
      const extra: ToolCallExtra = { signal: new AbortController().signal, progress: async () => undefined };
      return record ? recordedCall(name, args, extra) : runTool(name, args, extra);
    },
    async close() {
      if (closed) return;
      closed = true;
      eager?.stop();
      state.endSession(registration);
      await server.close().catch(() => undefined);
    },
  };
}

/** The game port a call addresses, for the feed (undefined for tools that take none). */
function portOf(name: string, args: Record<string, unknown>, ctx: SessionContext): number | undefined {
  if (!TOOLS_BY_NAME.get(name)?.advertised.inputSchema.properties?.port) return undefined;
  try {
    return ctx.resolvePort(args);
  } catch {
    return undefined;
  }
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
