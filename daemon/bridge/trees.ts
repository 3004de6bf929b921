/**
 * What the UI and world tools share: their arguments read by zod, the game's trees read (or a
 * clear failure when it publishes none), and what the session's view lets it see.
 */
import { commandRejected } from '../../shared/errors.js';
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
