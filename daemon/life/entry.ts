/**
 * The daemon as its own program, from the compiled module tree: what the proxy starts when the
 * bundle (dist/daemon/bundle.cjs, started by boot.js) is missing or older than the compile. The
 * bundle is the usual path: a cold daemon would otherwise spend most of its start-up resolving
 * and reading a few hundred small module files (docs/PERFORMANCE.md).
 */
import { runDaemon } from './main.js';

await runDaemon();
