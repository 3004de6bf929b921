/**
 * The field tables of docs/TOOLS.md, written from the tools' answer schemas (shared/answers/):
 * one table per tool, one row per field, down to the fields of a list's items, with the sentence
 * each field's `.describe()` gives. A field that is the game's own data (`gameData`) or is listed
 * in full elsewhere (`listedElsewhere`) is one row `name.…`; an answer that passes on a game's
 * own keys (`andMore`) ends in a row `…`. A field inside one marked *(when …)* takes that mark
 * unless it has its own.
 *
 * Reads the built tool declarations (dist/), so `npm run build` first.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const load = (file) => import(pathToFileURL(join(ROOT, 'dist', file)).href);

/** The schemas a field is wrapped in (optional, nullable, a default) and the one inside. */
function unwrap(schema) {
  const chain = [schema];
  let s = schema;
  while (['optional', 'nullable', 'default', 'readonly', 'nonoptional'].includes(s._zod.def.type)) {
    s = s._zod.def.innerType;
    chain.push(s);
  }
  return { inner: s, description: chain.map((c) => c.description).find((d) => d !== undefined) ?? '' };
}

/** A sentence as a table cell: one line, and a pipe that would end the cell escaped. */
const cell = (text) => text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');

/** The rows of an object's fields, `prefix` before each name, `depth` levels down. */
function rows(object, prefix, depth, marks, parentWhen = '') {
  const out = [];
  for (const [key, field] of Object.entries(object.shape)) {
    const path = `${prefix}${key}`;
    const { inner, description: own } = unwrap(field);
    // a field inside one that appears only in some case appears only in that case too
    const description = own.includes('*(when ') || !parentWhen ? own : `${own} ${parentWhen}`.trim();
    const when = /\*\(when [^*]*\)\*/.exec(description)?.[0] ?? '';
    if (marks.isGameData(inner) || marks.isListedElsewhere(inner)) {
      out.push([`${path}.…`, description]);
      continue;
    }
    out.push([path, description]);
    if (depth <= 1) continue;
    const item = inner._zod.def.type === 'array' ? unwrap(inner._zod.def.element).inner : undefined;
    if (inner._zod.def.type === 'object') out.push(...rows(inner, `${path}.`, depth - 1, marks, when));
    else if (item?._zod.def.type === 'object') out.push(...rows(item, `${path}[].`, depth - 1, marks, when));
  }
  const more = marks.moreOf(object);
  if (more !== undefined) out.push([prefix ? `${prefix}…` : '…', more]);
  return out;
}

/** One tool's answer as a markdown table; a bridge tool that runs on no game's port answers none. */
function table(tool, marks) {
  const all = rows(tool.output, '', 2, marks);
  const lines = (tool.onPort === false ? all.filter(([path]) => path !== 'port') : all).map(
    ([path, meaning]) => `| \`${path}\` | ${cell(meaning)} |`,
  );
  return ['| field | meaning |', '|---|---|', ...lines].join('\n');
}

/** `fields:NAME` → the field table of tool NAME, for every MCP tool and every bridge tool. */
export async function fieldTables() {
  const marks = await load('shared/answers/fields.js');
  const { TOOLS } = await load('daemon/tools/index.js');
  const { BRIDGE_TOOLS } = await load('daemon/bridge/index.js');
  const regions = {};
  for (const tool of [...TOOLS, ...BRIDGE_TOOLS]) regions[`fields:${tool.name}`] = table(tool, marks);
  return regions;
}
