/**
 * The Node flags the daemon runs with, in one place for the proxy that starts it and for the
 * build that makes its code cache: V8 takes cached code only from a process with the same flags
 * (a mismatch silently costs the cache, ~250 ms of start-up).
 *
 * A young generation of at most 1 MB (V8 grows it to 16 MB by default, and loading
 * playwright-core for a browser game grows it all the way): side by side, the daemon's RSS with
 * a browser game 166.9 → 148.4 MB, idle 78.4 → 73.6 MB, with 20 games 90.3 → 72.1 MB, calls/s
 * and latency unchanged, cold start ~8 ms slower (docs/PERFORMANCE.md "Eighth round").
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];
