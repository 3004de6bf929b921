/**
 * The `webmcp` toolset: the tools a page this daemon opened registers through WebMCP
 * (web/page-tools.ts reads and calls them), shown as one more toolset of its game, with their own
 * JSON Schema. call_tool checks a call's arguments against that schema, calls the page's tool,
 * and answers its result with the state after it, as every game tool answers. A tool of the
 * game's own manifest or the bridge toolset keeps its name: a page tool of that name is left
 * out (a kit page exports its player tools under their own names: they are already listed).
 */
import { commandFailed, usageError } from '../../shared/errors.js';
import type { GameTool, Manifest, ToolArg, Toolset } from '../game/manifest.js';
import { BRIDGE_TOOLSET, findTool } from '../game/manifest.js';
import { summarise } from '../sync/summary.js';
import { checkArguments, z } from '../tool-framework/define.js';
import type { ToolContext } from '../tool-framework/context.js';
import type { ToolAnswer, ToolCallExtra } from '../tool-framework/types.js';
import { inPlayerView, playerState } from '../tool-framework/view.js';
import { PageToolFailed, type PageTool } from '../web/page-tools.js';
import { patternMiss, withoutPatterns } from './page-schema.js';

export const WEBMCP_TOOLSET = 'webmcp';

const DESCRIPTION =
  'Tools the page registers itself through WebMCP (document.modelContext), with their own arguments; called in the page, answered with the state after.';

/** One merged view per (manifest, page list) pair: the same reads give the same answer. */
const views = new WeakMap<Manifest, { tools: PageTool[]; view: Manifest }>();

/** A game's manifest with its page's WebMCP tools as the toolset `webmcp`, before the bridge toolset. */
export function withPageTools(m: Manifest, tools: PageTool[]): Manifest {
  if (!tools.length) return m;
  const hit = views.get(m);
  if (hit?.tools === tools) return hit.view;
  const rows = tools.filter((t) => !findTool(m, t.name)).map(pageToolRow);
  if (!rows.length) return m;
  const toolset: Toolset = { name: WEBMCP_TOOLSET, description: DESCRIPTION, tools: rows };
  const at = m.toolsets.findIndex((t) => t.name === BRIDGE_TOOLSET);
  const toolsets = at < 0 ? [...m.toolsets, toolset] : [...m.toolsets.slice(0, at), toolset, ...m.toolsets.slice(at)];
  const view = { ...m, toolsets };
  views.set(m, { tools, view });
  return view;
}

/** A page's tool as a manifest row: its own schema, its top-level properties as the rows an error names. */
function pageToolRow(t: PageTool): GameTool {
  const props = (t.inputSchema.properties ?? {}) as Record<string, { type?: unknown; description?: unknown }>;
  const required = new Set(Array.isArray(t.inputSchema.required) ? t.inputSchema.required.map(String) : []);
  const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'];
  const args: ToolArg[] = Object.entries(props).map(([name, p]) => ({
    name,
    type: (typeof p?.type === 'string' && TYPES.includes(p.type) ? p.type : 'any') as ToolArg['type'],
    required: required.has(name),
    description: typeof p?.description === 'string' ? p.description : '',
  }));
  return {
    name: t.name,
    description: t.description,
    args,
    readOnly: t.readOnly,
    toolset: WEBMCP_TOOLSET,
    // what a page offers any agent in its browser is what a player may do
    player: true,
    inputSchema: t.inputSchema,
    ...(t.untrustedContent ? { untrustedContent: true as const } : {}),
  };
}

const schemas = new WeakMap<GameTool, z.ZodObject>();

/**
 * The page's schema as zod reads it, its patterns left out (page-schema.ts checks them); a
 * schema zod cannot read checks only that the arguments are an object.
 */
function schemaOf(tool: GameTool): z.ZodObject {
  let s = schemas.get(tool);
  if (!s) {
    let read: z.ZodType;
    try {
      read = z.fromJSONSchema(withoutPatterns(tool.inputSchema) as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      read = z.record(z.string(), z.unknown());
    }
    // checkArguments has made sure the arguments are an object; it asks the schema only to parse them
    s = read as unknown as z.ZodObject;
    schemas.set(tool, s);
  }
  return s;
}

/** Calls a page's WebMCP tool on the game on `port`: arguments checked, its result and the state after. */
export async function callPageTool(
  ctx: ToolContext,
  port: number,
  tool: GameTool,
  args: Record<string, unknown>,
  extra: ToolCallExtra,
): Promise<ToolAnswer> {
  const web = ctx.launcher.webGame(port);
  if (!web)
    throw usageError(
      `call_tool '${tool.name}': the page that offered it is gone from port ${port}. Call list_toolsets {port: ${port}} again.`,
    );
  const input = checkArguments(tool.name, schemaOf(tool), tool.args, args);
  const miss = patternMiss(tool.inputSchema, input, tool.name);
  if (miss)
    throw usageError(
      `${tool.name}: argument '${miss.path}' does not match the page's pattern ${miss.pattern}. Call describe_toolset {port: ${port}, toolset: '${WEBMCP_TOOLSET}'} for the tool's schema.`,
    );
  let result;
  try {
    result = await web.browser.tools.call(tool.name, input, ctx.config.timeoutMs, extra.signal);
  } catch (e) {
    if (extra.signal?.aborted) throw e;
    const reason =
      e instanceof PageToolFailed ? e.message : (e as Error).message.replace(/^webMCP\.callTool: /, '').split('\n')[0];
    throw commandFailed({ port, cmd: tool.name, commandId: 0, reason, events: [] });
  }
  const state = await ctx.client(port).state(extra.signal);
  const after = summarise(inPlayerView(ctx) ? playerState(state) : state);
  return {
    json: {
      port,
      tool: tool.name,
      via: WEBMCP_TOOLSET,
      result: result.text,
      ...(result.structured !== undefined ? { structuredContent: result.structured } : {}),
      ...(result.refused !== undefined ? { structuredContentRefused: result.refused } : {}),
      ...(tool.untrustedContent ? { untrustedContent: true } : {}),
      ...(after.frame !== undefined ? { frame: after.frame } : {}),
      ...(after.screen !== undefined ? { screen: after.screen } : {}),
      ...(!inPlayerView(ctx) && after.game !== undefined ? { game: after.game } : {}),
      ...(inPlayerView(ctx) && state.player !== undefined ? { player: state.player } : {}),
      events: after.events,
    },
  };
}
