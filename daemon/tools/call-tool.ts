/**
 * call_tool: the one door to a game's own tools (README.md, "The MCP tools"). Resolution order:
 * (1) composites (they shadow a game command of the same name), (2) the game's manifest
 * including the built-in bridge toolset (a miss drops the cache and refetches once; a listed
 * tool's arguments are checked against it before anything is sent: game-args.ts),
 * (3) passthrough: anything else is sent as a raw command; if the game rejects it as
 * unknown, the error lists what it accepts.
 */
import { commandRejected, isBridgeError, usageError } from '../../shared/errors.js';
import type { ReplayVerdict } from '../../shared/frames.js';
import { findTool, BRIDGE_TOOLSET, type GameTool, type Manifest } from '../game/manifest.js';
import { BRIDGE_TOOL_NAMES, fallbackManifest, runBridgeTool, servedBridgeTools } from '../bridge/index.js';
import { runComposite } from '../composites/run.js';
import { checkGameToolArgs } from './game-args.js';
import { syncAnswer } from './sync-answer.js';
import { defineTool, portArg, z } from './define.js';
import type { ToolAnswer, ToolCallExtra } from './types.js';
import type { ToolContext } from './context.js';
import { checkPlayerCall } from './view.js';
import { recordCall } from './record-call.js';

/** How games say they have no such command ("unknown command 'x'" from every kit). */
const UNKNOWN = /\bunknown\b|\bno such\b|\bdoes not know\b|\bnot a (known )?command\b/i;

/** Before any manifest is known, the bridge toolset (every game has it) still answers for its own tools. */
const BRIDGE_ONLY = fallbackManifest();

/** `port` inside `arguments` only says which game (an agent puts it there too), unless the tool declares a `port` of its own. */
function withoutRoutingPort(args: Record<string, unknown>, tool?: GameTool): Record<string, unknown> {
  if (!('port' in args) || tool?.args.some((a) => a.name === 'port')) return args;
  const { port: _routing, ...rest } = args;
  return rest;
}

/** Replay verdict for call_tool: safe only when the tool is known to change nothing. */
export function callToolVerdict(args: Record<string, unknown>, ctx: ToolContext): ReplayVerdict {
  const name = typeof args.name === 'string' ? args.name : '';
  let port: number;
  try {
    port = ctx.resolvePort(args);
  } catch {
    return 'safe'; // it will fail validation before touching a game
  }
  const manifest = ctx.knownManifest(port);
  const composite = ctx.composites.findSync(name, manifest?.game.name);
  if (composite) return composite.readOnly ? 'safe' : 'unsafe';
  const tool = findTool(manifest ?? BRIDGE_ONLY, name);
  return tool?.readOnly ? 'safe' : 'unsafe';
}

export async function callGameTool(
  ctx: ToolContext,
  port: number,
  name: string,
  args: Record<string, unknown>,
  extra: ToolCallExtra,
  depth = 0,
): Promise<ToolAnswer> {
  if (depth > 8)
    throw usageError(
      `call_tool '${name}': composites nested more than 8 deep; a composite is probably calling itself.`,
    );
  // run_test launches its own game: the port's game (if any) has no say in it
  if (name === 'run_test' || name === 'bridge.run_test') return runBridgeTool(ctx, port, 'run_test', args, extra);
  const client = ctx.client(port);
  let manifest: Manifest = await ctx.manifest(port);

  // (1) composites
  const composite = await ctx.composites.find(name, manifest.game.name);
  if (composite) {
    checkPlayerCall(ctx, name, 'composite');
    const json = await runComposite(composite, args, {
      port,
      client,
      timeoutMs: ctx.config.timeoutMs,
      generation: ctx.generation(port),
      manifest: () => ctx.manifest(port),
      call: async (tool, a) => (await callGameTool(ctx, port, tool, a, extra, depth + 1)).json,
      signal: extra.signal,
    });
    return { json: { port, tool: name, via: 'composite', ...json } };
  }

  // (2) the manifest, refetched once on a miss (the game may have gained a command)
  let tool = findTool(manifest, name);
  if (!tool && manifest.source !== 'fallback') {
    ctx.cache.invalidate(port);
    manifest = await ctx.manifest(port);
    tool = findTool(manifest, name);
  }
  args = withoutRoutingPort(args, tool);
  checkPlayerCall(ctx, name, !tool ? 'passthrough' : tool.toolset === BRIDGE_TOOLSET ? 'bridge' : 'manifest', tool);
  if (tool && tool.toolset === BRIDGE_TOOLSET) return runBridgeTool(ctx, port, tool.name, args, extra);
  if (tool) {
    checkGameToolArgs(tool, args);
    const result = await syncAnswer(ctx, port, tool.name, args, extra);
    return { json: { port, tool: name, via: 'manifest', ...result } };
  }

  // (3) passthrough
  try {
    const result = await syncAnswer(ctx, port, name, args, extra);
    return { json: { port, tool: name, via: 'passthrough', ...result } };
  } catch (e) {
    if (isBridgeError(e) && e.data.kind === 'CommandRejected') {
      const { reason, known: fromGame } = e.data;
      const builtIn = new Set(BRIDGE_TOOL_NAMES);
      const fromManifest = manifest.toolsets.flatMap((t) => t.tools.map((x) => x.name)).filter((n) => !builtIn.has(n));
      const [bridge, composites] = await Promise.all([
        servedBridgeTools(ctx, port),
        ctx.composites.forGame(manifest.game.name).then((cs) => cs.map((c) => c.name)),
      ]);
      const known = [...new Set([...fromGame, ...fromManifest, ...bridge, ...composites])];
      // "does not know" only when the game says so; a command it knows but refused keeps its reason
      const unknown = UNKNOWN.test(reason) || (!reason && fromGame.length > 0 && !fromGame.includes(name));
      const text =
        (unknown
          ? `The game on port ${port} does not know '${name}': ${reason || 'rejected'}. It accepts: ${known.join(', ')}. ` +
            `Use describe_toolset {port: ${port}, toolset} for arguments.`
          : `The game on port ${port} refused '${name}': ${reason || 'no reason given'}. ` +
            `Fix the arguments as the game says and call it again ('${name}' is not in its manifest, so describe_toolset cannot show them).`) +
        (ctx.composites.problem() ? ` (${ctx.composites.problem()})` : '');
      throw commandRejected(e.data.cmd, port, reason, known, text);
    }
    throw e;
  }
}

export const callToolTool = defineTool({
  name: 'call_tool',
  title: 'Call a game tool',
  description:
    "Run one of a running game's tools by name and return the state after the game applied it (a game tool that list_toolsets/describe_toolset show, a bridge tool like get_state or wait_for, or any raw command name). " +
    'Game tools are reached only through this tool: a game tool missing from the MCP tool list still exists.',
  input: z.object({
    port: portArg,
    name: z
      .string()
      .describe(
        "Tool name from describe_toolset, e.g. 'drop' or 'get_state' (or 'toolset.name' to pick one toolset's).",
      ),
    arguments: z.record(z.string(), z.unknown()).optional().describe('The tool\'s arguments, e.g. {"x": 3}.'),
  }),
  // What a game tool does is the game's business: the verdict asks its manifest (callToolVerdict).
  effect: { readOnly: false, destructive: false, idempotent: false },
  replay: callToolVerdict,
  async handler(args, ctx, extra) {
    const port = ctx.resolvePort(args);
    const name = args.name.trim();
    if (!name) throw usageError("call_tool needs a tool 'name'; list_toolsets and describe_toolset show them.");
    ctx.adoptIfDetached(port);
    const callArgs = { ...(args.arguments ?? {}) };
    let answer: ToolAnswer;
    try {
      answer = await callGameTool(ctx, port, name, callArgs, extra);
    } catch (e) {
      recordCall(ctx, port, name, callArgs, undefined, e);
      throw e;
    }
    recordCall(ctx, port, name, callArgs, answer.json);
    return answer;
  },
});
