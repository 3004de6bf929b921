/**
 * resources/read for the bridge's resources: each kind read the way its tool reads it, so a
 * game that is not there fails with the same error class and next step a tool call would give.
 */
import { screenshot } from '../bridge/families/core.js';
import { runBridgeTool } from '../bridge/index.js';
import { readTree } from '../bridge/trees.js';
import type { State } from '../game/client.js';
import { truncateAnswer } from '../tools/answer.js';
import { TOOLS_BY_NAME } from '../tools/index.js';
import type { ToolContext } from '../tool-framework/context.js';
import type { ToolCallExtra } from '../tool-framework/types.js';
import { inPlayerView, playerState } from '../tool-framework/view.js';
import { filterTree, type UiSnapshot } from '../ui/tree.js';
import { GAME_RESOURCES, parseUri, type GameResourceKind } from './uris.js';

export type ResourceContents =
  { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string };

const quietExtra = (signal?: AbortSignal): ToolCallExtra => ({
  signal: signal ?? new AbortController().signal,
  progress: async () => undefined,
});

async function runTool(ctx: ToolContext, name: string, args: Record<string, unknown>, extra: ToolCallExtra) {
  const def = TOOLS_BY_NAME.get(name)!;
  return (await def.run(def.parse(args), ctx, extra)).json;
}

/** Read one resource; a failure is thrown as the tools throw it (a BridgeError). */
export async function readResource(ctx: ToolContext, uri: string, signal?: AbortSignal): Promise<ResourceContents> {
  const target = parseUri(uri);
  const extra = quietExtra(signal);
  const json = (value: unknown, limit = ctx.config.maxAnswerChars) => {
    const body =
      value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
    return { uri, mimeType: 'application/json', text: truncateAnswer(body, limit).text };
  };
  if (target.kind === 'instances') return json(await runTool(ctx, 'list_instances', {}, extra));
  const port = target.port;
  const kind: GameResourceKind = target.kind;
  switch (kind) {
    case 'state':
      return json(await readSeen(ctx, port, 'state', signal));
    case 'manifest': {
      await ctx.client(port).health();
      // a whole manifest with its schemas is bigger than a state answer, and is read once
      return json(await runManifest(ctx, port, extra), ctx.config.maxAnswerChars * 4);
    }
    case 'log': {
      const tail = await runTool(ctx, 'instance_log', { port }, extra);
      const lines = Array.isArray(tail.lines) ? tail.lines.map(String) : [];
      const head = [`# ${String(tail.logFile ?? '')}${tail.running === false ? ' (not running)' : ''}`];
      return { uri, mimeType: GAME_RESOURCES.log.mimeType, text: [...head, ...lines].join('\n') };
    }
    case 'ui':
      return json(await readSeen(ctx, port, 'ui', signal));
    case 'screenshot': {
      const shot = await runBridgeTool(ctx, screenshot, port, {}, extra);
      const img = shot.images![0];
      return { uri, mimeType: img.mimeType, blob: img.data };
    }
  }
}

/**
 * A game's state or UI tree as the session's view shows it: a player view gets what get_state
 * and snapshot give it (the player's part of the state, no hidden node), a debug view all of it.
 * The UI tree is read as snapshot reads it (a browser game's page tree with its kit's nodes).
 */
export async function readSeen(ctx: ToolContext, port: number, kind: 'state', signal?: AbortSignal): Promise<State>;
export async function readSeen(ctx: ToolContext, port: number, kind: 'ui', signal?: AbortSignal): Promise<UiSnapshot>;
export async function readSeen(
  ctx: ToolContext,
  port: number,
  kind: 'state' | 'ui',
  signal?: AbortSignal,
): Promise<State | UiSnapshot> {
  if (kind === 'state') {
    const state = await ctx.client(port).state(signal);
    return inPlayerView(ctx) ? playerState(state) : state;
  }
  const ui = await readTree(ctx, port, 'ui', signal);
  return inPlayerView(ctx) ? { ...ui, nodes: filterTree(ui.nodes, { includeHidden: false }) } : ui;
}

/** Every toolset of the game with its tools' arguments: list_toolsets, then describe_toolset for each. */
async function runManifest(ctx: ToolContext, port: number, extra: ToolCallExtra) {
  const listed = await runTool(ctx, 'list_toolsets', { port }, extra);
  const toolsets = [];
  for (const ts of (listed.toolsets as Array<{ name: string }>) ?? [])
    toolsets.push(await runTool(ctx, 'describe_toolset', { port, toolset: ts.name }, extra));
  return { ...listed, toolsets: toolsets.map(({ port: _p, ...rest }) => rest), next: undefined };
}
