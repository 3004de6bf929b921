/** docs/CLI.md is held to the CLI: its list of commands is the one the parser knows. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../helpers/procs.js';
import { COMMANDS } from '../../../cli/cli.js';

test("docs/CLI.md's list of commands names every subcommand and no other", () => {
  const doc = readFileSync(join(ROOT, 'docs', 'CLI.md'), 'utf8');
  const block = /## The commands\n+```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  const listed = [...block.matchAll(/^game-bridge-mcp ([a-z][\w-]*)/gm)].map((m) => m[1]);
  expect([...listed].sort()).toEqual([...COMMANDS].sort());
});
