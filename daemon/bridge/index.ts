/**
 * The built-in `bridge` toolset: the tools every conformant game gets through call_tool
 * (docs/CONTRACT.md), whatever engine it runs on. This list is the one place that knows them:
 * describe_toolset's rows and call_tool's resolution (tools/game-tool.ts) are read from it.
 * How to add one: CONTRIBUTING.md, "Add a bridge tool" (each is one `bridgeTool` declaration,
 * declare.ts, in the file of its family, and one entry in that family's list).
 */
import {
  BRIDGE_TOOLSET,
  emptyManifest,
  mergeBridge,
  readManifest,
  type Manifest,
  type Toolset,
} from '../game/manifest.js';
import type { ToolContext } from '../toolkit/context.js';
import type { ToolAnswer, ToolCallExtra } from '../toolkit/types.js';
import type { BridgeCall, BridgeTool } from './declare.js';
import { meets, metNeeds } from './needs.js';
import { boundedOnPage } from './page-bound.js';
import { CLOCK_TOOLS } from './clock.js';
import { CORE_TOOLS } from './core.js';
import { INPUT_TOOLS } from './input.js';
import { POINTER_TOOLS } from './pointer.js';
import { UI_TOOLS } from './ui.js';
import { WORLD_TOOLS } from './world.js';
import { TESTING_TOOLS } from './testing.js';
import { MOMENT_TOOLS } from './rewind.js';
import { SKILL_TOOLS } from './skills.js';

/** Every bridge tool, in the order describe_toolset lists them. */
export const BRIDGE_TOOLS: readonly BridgeTool[] = [
  ...CORE_TOOLS,
  ...INPUT_TOOLS,
  ...POINTER_TOOLS,
  ...CLOCK_TOOLS,
  ...UI_TOOLS,
  ...WORLD_TOOLS,
  ...TESTING_TOOLS,
  ...MOMENT_TOOLS,
  ...SKILL_TOOLS,
];

export const BRIDGE_TOOL_NAMES: readonly string[] = BRIDGE_TOOLS.map((t) => t.name);

const BY_NAME = new Map(BRIDGE_TOOLS.map((t) => [t.name, t]));

/** A bridge tool by its name (call_tool's resolution). */
export const bridgeToolNamed = (name: string): BridgeTool | undefined => BY_NAME.get(name);

const TOOLSET: Toolset = {
  name: BRIDGE_TOOLSET,
  description:
    'Contract-level tools that work on every game: read the state, wait for a condition, send any command by name, check health, take a screenshot; ' +
    'and, on games that declare the "input"/"clock" capabilities, hold inputs and control the clock (press, hold, release, pause, resume, step); ' +
    'and, on games that declare "pointer"/"touch"/"axis"/"text" or a page this bridge opened, point, drag, touch, steer and type, alone or at frame offsets (pointer, wheel, tap, swipe, pinch, set_axis, type, input_sequence); ' +
    'and, on games that publish a UI or world tree ("ui"/"world") or a page this bridge opened, see what is on screen and act on it by reference (snapshot, click, set_value, wait_for_node, find_objects, wait_for_object); ' +
    'and keep what was found as a test (assert, save_test, run_test) or a skill (define_skill, skill_from_session, delete_skill).',
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
