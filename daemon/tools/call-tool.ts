/**
 * call_tool: the one door to a game's own tools (SPEC §5). Resolution order:
 * (1) composites (they shadow a game command of the same name), (2) the game's manifest
 * including the built-in bridge toolset (a miss drops the cache and refetches once),
 * (3) passthrough: anything else is sent as a raw command; if the game rejects it as
 * unknown, the error lists what it accepts.
 */
import { BridgeError, isBridgeError, usageError } from '../../shared/errors.js';
import type { ReplayVerdict } from '../../shared/frames.js';
import { fallbackManifest, findTool, BRIDGE_TOOLSET, type GameTool, type Manifest } from '../game/manifest.js';
import { runComposite } from '../composites/run.js';
import { servesGame } from '../composites/registry.js';
import { runBridgeTool } from './bridge-toolset.js';
import { syncAnswer } from './sync-answer.js';
import { portProperty } from './list-toolsets.js';
import { defineTool, type ToolAnswer, type ToolCallExtra } from './types.js';
import type { ToolContext } from './context.js';

/** Before any manifest is known, the bridge toolset (every game has it) still answers for its own tools. */
const BRIDGE_ONLY = fallbackManifest();

/** The call's `arguments`, which must be an object when given. */
function innerArgs(args: Record<string, unknown>): Record<string, unknown> {
  const inner = args.arguments;
  if (inner !== undefined && (inner === null || typeof inner !== 'object' || Array.isArray(inner))) {
    throw usageError("call_tool: 'arguments' must be an object, e.g. {\"x\": 3}.");
  }
  return { ...((inner as Record<string, unknown>) ?? {}) };
}

/** `port` inside `arguments` is a routing hint (SPEC §5), not a game argument, unless the tool declares one. */
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

export async function callGameTool(ctx: ToolContext, port: number, name: string, args: Record<string, unknown>, extra: ToolCallExtra, depth = 0): Promise<ToolAnswer> {
  if (depth > 8) throw usageError(`call_tool '${name}': composites nested more than 8 deep; a composite is probably calling itself.`);
  const client = ctx.client(port);
  let manifest: Manifest = await ctx.manifest(port);

  // (1) composites
  const composite = await ctx.composites.find(name, manifest.game.name);
  if (composite) {
    const json = await runComposite(composite, args, {
      port,
      client,
      timeoutMs: ctx.config.timeoutMs,
      onFrame: (frame) => ctx.noteFrame(port, frame),
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
  if (tool && tool.toolset === BRIDGE_TOOLSET) return runBridgeTool(ctx, port, tool.name, args, extra);
  if (tool) {
    const result = await syncAnswer(ctx, port, tool.name, args, extra);
    return { json: { port, tool: name, via: 'manifest', ...result } };
  }

  // (3) passthrough
  try {
    const result = await syncAnswer(ctx, port, name, args, extra);
    return { json: { port, tool: name, via: 'passthrough', ...result } };
  } catch (e) {
    if (isBridgeError(e) && e.kind === 'CommandRejected') {
      const fromGame = (e.data.known as string[] | undefined) ?? [];
      const fromManifest = manifest.toolsets.flatMap((t) => t.tools.map((x) => x.name));
      const composites = (await ctx.composites.all()).filter((c) => servesGame(c, manifest.game.name)).map((c) => c.name);
      const known = [...new Set([...fromGame, ...fromManifest, ...composites])];
      throw new BridgeError(
        'CommandRejected',
        `The game on port ${port} does not know '${name}': ${String(e.data.reason || 'rejected')}. It accepts: ${known.join(', ')}. ` +
          `Use describe_toolset {port: ${port}, toolset} for arguments.`,
        { ...e.data, known },
      );
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
  inputSchema: {
    type: 'object',
    properties: {
      port: portProperty,
      name: { type: 'string', description: "Tool name from describe_toolset, e.g. 'drop' or 'get_state' (or 'toolset.name' to pick one toolset's)." },
      arguments: { type: 'object', description: 'The tool\'s arguments, e.g. {"x": 3}.' },
    },
    required: ['name'],
  },
  readOnly: false,
  replay: callToolVerdict,
  async handler(args, ctx, extra) {
    const port = ctx.resolvePort(args);
    const name = String(args.name).trim();
    if (!name) throw usageError("call_tool needs a tool 'name'; list_toolsets and describe_toolset show them.");
    ctx.adoptIfDetached(port);
    return callGameTool(ctx, port, name, innerArgs(args), extra);
  },
});
