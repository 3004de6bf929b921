/**
 * What the UI and world tools share: their arguments read by zod, the game's trees read (or a
 * clear failure when it publishes none), a wait on a tree, how a tool of theirs is declared, and
 * what the session's view lets it see.
 */
import { BridgeError, commandRejected, usageError } from '../../shared/errors.js';
import { sleep } from '../../shared/sleep.js';
import { ProcessWatch } from '../sync/command.js';
import { pollDelay } from '../sync/poll.js';
import { defineTool, type ToolDeclaration, type z } from '../tools/define.js';
import type { BridgeCall, ToolAnswer } from '../tools/types.js';
import { readUi, type UiSnapshot } from '../ui/tree.js';
import { readWorld, type WorldObject, type WorldSnapshot } from '../ui/world.js';
import { pageSnapshot } from './page-tree.js';
import type { ToolContext } from '../tools/context.js';

const WHY = { ui: 'a UI tree', world: 'a world tree' };

/** The game's tree, or a clear failure when it publishes none. */
export async function readTree(ctx: ToolContext, port: number, which: 'ui', signal?: AbortSignal): Promise<UiSnapshot>;
export async function readTree(
  ctx: ToolContext,
  port: number,
  which: 'world',
  signal?: AbortSignal,
): Promise<WorldSnapshot>;
export async function readTree(
  ctx: ToolContext,
  port: number,
  which: 'ui' | 'world',
  signal?: AbortSignal,
): Promise<UiSnapshot | WorldSnapshot> {
  const client = ctx.client(port);
  // a page this daemon opened has a tree of its own, the kit's nodes merged into it (both asked at once)
  const web = which === 'ui' ? ctx.launcher.webGame(port) : undefined;
  if (web) return pageSnapshot(port, web.browser.page, client.tree(which, signal));
  const json = await client.tree(which, signal);
  if (json !== null) return which === 'ui' ? readUi(port, json) : readWorld(port, json);
  const h = await client.health().catch(() => ({ capabilities: [] as unknown }));
  const caps = Array.isArray(h.capabilities) ? h.capabilities.map(String) : [];
  throw commandRejected(
    which === 'ui' ? 'snapshot' : 'find_objects',
    port,
    `missing capability "${which}"`,
    [],
    `The game on port ${port} publishes no ${which.toUpperCase()} tree (capability "${which}", GET /${which}; it declares ${caps.length ? caps.map((c) => `"${c}"`).join(', ') : 'none'}). ` +
      `Read get_state or take a screenshot instead, or have the game publish ${WHY[which]} (docs/CONTRACT.md).`,
  );
}

export const isPlayer = (ctx: ToolContext) => ctx.config.view === 'player';
/** What a player view may see of the world: only what the game marks as seen by a player. */
export const seenBy = (ctx: ToolContext) => (o: WorldObject) => !isPlayer(ctx) || o.player === true;

/** What a wait reads each time: a tree, with the revision and the frame it was published at. */
interface Published {
  revision?: number;
  frameSequence?: number;
}

/** A wait on one of the game's trees (wait_for_node, wait_for_object). */
export interface TreeWait<S extends Published, R> {
  /** the tool, as a cancelled wait names it */
  tool: string;
  /** what is waited for, as the timeout's error names it (its path); default: the tool */
  what?: string;
  timeoutMs: number;
  /** one fresh read of the tree */
  read(): Promise<S>;
  /** what the wait found in this read, or undefined to read again */
  test(tree: S): R | undefined;
  /** the timeout's lastValue and message, from the latest read */
  timedOut(latest: S): { lastValue: string; message: string };
}

/**
 * Read the tree until the wait finds what it waits for, on the wait_for schedule. A game that
 * restarts meanwhile fails it (CallInterrupted), and so does the time running out
 * (CommandTimeout, with the frame of the latest read).
 */
export async function waitOnTree<S extends Published, R>(
  ctx: ToolContext,
  port: number,
  signal: AbortSignal | undefined,
  w: TreeWait<S, R>,
): Promise<{ found: R; elapsedMs: number }> {
  const started = Date.now();
  const what = w.what ?? w.tool;
  const watch = new ProcessWatch(port, what, ctx.generation(port));
  for (let attempt = 0; ; attempt++) {
    const tree = await w.read();
    watch.check(tree.frameSequence);
    const found = w.test(tree);
    if (found !== undefined) return { found, elapsedMs: Date.now() - started };
    const remaining = w.timeoutMs - (Date.now() - started);
    if (remaining <= 0) {
      const { lastValue, message } = w.timedOut(tree);
      throw new BridgeError(
        {
          kind: 'CommandTimeout',
          port,
          timeoutMs: w.timeoutMs,
          path: what,
          lastValue,
          ...(tree.frameSequence !== undefined ? { frame: tree.frameSequence } : {}),
        },
        message,
      );
    }
    if (signal?.aborted) throw usageError(`${w.tool} was cancelled.`);
    await sleep(Math.min(pollDelay(attempt + 2), remaining), signal);
  }
}

/** A UI or world tool's declaration: `run` answers for the game on `call.port`, without the call's base. */
export interface TreeToolDeclaration<S extends z.ZodObject> extends Omit<ToolDeclaration<S, BridgeCall>, 'handler'> {
  run(ctx: ToolContext, args: z.output<S>, call: BridgeCall): Promise<ToolAnswer>;
}

/**
 * How one family of tree tools is declared: what the family needs ends each description, and
 * each answer starts with the call's base, as every bridge tool's does.
 */
export function treeTools(needs: string) {
  return <S extends z.ZodObject>({ run, ...decl }: TreeToolDeclaration<S>) =>
    defineTool<S, BridgeCall>({
      ...decl,
      description: decl.description + needs,
      async handler(args, ctx, call) {
        const a = await run(ctx, args, call);
        return { ...a, json: { ...call.base, ...a.json } };
      },
    });
}
