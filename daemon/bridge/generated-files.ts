/**
 * The files written from the bridge families for readers that cannot import them: the proxy
 * names the bridge's tools in the server's instructions but loads nothing of the daemon
 * (shared/bridge-names.ts), and docs/TESTS.md lists the tools a saved test replays. `npm run
 * generate` writes them (scripts/generate.mjs); a unit test fails while one is stale.
 */
import { BRIDGE_FAMILIES } from './index.js';

/** A file written here: where it is, and its content given what it holds now. */
export interface GeneratedFile {
  path: string;
  render(current: string): string;
}

const quoted = (s: string) => `'${s}'`;
const key = (name: string) => (/^[a-z]\w*$/i.test(name) ? name : quoted(name));

/** shared/bridge-names.ts: each family's tool names, in describe_toolset's order. */
function bridgeNames(): string {
  const rows = BRIDGE_FAMILIES.map((f) => `  ${key(f.name)}: [${f.tools.map((t) => quoted(t.name)).join(', ')}],`);
  return [
    '// Written by `npm run generate` from daemon/bridge/families/: do not edit.',
    '',
    "/** The bridge toolset's tool names by family, in describe_toolset's order: the proxy cannot import the daemon. */",
    'export const BRIDGE_FAMILY_TOOLS = {',
    ...rows,
    '} as const;',
    '',
  ].join('\n');
}

const START = '<!-- generated:recorded-tools -->';
const END = '<!-- /generated:recorded-tools -->';

/** docs/TESTS.md's list of the bridge tools a saved test records as `do` steps, between its markers. */
function recordedTools(current: string): string {
  const from = current.indexOf(START);
  const to = current.indexOf(END);
  if (from < 0 || to < from) throw new Error(`Error: docs/TESTS.md has no ${START} … ${END} region to write into.`);
  const names = BRIDGE_FAMILIES.flatMap((f) => f.tools)
    .filter((t) => t.recorded === 'do')
    .map((t) => `\`bridge.${t.name}\``);
  return current.slice(0, from + START.length) + wrapped(names) + current.slice(to);
}

/** A list as lines of at most about 100 characters, so that its diff shows what changed. */
function wrapped(items: string[]): string {
  const lines = [''];
  for (const item of items) {
    const last = lines.length - 1;
    if (lines[last] && lines[last].length + item.length > 100) lines.push(item);
    else lines[last] += (lines[last] ? ', ' : '') + item;
  }
  return lines.join(',\n');
}

export const GENERATED: readonly GeneratedFile[] = [
  { path: 'shared/bridge-names.ts', render: bridgeNames },
  { path: 'docs/TESTS.md', render: recordedTools },
];
