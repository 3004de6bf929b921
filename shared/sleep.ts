/**
 * Wait `ms`, or less when `signal` aborts: it then resolves early rather than rejecting, so a
 * poll loop checks its own abort condition and says why it stopped in its own words.
 */
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
