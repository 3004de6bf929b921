/**
 * The stdio proxy's start path as one module: `npm run build` bundles this file with `ws` into
 * dist/proxy/bundle.mjs, which the bin loads instead of ~20 modules and ws's CommonJS files: an
 * idle proxy holds ~4 MB less and starts ~13% sooner (docs/PERFORMANCE.md, fourth round).
 */
export { prestartDaemon } from './spawn.js';
export { runProxy } from './run.js';
