/**
 * The stdio proxy's start path as one module: `npm run build` bundles this file with `ws` into
 * dist/proxy/bundle.mjs, which the bin loads instead of ~20 modules and ws's CommonJS files: one file to read and
 * parse, so every client's proxy starts sooner and holds less memory.
 */
export { prestartDaemon } from './spawn.js';
export { runProxy } from './run.js';
