/**
 * call_tool: the one door to a game's own tools (docs/TOOLS.md, "Using the tools"). What a name is
 * (a bridge tool, a composite, a tool of the game's manifest, a page's WebMCP tool, or a raw
 * command passed through)
 * is decided by game-tool.ts, for the replay verdict and the dispatch alike; a manifest tool's
 * arguments are checked against the manifest before anything is sent (game-args.ts), and a
 * passed-through command the game does not know fails listing what it accepts.
 */
import { commandRejected, isBridgeError, usageError } from '../../shared/errors.js';
import type { ReplayVerdict } from '../../shared/frames.js';
import type { GameTool, Manifest } from '../game/manifest.js';
import { BRIDGE_TOOL_NAMES, runBridgeTool, servedBridgeTools } from '../bridge/index.js';
import { runComposite } from '../composites/run.js';
import { callPageTool } from '../bridge/webmcp-toolset.js';
import { gameSkills } from '../bridge/skill-check.js';
import { runSkill } from '../skills/run.js';
import { checkGameToolArgs } from '../tool-framework/game-args.js';
import { resolveGameTool, resolveOnGame } from './game-tool.js';
import { syncAnswer } from '../tool-framework/sync-answer.js';
import { defineTool, portArg, z } from '../tool-framework/define.js';
import { callToolAnswer } from '../../shared/answers/mcp.js';
import type { ToolAnswer, ToolCallExtra } from '../tool-framework/types.js';
import type { ToolContext } from '../tool-framework/context.js';
import { checkPlayerCall } from './player-calls.js';
import { recordCall } from './record-call.js';

/** How games say they have no such command ("unknown command 'x'" from every kit). */
const UNKNOWN = /\bunknown\b|\bno such\b|\bdoes not know\b|\bnot a (known )?command\b/i;

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
  // with the game not yet known, a skill for any game of the project's is counted (unsafe unless read-only)
  const skills = manifest ? gameSkills(ctx, port, manifest.game.name).skills : [];
  return resolveGameTool(name, manifest, composite, skills).readOnly ? 'safe' : 'unsafe';
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
      `call_tool '${name}': composites or skills nested more than 8 deep; one is probably calling itself.`,
    );
  const { ref, manifest } = await resolveOnGame(ctx, port, name);
  switch (ref.kind) {
    case 'composite': {
      checkPlayerCall(ctx, name, 'composite');
      const json = await runComposite(ref.composite, args, {
        port,
        client: ctx.client(port),
        timeoutMs: ctx.config.timeoutMs,
        generation: ctx.generation(port),
        manifest: () => ctx.manifest(port),
        call: async (tool, a) => (await callGameTool(ctx, port, tool, a, extra, depth + 1)).json,
        signal: extra.signal,
      });
      return { json: { port, tool: name, via: 'composite', ...json } };
    }
    case 'skill': {
      checkPlayerCall(ctx, name, 'skill');
      const json = await runSkill(ref.skill, args, {
        call: async (tool, a, signal) => (await callGameTool(ctx, port, tool, a, { ...extra, signal }, depth + 1)).json,
        state: (signal) => ctx.client(port).state(signal),
        signal: extra.signal,
      });
      return { json: { port, tool: name, via: 'skill', ...json } };
    }
    case 'bridge':
      // the player view bounds what a session does to the port's game; a portless tool (run_test) touches none
      if (ref.tool.onPort) checkPlayerCall(ctx, name, 'bridge', ref.tool);
      return runBridgeTool(ctx, ref.tool, port, withoutRoutingPort(args), {
        ...extra,
        call: async (tool, a, on = port) => (await callGameTool(ctx, on, tool, a, extra, depth + 1)).json,
      });
    case 'manifest': {
      args = withoutRoutingPort(args, ref.tool);
      checkPlayerCall(ctx, name, 'manifest', ref.tool);
      checkGameToolArgs(ref.tool, args);
      const result = await syncAnswer(ctx, port, ref.tool.name, args, extra);
      return { json: { port, tool: name, via: 'manifest', ...result } };
    }
    case 'webmcp':
      args = withoutRoutingPort(args, ref.tool);
      checkPlayerCall(ctx, name, 'manifest', ref.tool);
      return callPageTool(ctx, port, ref.tool, args, extra);
    case 'passthrough':
      args = withoutRoutingPort(args);
      checkPlayerCall(ctx, name, 'passthrough');
      return passThrough(ctx, port, name, args, extra, manifest!);
  }
}

/** Anything else is sent as a raw command; if the game rejects it as unknown, the error lists what it accepts. */
async function passThrough(
  ctx: ToolContext,
  port: number,
  name: string,
  args: Record<string, unknown>,
  extra: ToolCallExtra,
  manifest: Manifest,
): Promise<ToolAnswer> {
  try {
    const result = await syncAnswer(ctx, port, name, args, extra);
    return { json: { port, tool: name, via: 'passthrough', ...result } };
  } catch (e) {
    if (!isBridgeError(e) || e.data.kind !== 'CommandRejected') throw e;
    const { reason, known: fromGame } = e.data;
    const builtIn = new Set(BRIDGE_TOOL_NAMES);
    const fromManifest = manifest.toolsets.flatMap((t) => t.tools.map((x) => x.name)).filter((n) => !builtIn.has(n));
    const [bridge, composites] = await Promise.all([
      servedBridgeTools(ctx, port),
      ctx.composites.forGame(manifest.game.name).then((cs) => cs.map((c) => c.name)),
    ]);
    const skills = gameSkills(ctx, port, manifest.game.name).skills.map((s) => s.name);
    const known = [...new Set([...fromGame, ...fromManifest, ...bridge, ...composites, ...skills])];
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
}

export const callToolTool = defineTool({
  name: 'call_tool',
  output: callToolAnswer,
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
