/**
 * The daemon as its own program: what the proxy auto-starts. `npm run build` bundles this file
 * (and everything it imports) into dist/daemon/bundle.mjs, because a cold daemon spends most of
 * its start-up resolving and reading a few hundred small module files (docs/PERFORMANCE.md).
 */
import { runDaemon } from './main.js';

await runDaemon();
