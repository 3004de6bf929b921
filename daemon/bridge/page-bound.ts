/**
 * No call on a page this daemon opened waits without end. A page stuck in its own code (a loop
 * that never ends on its main thread) answers nothing the browser asks of it: no evaluation, no
 * key, no frame. While a bridge tool runs on such a page, the page is asked for its frame about
 * once a second; when it has answered nothing for a while, the call ends with an error saying
 * the page stopped drawing frames, its last frame and how long ago, what the call held is let
 * go, and the game's log says so. A client's cancel ends the wait too. The work left behind
 * settles when the page answers again or its renderer goes (a restart ends it).
 */
import { BridgeError, usageError } from '../../shared/errors.js';
import type { WebGame } from '../launcher/web-game.js';
import { appendLogLine } from '../launcher/logfile.js';
import { clockFrame } from '../web/page-clock.js';
import type { ToolContext } from '../tool-framework/context.js';
import type { ToolAnswer, ToolCallExtra } from '../tool-framework/types.js';

/** How often a running call asks its page for its frame. */
const PROBE_EVERY_MS = 1000;
/** A page that has answered nothing for this long (or half the call's timeout, if shorter) is stuck. */
const STUCK_AFTER_MS = 3000;

/** What the daemon last heard from a page: its frame (null: a page on its kit's clock) and when. */
interface Seen {
  frame: number | null;
  at: number;
  /** the question in flight, so a stuck page is asked once, not once a second */
  asking?: Promise<void>;
}
const seen = new WeakMap<WebGame, Seen>();

/** Asks the page for its frame, once at a time; resolves when it answered, or after `ms` either way. */
function probe(web: WebGame, ms: number): Promise<void> {
  let s = seen.get(web);
  if (!s) seen.set(web, (s = { frame: null, at: 0 }));
  const entry = s;
  entry.asking ??= clockFrame(web.browser.page)
    .then(
      (frame) => {
        entry.frame = frame;
        entry.at = Date.now();
      },
      () => undefined,
    )
    .finally(() => (entry.asking = undefined));
  return Promise.race([entry.asking, new Promise<void>((r) => setTimeout(r, ms).unref())]);
}

/** `run` on the game on `port`, bounded as the module says when a page of ours shows the game. */
export async function boundedOnPage(
  ctx: ToolContext,
  port: number,
  tool: string,
  extra: ToolCallExtra,
  run: () => Promise<ToolAnswer>,
): Promise<ToolAnswer> {
  const web = ctx.launcher.webGame(port);
  if (!web) return run();
  const heldBefore = new Set(heldBy(ctx, web));
  const started = Date.now();
  await probe(web, 200);
  const work = run();
  const stuckAfter = Math.min(STUCK_AFTER_MS, ctx.config.timeoutMs / 2);
  let ended: 'cancelled' | 'stuck' | undefined;
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const watch = new Promise<void>((resolve) => {
    onAbort = () => {
      ended = 'cancelled';
      resolve();
    };
    if (extra.signal?.aborted) onAbort();
    extra.signal?.addEventListener('abort', onAbort, { once: true });
    const tick = async () => {
      await probe(web, PROBE_EVERY_MS);
      const last = seen.get(web)!.at;
      if (Date.now() - Math.max(last, started) >= stuckAfter) {
        ended ??= 'stuck';
        return resolve();
      }
      if (!ended) timer = setTimeout(() => void tick(), PROBE_EVERY_MS);
    };
    timer = setTimeout(() => void tick(), PROBE_EVERY_MS);
  });
  try {
    await Promise.race([work, watch]);
  } finally {
    clearTimeout(timer);
    extra.signal?.removeEventListener('abort', onAbort);
  }
  if (!ended) return work;
  work.catch(() => undefined);
  const released = heldBy(ctx, web).filter((i) => !heldBefore.has(i));
  for (const input of released) void web.hands.release(ctx.sessionId, input).catch(() => undefined);
  const log = ctx.launcher.get(port)?.logFile;
  if (ended === 'stuck') throw stuckError(web, port, tool, ctx.config.timeoutMs, log);
  if (log)
    appendLogLine(
      log,
      `${tool} cancelled by its client after ${since(started)}; the page last answered ${lastAnswer(web)}`,
    );
  throw usageError(`${tool} on port ${port} was cancelled; what it held is released.`);
}

const since = (t: number) => `${((Date.now() - t) / 1000).toFixed(1)} s`;
const lastAnswer = (web: WebGame) => {
  const at = seen.get(web)?.at;
  return at ? `${since(at)} ago` : 'never';
};

/** The stuck page's error, also written to the game's log. */
function stuckError(web: WebGame, port: number, tool: string, timeoutMs: number, log?: string): BridgeError {
  const s = seen.get(web);
  const ago = lastAnswer(web);
  const last = s?.frame != null ? `its last frame was ${s.frame}, ${ago}` : `it last answered ${ago}`;
  const what = `the page stopped drawing frames: it is stuck in its own code (its main thread answers nothing); ${last}`;
  if (log) appendLogLine(log, `page stuck: ${what} (during ${tool})`);
  return new BridgeError(
    { kind: 'CommandTimeout', port, cmd: tool, timeoutMs, ...(s?.frame != null ? { frame: s.frame } : {}) },
    `${tool} on port ${port}: ${what}. What the call held is released. ` +
      `launch_instance {restart: ${port}} brings the page back (its renderer is ended); the game's log has the page's last lines.`,
  );
}

const heldBy = (ctx: ToolContext, web: WebGame) =>
  web.hands
    .held()
    .filter((h) => h.owner === ctx.sessionId)
    .map((h) => h.input);
