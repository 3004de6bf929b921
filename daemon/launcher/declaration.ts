/**
 * gamebridge.json (docs/CONTRACT.md): find it by walking up from the client's cwd (or take the
 * path the client named) and validate it into a LaunchDeclaration. Every complaint names the
 * file and the field, because the person reading it has to go and fix that file; none quotes
 * the file's contents (a path from a tool argument may name any file). Where the walk stops,
 * and which files are believed: shared/declaration-path.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DECLARATION_FILE, distrustFile, locateDeclaration } from '../../shared/declaration-path.js';
import { trustFix } from '../../shared/trust.js';
import type { z } from 'zod/v4';
import { usageError } from '../../shared/errors.js';
import { firstIssue, mustBe, nearMiss } from '../../shared/schema-words.js';
import { selfCommand } from '../../shared/self-command.js';
import type { LaunchProfile } from './profiles.js';
export { withClientEnv } from './profiles.js';
import { webDeclaration, type WebDeclaration } from './web-declaration.js';
import { declarationJsonSchema, declarationSchema, profileSchema } from './declaration-schema.js';
export { DEFAULT_PORT_RANGE, DEFAULT_READY_TIMEOUT_MS } from './declaration-schema.js';

export { DECLARATION_FILE };
const MAX_DECLARATION_BYTES = 1024 * 1024;

export interface LaunchDeclaration {
  /** the gamebridge.json this came from (absolute) */
  file: string;
  /** the directory holding it */
  dir: string;
  name?: string;
  /** still holds `{port}`: substituted per launch */
  command: string;
  /** absolute (the file's `launch.cwd`, relative to its directory) */
  cwd: string;
  portRange: number[];
  readyTimeoutMs: number;
  /** may hold `{port}` and `{index}` too */
  env: Record<string, string>;
  /** launch.profiles: named variants (args appended, env laid over, own readyTimeoutMs) */
  profiles: Record<string, LaunchProfile>;
  /** absolute path of the composites module, if the file names one */
  composites?: string;
  /** launch.web: a browser game (its page opened in Chromium, joined to a page carrier); command is then '' */
  web?: WebDeclaration;
}

/** Computed when needed: it looks at PATH. */
const howToCreate = () =>
  `Create one in your project root (\`${selfCommand()} init\` writes a template), or name one with --config / GAME_BRIDGE_CONFIG.`;

/** `home`: the client's HOME, a boundary of the walk (the daemon's own may differ). */
export function findDeclaration(opts: { cwd: string; configPath?: string; home?: string }): LaunchDeclaration {
  const found = locateDeclaration(opts.cwd, opts.configPath, opts.home);
  if (found.refused) {
    const { file, path, why } = found.refused;
    throw usageError(
      `${file} is not used: ${path === file ? 'it' : path} ${why.replace(/^it /, '')}. ${trustFix(path)}`,
      { file, refused: path },
    );
  }
  if (found.file) return readDeclaration(found.file);
  if (opts.configPath) {
    throw usageError(
      `The launch declaration ${found.looked[0]} (from --config / GAME_BRIDGE_CONFIG) does not exist. ${howToCreate()}`,
      { file: found.looked[0] },
    );
  }
  const stopped = found.stopped ? ` The search stopped at ${found.stopped}.` : '';
  throw usageError(`No ${DECLARATION_FILE} found. Looked in: ${found.looked.join(', ')}.${stopped} ${howToCreate()}`, {
    looked: found.looked,
  });
}

/** Where JSON.parse stopped in `text`, as an editor counts (1-based), from its message. */
function brokenAt(text: string, message: string): { line: number; column: number } | undefined {
  const pos = /position (\d+)/.exec(message)?.[1];
  const offset = pos !== undefined ? Number(pos) : /end of JSON input/.test(message) ? text.length : undefined;
  if (offset === undefined) return undefined;
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

export function readDeclaration(file: string): LaunchDeclaration {
  let raw: unknown;
  let text = '';
  // Only a regular file of sane size: the path may come from a tool argument, and reading
  // /dev/zero or a FIFO would block the daemon for every client.
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    throw usageError(`${file} cannot be read (${(e as Error).message}). ${howToCreate()}`, { file });
  }
  if (!st.isFile() || st.size > MAX_DECLARATION_BYTES) {
    throw usageError(
      `${file} is not a gamebridge.json (${st.isFile() ? `larger than ${MAX_DECLARATION_BYTES} bytes` : 'not a regular file'}). ${howToCreate()}`,
      { file },
    );
  }
  try {
    text = readFileSync(file, 'utf8');
    raw = JSON.parse(text);
  } catch (e) {
    // Only where it broke, never what the file says: the path may name someone's secrets.
    const at = brokenAt(text, (e as Error).message);
    throw usageError(
      `${file} is not valid JSON${at ? ` (line ${at.line}, column ${at.column})` : ''}. Fix the file (see \`${selfCommand()} init\` for a template).`,
      { file },
    );
  }
  return parseDeclaration(raw, file);
}

/**
 * A parsed gamebridge.json (`raw`, read from `file`) → its LaunchDeclaration: the schema
 * (declaration-schema.ts: fields, types, defaults), then what only the disk can say (the
 * folders exist, the composites module is trustworthy). The first complaint is thrown, a
 * misspelt field's first, since it explains the rest.
 */
export function parseDeclaration(raw: unknown, file: string): LaunchDeclaration {
  const bad = (field: string, why: string) =>
    usageError(`${file}: ${field} ${why}. Fix the file (see \`${selfCommand()} init\` for a template).`, {
      file,
      field,
    });
  const r = declarationSchema.safeParse(raw, { error: () => BY_FIELDS });
  if (!r.success) {
    const issue = firstIssue(r.error.issues);
    const { field, why } = complaint(issue, raw);
    throw bad(field, why);
  }
  const { name, launch, composites: modulePath } = r.data;
  const dir = dirname(file);
  const web = launch.web ? webDeclaration(launch.web, dir, bad) : undefined;

  const cwd = resolve(dir, launch.cwd);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory())
    throw bad('"launch.cwd"', `points at ${cwd}, which is not a directory`);

  let composites: string | undefined;
  if (modulePath !== undefined) {
    composites = resolve(dir, modulePath);
    // The daemon imports this module: it must be as trustworthy as the declaration itself.
    const refused = existsSync(composites) ? distrustFile(composites) : undefined;
    if (refused)
      throw bad(
        '"composites"',
        `names ${composites}, which is not used: ${refused.path === composites ? 'it' : refused.path} ${refused.why.replace(/^it /, '')}. ${trustFix(refused.path)}`,
      );
  }

  return {
    file,
    dir,
    name,
    command: web ? '' : (launch.command ?? ''),
    cwd,
    portRange: launch.portRange,
    readyTimeoutMs: launch.readyTimeoutMs,
    env: launch.env,
    profiles: ownProfiles(raw),
    composites,
    web,
  };
}

/** The message of an issue the schema words by its fields (a type, a bound, a key), not by a sentence of ours. */
const BY_FIELDS = '\u0000by-fields';

/** One schema issue as the field it is about and what is wrong with it, in the words tool arguments use. */
function complaint(issue: z.core.$ZodIssue, raw: unknown): { field: string; why: string } {
  const path = issue.path.map(String);
  const name = (p: string[]) => (p.length ? `"${p.join('.')}"` : 'the top level');
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(schemaNode(path)?.properties ?? {});
    const key = issue.keys[0];
    const guess = nearMiss(key, known);
    const list = known.filter((k) => k !== '$schema').map((k) => `"${k}"`);
    return {
      field: name([...path, key]),
      why: `is not a field (${guess ? `did you mean "${guess}"?` : `${name(path)} takes ${list.join(', ')}`})`,
    };
  }
  if (issue.message !== BY_FIELDS) return { field: name(path), why: issue.message };
  const value = valueAt(raw, path);
  if (value === undefined) {
    const about = schemaNode(path)?.description;
    return { field: name(path), why: `is missing${about ? ` (${about})` : ''}` };
  }
  return { field: name(path), why: mustBe(issue, value) ?? 'is not valid' };
}

interface JsonSchemaNode {
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: JsonSchemaNode | boolean;
  anyOf?: JsonSchemaNode[];
  description?: string;
}

let jsonSchema: JsonSchemaNode | undefined;

/** A node's object side: the object of a nullable one (an anyOf with null), else the node. */
const objectSide = (n?: JsonSchemaNode) => (n?.anyOf ? (n.anyOf.find((m) => m.properties) ?? n) : n);

/** The JSON Schema node of a path (an object's field, a record's value). */
function schemaNode(path: string[]): JsonSchemaNode | undefined {
  let node = objectSide((jsonSchema ??= declarationJsonSchema() as JsonSchemaNode));
  for (const key of path) {
    const next: JsonSchemaNode | undefined =
      node?.properties?.[key] ??
      (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined);
    node = objectSide(next);
  }
  return node;
}

function valueAt(raw: unknown, path: string[]): unknown {
  let v = raw;
  for (const key of path) v = isObject(v) && Object.hasOwn(v, key) ? v[key] : undefined;
  return v;
}

/**
 * launch.profiles as an object of its own names only (no prototype), so a profile called
 * `constructor` or `__proto__` is a name like any other. Each profile passed the schema already;
 * `__proto__`, which a parsed record leaves out, is parsed here.
 */
function ownProfiles(raw: unknown): Record<string, LaunchProfile> {
  const given = valueAt(raw, ['launch', 'profiles']);
  const profiles = Object.create(null) as Record<string, LaunchProfile>;
  if (!isObject(given)) return profiles;
  for (const [name, p] of Object.entries(given)) {
    const r = profileSchema.safeParse(p);
    if (r.success) profiles[name] = { args: r.data.args, env: r.data.env ?? {}, readyTimeoutMs: r.data.readyTimeoutMs };
  }
  return profiles;
}

/** `{port}` → the port, in a command or an env value. */
export function withPort(text: string, port: number): string {
  return text.replaceAll('{port}', String(port));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
