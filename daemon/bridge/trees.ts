/**
 * What the UI and world tools share: the game's trees read (or a clear failure when it publishes
 * none), a wait on a tree, and what the session's view lets it see.
 */
import { BridgeError, usageError } from '../../shared/errors.js';
import { sleep } from '../../shared/sleep.js';
import { ProcessWatch } from '../sync/command.js';
import { pollDelay } from '../sync/poll.js';
import { readUi, type UiSnapshot } from '../ui/tree.js';
import { readWorld, type WorldObject, type WorldSnapshot } from '../ui/world.js';
import { lacking } from './needs.js';
import { pageSnapshot } from './page-tree.js';
import { clockOf } from '../web/page-clock.js';
import type { ToolContext } from '../tool-framework/context.js';

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
  if (web) {
    // a page without the kit: the carrier's /ui would be this same tree again; its frame is its clock's
    const { page } = web.browser;
    if (web.record.kit === false)
      return pageSnapshot(
        port,
        page,
        Promise.resolve(null),
        clockOf(page).then((c) => c?.frame),
      );
    return pageSnapshot(
      port,
      page,
      client.tree(which, signal),
      client.health().then((h) => h.frame),
    );
  }
  const json = await client.tree(which, signal);
  if (json !== null) return which === 'ui' ? readUi(port, json) : readWorld(port, json);
  // a game that declares the tree but serves none fails as one that lacks it
  throw await lacking(ctx, port, which, which === 'ui' ? 'snapshot' : 'find_objects');
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
