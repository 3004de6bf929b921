/**
 * Adaptive polling. A command is applied on the game's next tick, so the first polls come
 * fast (a 60 fps game confirms within about one frame) and later ones back off so a slow or
 * paused game is not flooded. Roughly two polls per 16.7 ms frame at first.
 */
export const POLL_SCHEDULE_MS = [2, 6, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8];
export const POLL_BACKOFF_FACTOR = 1.5;
export const POLL_MAX_MS = 100;

export function pollDelay(attempt: number): number {
  if (attempt < POLL_SCHEDULE_MS.length) return POLL_SCHEDULE_MS[attempt];
  const extra = attempt - POLL_SCHEDULE_MS.length + 1;
  return Math.min(POLL_MAX_MS, Math.round(8 * Math.pow(POLL_BACKOFF_FACTOR, extra)));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
