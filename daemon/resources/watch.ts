/**
 * Watching a game's `state` or `ui` for subscribers (resources/subscribe, or a 2026-era
 * subscriptions/listen naming the URI). One watch per URI for the whole daemon, however many
 * sessions subscribe; it polls only while someone listens, at most every WATCH_INTERVAL_MS,
 * so a subscriber hears at most a few updates a second and none while nothing changed.
 *
 * What counts as a change: for `state`, the snapshot without its `frame` (which grows on every
 * tick even on an idle menu); for `ui`, its `revision` and `sessionEpoch` (a new `frameSequence`
 * is a newer look at the same content). A game that goes away, or comes back, is a change too:
 * the subscriber re-reads and meets the error (or the new game).
 */
import type { ToolContext } from '../tool-framework/context.js';
import { inPlayerView } from '../tool-framework/view.js';
import { readSeen } from './read.js';

/** Between two looks at a watched resource: at most 1000 / this many updates a second per subscriber. */
export const WATCH_INTERVAL_MS = 250;

type Listener = () => void;

interface Watch {
  key: string;
  listeners: Set<Listener>;
  look: () => Promise<string>;
  timer?: NodeJS.Timeout;
  last?: string;
}

function stateSignature(state: Record<string, unknown>): string {
  const { frame: _frame, ...rest } = state;
  return JSON.stringify(rest);
}

/** `byContent`: the tree's own revision also counts what the view hides, so its content decides. */
function uiSignature(tree: unknown, byContent: boolean): string {
  const t = (tree ?? {}) as Record<string, unknown>;
  if (typeof t.revision === 'number' && !byContent) return `${String(t.sessionEpoch ?? '')}|${t.revision}`;
  const { frameSequence: _seq, frame: _frame, revision: _rev, ...rest } = t;
  return JSON.stringify(rest);
}

/** The kind of failure, so a game that stays offline is not a change on every look. */
function failureSignature(e: unknown): string {
  return `error:${(e as { name?: string })?.name ?? 'Error'}`;
}

export class ResourceWatches {
  private watches = new Map<string, Watch>();

  /**
   * Call `onChange` whenever the resource changes as the session's view shows it (a player view
   * hears no change it cannot read), until the returned function is called.
   */
  watch(ctx: ToolContext, port: number, kind: 'state' | 'ui', onChange: Listener): () => void {
    const player = inPlayerView(ctx);
    const key = `${port}/${kind}/${player ? 'player' : 'debug'}`;
    let w = this.watches.get(key);
    if (!w) {
      const look =
        kind === 'ui'
          ? async () => uiSignature(await readSeen(ctx, port, 'ui'), player)
          : async () => stateSignature(await readSeen(ctx, port, 'state'));
      w = { key, listeners: new Set(), look };
      this.watches.set(key, w);
      this.schedule(w, 0);
    }
    // one entry per subscription, even when a session hands the same function twice
    const entry: Listener = () => onChange();
    w.listeners.add(entry);
    const watch = w;
    return () => {
      watch.listeners.delete(entry);
      if (watch.listeners.size === 0 && this.watches.get(key) === watch) {
        clearTimeout(watch.timer);
        this.watches.delete(key);
      }
    };
  }

  /** How many resources are being watched (for the tests and the bench). */
  get size(): number {
    return this.watches.size;
  }

  private schedule(w: Watch, delay: number): void {
    w.timer = setTimeout(() => void this.poll(w), delay);
    w.timer.unref();
  }

  private async poll(w: Watch): Promise<void> {
    let sig: string;
    try {
      sig = await w.look();
    } catch (e) {
      sig = failureSignature(e);
    }
    if (this.watches.get(w.key) !== w) return; // nobody listens any more
    const changed = w.last !== undefined && sig !== w.last;
    w.last = sig;
    if (changed) for (const l of [...w.listeners]) l();
    // counted from the end of this look, so two updates are never closer than the interval
    this.schedule(w, WATCH_INTERVAL_MS);
  }
}

const byOwner = new WeakMap<object, ResourceWatches>();

/** The watches of one daemon (keyed by its daemon-wide state object). */
export function watchesOf(owner: object): ResourceWatches {
  let w = byOwner.get(owner);
  if (!w) byOwner.set(owner, (w = new ResourceWatches()));
  return w;
}
