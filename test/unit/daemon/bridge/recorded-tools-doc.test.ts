/** docs/TESTS.md names every game-affecting bridge tool a saved test records as a `do` step. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BRIDGE_TOOLS } from '../../../../daemon/bridge/index.js';

test('docs/TESTS.md lists exactly the bridge tools save_test records as do steps', () => {
  const docs = readFileSync(join(process.cwd(), 'docs', 'TESTS.md'), 'utf8');
  const list = /game-affecting bridge\s+tool \(([^)]*)\)/.exec(docs);
  expect(list).not.toBeNull();
  const named = [...list![1].matchAll(/`bridge\.(\w+)`/g)].map((m) => m[1]).sort();
  expect(named).toEqual(
    BRIDGE_TOOLS.filter((t) => t.recorded === 'do')
      .map((t) => t.name)
      .sort(),
  );
});
