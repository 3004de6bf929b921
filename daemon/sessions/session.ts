/**
 * One MCP session for one client: its settings, its context, and the SDK servers that
 * speak for it, exposing the MCP tools (plus every game tool flatly with --eager).
 * Transport-agnostic: stdio (--no-daemon), the daemon's WebSocket and HTTP all build their
 * servers here, with its resources (daemon/resources/) and prompts (daemon/prompts/). A session may build more than one server: the SDK's era-pinning entry builds a
 * throwaway one to answer a `server/discover` probe (docs/DECISIONS.md, "Protocol versions and HTTP").
 */
import { Server, type Transport } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { SessionConfig } from '../../shared/config.js';
import type { ReplayVerdict } from '../../shared/frames.js';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO } from '../../shared/server-identity.js';
import { usageError } from '../../shared/errors.js';
import { errorResult, okResult } from '../tools/answer.js';
import { explainExit } from '../launcher/index.js';
import type { DaemonState, SessionInfo } from '../state/state.js';
import { CompositeRegistry } from '../composites/registry.js';
import type { Composite } from '../composites/types.js';
import { EagerTools } from './eager.js';
import { SessionContext } from './context.js';
import { TOOLS, TOOLS_BY_NAME } from '../tools/index.js';
import type { ToolAnswer, ToolCallExtra } from '../tool-framework/types.js';
import { projectComposites } from '../composites/project.js';
import { SessionResources, tapInbound } from '../resources/session-resources.js';
import { watchesOf } from '../resources/watch.js';
import { installPrompts } from './session-prompts.js';
import { onSkillsChanged } from '../skills/watch.js';

export { INSTRUCTIONS };

export interface EngineSession {
  context: SessionContext;
  /** a new SDK server answering for this session (connect it to one transport) */
  buildServer(): Server;
  replayVerdict(msg: unknown): ReplayVerdict;
  /** Run a tool in-process (the dashboard's form); `record` puts it in the call feed. */
  call(name: string, args: Record<string, unknown>, record?: boolean): Promise<CallToolResult>;
  /** its resources and the subscriptions it holds */
  resources: SessionResources;
  /** `transport`, with the session seeing its inbound messages first (2026-era listens name the URIs to watch) */
  tap<T extends Transport>(transport: T): T;
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

type CallParams = { name: string; arguments?: Record<string, unknown>; _meta?: { progressToken?: string | number } };

export function createEngineSession(
  state: DaemonState,
  config: SessionConfig,
  sessionId: string,
  opts: EngineSessionOptions = {},
): EngineSession {
  return new McpSession(state, config, sessionId, opts);
}

/**
 * The session itself: one role per method. `runTool` is the one path of a tool call,
 * `recordedCall` puts it in the call feed, `buildServer` makes an SDK server that answers with
 * them, `close` ends it all.
 */
/** Every answer names the session's view. */
function viewedAs(view: SessionConfig['view'], answer: ToolAnswer): ToolAnswer {
  return { ...answer, json: { ...answer.json, view } };
}

class McpSession implements EngineSession {
  readonly context: SessionContext;
  private readonly eager?: EagerTools;
  private readonly registration: SessionInfo;
  private readonly servers = new Set<Server>();
  readonly resources: SessionResources;
  private closed = false;
  private readonly unlistenSkills: () => void;

  constructor(
    private readonly state: DaemonState,
    private readonly config: SessionConfig,
    private readonly sessionId: string,
    private readonly opts: EngineSessionOptions,
  ) {
    const composites = new CompositeRegistry(
      opts.composites ?? [],
      projectComposites(config, (l) => state.log(l)),
    );
    // Not loaded here: a session that starts runs no project code. The first tool that needs the
    // composites loads them; until then a replay verdict treats an unknown name as unsafe.
    this.context = new SessionContext(state, config, sessionId, composites, opts.observer === true);
    this.eager = config.eager ? new EagerTools(this.context) : undefined;
    this.registration = {
      id: sessionId,
      cwd: config.cwd,
      pid: opts.pid,
      startedAt: new Date().toISOString(),
      view: config.view,
    };
    if (!opts.observer) state.addSession(this.registration);
    this.eager?.onChange(() => {
      for (const server of this.servers) void server.sendToolListChanged().catch(() => undefined);
    });
    // A skill kept, removed or edited by hand is a prompt more, less or changed, and with --eager a tool.
    this.unlistenSkills = onSkillsChanged(() => {
      for (const server of this.servers) void server.sendPromptListChanged().catch(() => undefined);
      void this.eager?.refresh();
    });
    this.resources = new SessionResources({
      ctx: this.context,
      watches: watchesOf(state),
      servers: () => this.servers,
      explain: (e) => explainExit(state.launcher, e),
      onInstancesChanged: (l) => state.onInstancesChanged(l),
    });
  }

  /** One tool call, whichever server or era it came through (or the dashboard's form). */
  private async runTool(name: string, rawArgs: unknown, toolExtra: ToolCallExtra): Promise<CallToolResult> {
    const { config, opts, context, eager } = this;
    try {
      if (opts.configError) {
        throw usageError(
          `This bridge was started with bad arguments (${opts.configError.replace(/^BridgeUsageError: /, '')}). ` +
            "Fix the game-bridge-mcp arguments in the MCP client's server configuration and restart it.",
        );
      }
      const def = TOOLS_BY_NAME.get(name);
      if (def) {
        return okResult(
          viewedAs(config.view, await def.run(def.parse(rawArgs), context, toolExtra)),
          config.maxAnswerChars,
        );
      }
      if (eager) {
        const out = await eager.call(name, (rawArgs ?? {}) as Record<string, unknown>, toolExtra);
        if (out) return okResult(viewedAs(config.view, out), config.maxAnswerChars);
      }
      throw usageError(
        `There is no MCP tool '${name}'. The tools are: ${TOOLS.map((t) => t.name).join(', ')}. ` +
          `A game's own tools are called with call_tool {port, name: '${name}', arguments}.`,
      );
    } catch (e) {
      const args = (rawArgs && typeof rawArgs === 'object' ? rawArgs : {}) as Record<string, unknown>;
      const explained = context.withFallbackPort(await explainExit(this.state.launcher, e), args);
      const result = errorResult(explained, config.maxAnswerChars, (l) => this.state.log(l));
      return { ...result, structuredContent: { ...(result.structuredContent as object), view: config.view } };
    }
  }

  /** Run a call and put it in the daemon's call feed (the dashboard shows it as it lands). */
  private async recordedCall(name: string, rawArgs: unknown, toolExtra: ToolCallExtra): Promise<CallToolResult> {
    const at = Date.now();
    const t0 = performance.now();
    const result = await this.runTool(name, rawArgs, toolExtra);
    const args = (rawArgs && typeof rawArgs === 'object' ? rawArgs : {}) as Record<string, unknown>;
    const first = result.content[0];
    this.state.feed.record({
      at,
      session: this.sessionId,
      client: this.opts.observer ? 'dashboard' : this.registration.client?.name,
      tool: name,
      args,
      port: portOf(name, args, this.context),
      ms: performance.now() - t0,
      isError: result.isError === true,
      text: first?.type === 'text' ? first.text : '',
      images: result.content.filter((c) => c.type === 'image').length,
    });
    return result;
  }

  /** A new SDK server answering for this session (connect it to one transport). */
  buildServer(): Server {
    const server = new Server(SERVER_INFO, { capabilities: SERVER_CAPABILITIES, instructions: INSTRUCTIONS });
    server.setRequestHandler('tools/list', async () => {
      const tools = TOOLS.map((t) => t.advertised);
      if (this.eager) tools.push(...(await this.eager.list()));
      return { tools };
    });
    server.setRequestHandler('tools/call', async (req, ctx) => {
      const params = req.params as CallParams;
      return this.recordedCall(params.name, params.arguments, {
        signal: ctx.mcpReq.signal,
        progress: progressOf(params._meta?.progressToken, (note) => ctx.mcpReq.notify(note)),
      });
    });
    this.resources.install(server);
    installPrompts(server, this.context);
    // The client's name and version, for the dashboard's session list.
    server.oninitialized = () => {
      const v = server.getClientVersion();
      if (v) this.registration.client = { name: String(v.name), version: String(v.version) };
    };
    this.servers.add(server);
    const onclose = server.onclose;
    server.onclose = () => {
      this.servers.delete(server);
      onclose?.();
    };
    return server;
  }

  replayVerdict(msg: unknown): ReplayVerdict {
    return replayVerdict(msg, this.context, this.eager);
  }

  tap<T extends Transport>(transport: T): T {
    return tapInbound(transport, (msg) => this.resources.observe(msg));
  }

  call(name: string, args: Record<string, unknown>, record = true): Promise<CallToolResult> {
    const extra: ToolCallExtra = { signal: new AbortController().signal, progress: async () => undefined };
    return record ? this.recordedCall(name, args, extra) : this.runTool(name, args, extra);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.eager?.stop();
    this.unlistenSkills();
    this.resources.close();
    this.state.endSession(this.registration);
    await Promise.all([...this.servers].map((s) => s.close().catch(() => undefined)));
  }
}

/** notifications/progress for a request that carried a progressToken; a no-op for one that did not. */
function progressOf(
  token: string | number | undefined,
  notify: (note: { method: 'notifications/progress'; params: Record<string, unknown> }) => Promise<void>,
): ToolCallExtra['progress'] {
  return async (progress, total, message) => {
    if (token === undefined) return;
    const params = {
      progressToken: token,
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(message ? { message } : {}),
    };
    await notify({ method: 'notifications/progress', params }).catch(() => undefined);
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

// subscriptions/listen (2026) only opens a stream of change notifications: a new daemon may
// take it over as it is.
const SAFE_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'resources/list',
  'prompts/list',
  'server/discover',
  'subscriptions/listen',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/get',
]);

/** Read-only requests are safe to re-send after a daemon restart (docs/DECISIONS.md); anything that can change a game is not. */
export function replayVerdict(msg: unknown, ctx: SessionContext, eager?: EagerTools): ReplayVerdict {
  const m = msg as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (!m || typeof m.method !== 'string') return 'unsafe';
  if (SAFE_METHODS.has(m.method)) return 'safe';
  if (m.method !== 'tools/call') return 'unsafe';
  const name = typeof m.params?.name === 'string' ? m.params.name : '';
  const args = (m.params?.arguments && typeof m.params.arguments === 'object' ? m.params.arguments : {}) as Record<
    string,
    unknown
  >;
  const def = TOOLS_BY_NAME.get(name);
  if (def) return def.replay(args, ctx);
  return eager?.verdict(name) ?? 'unsafe';
}
