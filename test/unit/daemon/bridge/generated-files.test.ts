/**
 * The files written from the bridge families (daemon/bridge/generated-files.ts) are what the
 * families say now: shared/bridge-names.ts, which the proxy's instructions read, and docs/TESTS.md's
 * list of recorded tools. A family changed without `npm run generate` fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED } from '../../../../daemon/bridge/generated-files.js';
import { BRIDGE_FAMILY_TOOLS } from '../../../../shared/bridge-names.js';
import { BRIDGE_TOOL_NAMES } from '../../../../daemon/bridge/index.js';

test.each(GENERATED.map((f) => [f.path, f]))('%s is what `npm run generate` writes now', (path, file) => {
  const current = readFileSync(join(process.cwd(), path), 'utf8');
  // the message a stale file gets says how to fix it
  expect({ path, fresh: file.render(current) === current, fix: 'npm run generate' }).toEqual({
    path,
    fresh: true,
    fix: 'npm run generate',
  });
});

test("shared/bridge-names.ts names every bridge tool once, in describe_toolset's order", () => {
  expect(Object.values(BRIDGE_FAMILY_TOOLS).flat()).toEqual(BRIDGE_TOOL_NAMES);
});
