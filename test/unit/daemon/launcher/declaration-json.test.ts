/** A gamebridge.json that is not JSON is named with the line and column where it broke. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDeclaration } from '../../../../daemon/launcher/declaration.js';

const dir = mkdtempSync(join(tmpdir(), 'gb-decl-json-'));

test('a syntax error is reported by line and column, not byte offset', () => {
  const file = join(dir, 'gamebridge.json');
  writeFileSync(file, '{\n  "name": "x",\n  "launch": { "command": "node g.mjs {port}" ,, }\n}\n');
  expect(() => readDeclaration(file)).toThrow(`${file} is not valid JSON (line 3, column 47)`);
});

test('a file cut short is reported at its end', () => {
  const file = join(dir, 'short.json');
  writeFileSync(file, '{\n  "launch": ');
  expect(() => readDeclaration(file)).toThrow(`${file} is not valid JSON (line 2, column 13)`);
});
