/**
 * `game-bridge-mcp register` (and `init`, after it writes gamebridge.json): add the bridge to a
 * project's MCP client configuration: `.mcp.json` (Claude Code), `.cursor/mcp.json` (Cursor),
 * `.vscode/mcp.json` (VS Code). The file is merged into, never replaced: other servers' entries
 * are left as they are, and an entry of ours that someone changed is kept unless --force.
 * The command written is the one that works here: the installed bin, or node and the clone's
 * main.js. Only regular files inside the folder are read and written, in a folder no other user
 * can write (shared/project-files.ts): a link is refused by its name, and a rewritten file keeps
 * its mode.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { isBridgeError } from '../shared/errors.js';
import { projectFolder, readProjectFile, writeProjectFile } from '../shared/project-files.js';
import { selfInvocation } from '../shared/self-command.js';

export const SERVER_NAME = 'game-bridge';

export const CLIENTS = ['claude', 'cursor', 'vscode'] as const;
export type ClientKind = (typeof CLIENTS)[number];

/** Where each client reads a project's servers, and under which key. */
/** A client configuration bigger than this is not one a person keeps by hand. */
const MAX_CONFIG_BYTES = 4 << 20;

const WHERE: Record<ClientKind, { file: string; key: 'mcpServers' | 'servers'; label: string }> = {
  claude: { file: '.mcp.json', key: 'mcpServers', label: 'Claude Code' },
  cursor: { file: join('.cursor', 'mcp.json'), key: 'mcpServers', label: 'Cursor' },
  vscode: { file: join('.vscode', 'mcp.json'), key: 'servers', label: 'VS Code' },
};

export interface RegisterOptions {
  dir: string;
  clients: ClientKind[];
  force?: boolean;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

function entryFor(client: ClientKind): Record<string, unknown> {
  const { command, args } = selfInvocation();
  // Cursor's file has no `type`: it tells stdio from a URL by `command`.
  return client === 'cursor' ? { command, args } : { type: 'stdio', command, args };
}

/** The line of a JSON syntax error, from the position JSON.parse names. */
function lineOf(text: string, e: unknown): number | undefined {
  const pos = /position (\d+)/.exec(String((e as Error)?.message))?.[1];
  return pos === undefined ? undefined : text.slice(0, Number(pos)).split('\n').length;
}

/** A client file's text as its top-level object, or the sentence that says why it is not one. */
function configObject(file: string, text: string): Record<string, unknown> | string {
  let doc: unknown;
  try {
    doc = text.trim() ? JSON.parse(text) : {};
  } catch (e) {
    const line = lineOf(text, e);
    return `${file}${line ? `:${line}` : ''}: not valid JSON (${(e as Error).message}); fix it or move it away, then run this again. Nothing was written.`;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    return `${file}: the top level is not a JSON object; fix it, then run this again. Nothing was written.`;
  return doc as Record<string, unknown>;
}

/** Register in one client's file; answers the exit code's share (0 written or already there, 1 refused). */
function registerOne(
  dir: string,
  client: ClientKind,
  force: boolean,
  out: (l: string) => void,
  err: (l: string) => void,
) {
  const { file: rel, key, label } = WHERE[client];
  const file = join(dir, rel);
  let doc: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    projectFolder(dir, dirname(rel));
    text = readProjectFile(file, MAX_CONFIG_BYTES, 'nothing was written')?.toString('utf8');
  } catch (e) {
    if (!isBridgeError(e)) throw e;
    err(`${label}: ${e.message}`);
    return 1;
  }
  if (text !== undefined) {
    const read = configObject(file, text);
    if (typeof read === 'string') {
      err(read);
      return 1;
    }
    doc = read;
  }
  const servers = doc[key] ?? {};
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) {
    err(`${file}: "${key}" is not an object; fix it, then run this again. Nothing was written.`);
    return 1;
  }
  const entry = entryFor(client);
  const mine = (servers as Record<string, unknown>)[SERVER_NAME];
  if (mine !== undefined && JSON.stringify(mine) === JSON.stringify(entry)) {
    out(`${label}: ${rel} already has "${SERVER_NAME}"`);
    return 0;
  }
  if (mine !== undefined && !force) {
    err(
      `${label}: ${file} already has a "${SERVER_NAME}" entry that differs (${JSON.stringify(mine)}); ` +
        `it is kept. Use --force to replace it with ${JSON.stringify(entry)}.`,
    );
    return 1;
  }
  const next = { ...doc, [key]: { ...(servers as Record<string, unknown>), [SERVER_NAME]: entry } };
  try {
    writeProjectFile(file, JSON.stringify(next, null, 2) + '\n');
  } catch (e) {
    if (!isBridgeError(e)) throw e;
    err(`${label}: ${e.message}`);
    return 1;
  }
  out(
    `${label}: ${mine === undefined ? 'added' : 'replaced'} "${SERVER_NAME}" in ${relative(process.cwd(), file) || file} (${[entry.command, ...(entry.args as string[])].join(' ')})`,
  );
  return 0;
}

export async function runRegister(opts: RegisterOptions): Promise<number> {
  const out = opts.out ?? ((l: string) => process.stdout.write(l + '\n'));
  const err = opts.err ?? ((l: string) => process.stderr.write(`game-bridge-mcp: ${l}\n`));
  const dir = resolve(opts.dir);
  mkdirSync(dir, { recursive: true });
  let code = 0;
  for (const client of [...new Set(opts.clients)])
    code = Math.max(code, registerOne(dir, client, opts.force === true, out, err));
  if (code === 0 && opts.clients.includes('claude'))
    out("Claude Code asks once to approve a project's .mcp.json servers; `claude mcp list` shows whether it connects.");
  return code;
}
