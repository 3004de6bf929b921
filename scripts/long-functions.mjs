/**
 * The functions longer than a limit, read with the TypeScript compiler API. A function's length
 * is its own lines: a function declared inside it is counted apart, as a function of its own,
 * and its lines are taken off its parent's. Blank lines count; a function is as long as a
 * reader scrolls.
 *
 *   node scripts/long-functions.mjs            list those over 60 lines, longest first
 *   node scripts/long-functions.mjs --over 100 another limit
 *
 * It reads the TypeScript of the folders tsconfig.json compiles and of the dashboard.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['proxy', 'cli', 'daemon', 'shared', 'kits', 'examples', 'bench', 'dashboard'];
const at = process.argv.indexOf('--over');
const LIMIT = at > 0 ? Number(process.argv[at + 1]) : 60;

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

const isFunction = (n) =>
  ts.isFunctionDeclaration(n) ||
  ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n);

/** What a reader calls the function: its declared name, or the name it is assigned to. */
function nameOf(n) {
  if (n.name && ts.isIdentifier(n.name)) return n.name.text;
  if (n.name) return n.name.getText();
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  const p = n.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name)
    return p.name.getText();
  if (p && ts.isCallExpression(p)) return `(argument of ${p.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

const found = [];
for (const folder of FOLDERS) {
  for (const file of sources(join(ROOT, folder))) {
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
    const span = (n) => lineOf(n.getEnd()) - lineOf(n.getStart(sf)) + 1;
    /** Walks the tree; returns the lines of the outermost functions under `node` (for its parent to take off). */
    const visit = (node) => {
      let nested = 0;
      ts.forEachChild(node, (child) => {
        if (isFunction(child) && child.body) {
          const inner = visit(child);
          const own = span(child) - inner;
          found.push({ file: relative(ROOT, file), line: lineOf(child.getStart(sf)) + 1, name: nameOf(child), own });
          nested += span(child);
        } else nested += visit(child);
      });
      return nested;
    };
    visit(sf);
  }
}

const long = found.filter((f) => f.own > LIMIT).sort((a, b) => b.own - a.own);
for (const f of long) console.log(`${String(f.own).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
console.log(`${long.length} functions over ${LIMIT} lines (of ${found.length})`);
