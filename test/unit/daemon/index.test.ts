/**
 * The library's surface (daemon/index.ts) is the one docs/LIBRARY.md lists under "Everything
 * exported": a name added to one and not the other fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = process.cwd();

/** The names daemon/index.ts exports, values and types alike (`a as b` exports b). */
function exported(): string[] {
  const source = readFileSync(join(ROOT, 'daemon', 'index.ts'), 'utf8');
  return [...source.matchAll(/^export (?:type )?\{([^}]*)\} from/gm)]
    .flatMap((m) => m[1].split(','))
    .map((n) =>
      n
        .trim()
        .split(/\s+as\s+/)
        .pop()!,
    )
    .filter(Boolean)
    .sort();
}

/** The names in the first column of docs/LIBRARY.md's "Everything exported" table. */
function documented(): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'LIBRARY.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Everything exported'));
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...l.split('|')[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]))
    .sort();
}

test("docs/LIBRARY.md's table lists exactly the library's exports", () => {
  expect(exported().length).toBeGreaterThan(20);
  expect(documented()).toEqual(exported());
});
