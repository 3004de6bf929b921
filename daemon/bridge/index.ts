/**
 * The built-in `bridge` toolset: the tools every conformant game gets through call_tool
 * (docs/CONTRACT.md), whatever engine it runs on. This list is the one place that knows them:
 * describe_toolset's rows and call_tool's resolution (tools/game-tool.ts) are read from it.
 * How to add one: CONTRIBUTING.md, "Add a bridge tool" (each is one `bridgeTool` declaration,
 * declare.ts, in its family's file under families/, and one entry in that family's `tools`).
 */
import {
  BRIDGE_TOOLSET,
  emptyManifest,
  mergeBridge,
  readManifest,
  type Manifest,
  type Toolset,
} from '../game/manifest.js';
import type { ToolContext } from '../tool-framework/context.js';
import type { ToolAnswer, ToolCallExtra } from '../tool-framework/types.js';
import type { BridgeCall, BridgeFamily, BridgeTool } from './declare.js';
import { meets, metNeeds } from './needs.js';
import { boundedOnPage } from './page-bound.js';
import { clockFamily } from './families/clock.js';
import { errorsFamily } from './families/errors.js';
import { framesFamily } from './families/frames.js';
import { coreFamily } from './families/core.js';
import { inputFamily } from './families/input.js';
import { pointerFamily } from './families/pointer.js';
import { rewindFamily } from './families/rewind.js';
import { savedTestsFamily } from './families/saved-tests.js';
import { skillsFamily } from './families/skills.js';
import { uiFamily } from './families/ui.js';
import { watchFamily } from './families/watch.js';
import { worldFamily } from './families/world.js';

/** The families, in the order describe_toolset lists them and the description names them. */
export const BRIDGE_FAMILIES: readonly BridgeFamily[] = [
  coreFamily,
  inputFamily,
  pointerFamily,
  clockFamily,
  watchFamily,
  uiFamily,
  worldFamily,
  savedTestsFamily,
  rewindFamily,
  errorsFamily,
  framesFamily,
  skillsFamily,
];

/** Every bridge tool, in the order describe_toolset lists them. */
export const BRIDGE_TOOLS: readonly BridgeTool[] = BRIDGE_FAMILIES.flatMap((f) => f.tools);

export const BRIDGE_TOOL_NAMES: readonly string[] = BRIDGE_TOOLS.map((t) => t.name);

const BY_NAME = new Map(BRIDGE_TOOLS.map((t) => [t.name, t]));

/** A bridge tool by its name (call_tool's resolution). */
export const bridgeToolNamed = (name: string): BridgeTool | undefined => BY_NAME.get(name);

const TOOLSET: Toolset = {
  name: BRIDGE_TOOLSET,
  description: BRIDGE_FAMILIES.map((f) => f.clause).join('; ') + '.',
  tools: BRIDGE_TOOLS.map((t) => ({
    name: t.name,
    description: t.advertised.description ?? '',
    args: t.args,
    readOnly: t.effect.readOnly,
    toolset: BRIDGE_TOOLSET,
  })),
};

/** The bridge toolset as a manifest lists it (a fresh copy: a caller may add to it). */
export function bridgeToolset(): Toolset {
  return { ...TOOLSET, tools: TOOLSET.tools.map((t) => ({ ...t, args: t.args.map((a) => ({ ...a })) })) };
}

/** One merged view per manifest the cache holds: the same game manifest gives the same answer. */
const merged = new WeakMap<Manifest, Manifest>();

/** A game's manifest as an agent is shown it: its own toolsets, then the bridge toolset. */
export function withBridge(m: Manifest): Manifest {
  let view = merged.get(m);
  if (!view) merged.set(m, (view = mergeBridge(m, TOOLSET)));
  return view;
}

/** Any JSON a game served (or a file held) → the manifest an agent is shown. Never throws. */
export function normaliseManifest(raw: unknown, source: 'game' | 'file' = 'game'): Manifest {
  return withBridge(readManifest(raw, source));
}

/** What an agent is shown of a game that publishes no manifest: the bridge toolset only. */
export function fallbackManifest(notice?: string): Manifest {
  return withBridge(emptyManifest(notice));
}

/**
 * The bridge tools the game on `port` can serve: each whose need (declare.ts) the game meets,
 * those that need nothing always. Asked only on an error path.
 */
export async function servedBridgeTools(ctx: ToolContext, port: number): Promise<string[]> {
  const has = await metNeeds(ctx, port);
  return BRIDGE_TOOLS.filter((t) => !t.needs || meets(has, t.needs)).map((t) => t.name);
}

/** Run a bridge tool on the game on `port`, its arguments checked first. */
export function runBridgeTool(
  ctx: ToolContext,
  tool: BridgeTool,
  port: number,
  args: Record<string, unknown>,
  extra: ToolCallExtra & Pick<BridgeCall, 'call'>,
): Promise<ToolAnswer> {
  const parsed = tool.parse(args);
  return boundedOnPage(ctx, port, tool.name, extra, () => tool.run(parsed, ctx, { ...extra, port }));
}
