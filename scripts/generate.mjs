/**
 * The files written from the code for readers that cannot import it (daemon/bridge/generated-files.ts):
 * shared/bridge-names.ts, the bridge's tool names the proxy's instructions use, and docs/TESTS.md's
 * list of the tools a saved test replays. `npm run docs:tools` runs it first.
 *
 *   npm run generate             rewrite them
 *   npm run generate -- --check  exit 1 and name the stale files, writing nothing
 *
 * Needs `npm run build` (it reads the built families).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { GENERATED } = await import(pathToFileURL(join(ROOT, 'dist/daemon/bridge/generated-files.js')).href);

const check = process.argv.includes('--check');
const stale = [];
for (const file of GENERATED) {
  const path = join(ROOT, file.path);
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // a file not written yet is stale
  }
  const next = file.render(current);
  if (next === current) continue;
  stale.push(file.path);
  if (!check) writeFileSync(path, next);
}
if (check && stale.length) {
  process.stderr.write(`Stale generated files: ${stale.join(', ')}. Run \`npm run generate\` and commit the result.\n`);
  process.exit(1);
}
process.stdout.write(stale.length ? `Rewrote ${stale.join(', ')}.\n` : 'The generated files are current.\n');
