/**
 * The built-in `bridge` toolset: the tools every conformant game gets through call_tool
 * (docs/CONTRACT.md), whatever engine it runs on. This list is the one place that knows them:
 * describe_toolset's rows, the replay verdict and the dispatch are all read from it.
 *
 * To add a bridge tool:
 *   1. Declare it with `defineTool` (tools/define.ts; the UI and world families through
 *      `treeTools`, trees.ts) in the file of its family (core.ts, input.ts, clock.ts, ui.ts,
 *      world.ts), or in a new family file: name, title, description, a zod `input`,
 *      its `effect` (readOnly decides whether a restarted daemon may re-send it), and a handler
 *      `(args, ctx, call: BridgeCall)`; `call.port` is its game, `call.base` starts its answer.
 *   2. Put it in its family's list (`CORE_TOOLS` …); a new family joins `BRIDGE_TOOLS` below
 *      with one line.
 *   3. Document its answer in docs/TOOLS.md (test/tools-doc.test.ts holds the two together).
 * Its arguments are checked against the zod schema before the handler runs, and the row
 * describe_toolset shows is derived from the same schema.
 */
import { usageError } from '../../shared/errors.js';
import {
  BRIDGE_TOOLSET,
  emptyManifest,
  mergeBridge,
  readManifest,
  type Manifest,
  type Toolset,
} from '../game/manifest.js';
import type { ToolContext } from '../tools/context.js';
import type { BridgeCall, ToolAnswer, ToolCallExtra, ToolDef } from '../tools/types.js';
import { CLOCK_TOOLS } from './clock.js';
import { CORE_TOOLS } from './core.js';
import { INPUT_TOOLS } from './input.js';
import { UI_TOOLS } from './ui.js';
import { WORLD_TOOLS } from './world.js';
import { TESTING_TOOLS } from './testing.js';

/** Every bridge tool, in the order describe_toolset lists them. */
export const BRIDGE_TOOLS: readonly ToolDef<BridgeCall>[] = [
  ...CORE_TOOLS,
  ...INPUT_TOOLS,
  ...CLOCK_TOOLS,
  ...UI_TOOLS,
  ...WORLD_TOOLS,
  ...TESTING_TOOLS,
];

export const BRIDGE_TOOL_NAMES: readonly string[] = BRIDGE_TOOLS.map((t) => t.name);

const BY_NAME = new Map(BRIDGE_TOOLS.map((t) => [t.name, t]));

const TOOLSET: Toolset = {
  name: BRIDGE_TOOLSET,
  description:
    'Contract-level tools that work on every game: read the state, wait for a condition, send any command by name, check health, take a screenshot; ' +
    'and, on games that declare the "input"/"clock" capabilities, hold inputs and control the clock (press, hold, release, pause, resume, step); ' +
    'and, on games that publish a UI or world tree ("ui"/"world") or a page this bridge opened, see what is on screen and act on it by reference (snapshot, click, set_value, wait_for_node, find_objects, wait_for_object); ' +
    'and keep what was found as a test (assert, save_test, run_test).',
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

/** What a bridge tool needs of its game beyond the contract: a capability, or GET /screenshot. */
const NEEDS: Record<string, 'input' | 'clock' | 'screenshot'> = {
  press: 'input',
  hold: 'input',
  release: 'input',
  pause: 'clock',
  resume: 'clock',
  step: 'clock',
  screenshot: 'screenshot',
};

/**
 * The bridge tools the game on `port` can serve: the contract's always, the input and clock
 * tools when it declares those capabilities (or, for inputs and screenshots, when it is a page
 * this daemon opened), screenshot when it answers GET /screenshot. Asked only on an error path.
 */
export async function servedBridgeTools(ctx: ToolContext, port: number): Promise<string[]> {
  const client = ctx.client(port);
  const page = ctx.launcher.webGame(port) !== undefined;
  const [caps, shots] = await Promise.all([
    client.health().then(
      (h) => (Array.isArray(h.capabilities) ? h.capabilities.map(String) : []),
      () => [] as string[],
    ),
    page
      ? true
      : client.screenshot().then(
          (png) => png !== null,
          () => false,
        ),
  ]);
  const has = { input: page || caps.includes('input'), clock: caps.includes('clock'), screenshot: shots };
  return BRIDGE_TOOL_NAMES.filter((name) => !NEEDS[name] || has[NEEDS[name]]);
}

/** Run the bridge tool `name` on the game on `port`, its arguments checked first. */
export async function runBridgeTool(
  ctx: ToolContext,
  port: number,
  name: string,
  args: Record<string, unknown>,
  extra: ToolCallExtra,
): Promise<ToolAnswer> {
  const tool = BY_NAME.get(name);
  if (!tool) throw usageError(`Unknown bridge tool '${name}'. The bridge toolset has ${BRIDGE_TOOL_NAMES.join(', ')}.`);
  return tool.run(tool.parse(args), ctx, { ...extra, port, base: { port, tool: name, via: 'bridge' } });
}
