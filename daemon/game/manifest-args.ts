/**
 * One argument of a game tool, read from whatever a serializer wrote (docs/CONTRACT.md, `GET
 * /tools`): an object, a bare name, or a map entry name → type (or → {type, description, ...});
 * type names in many spellings; defaults as text. A reason is thrown for what cannot be read,
 * and the manifest reader (manifest.ts) drops that tool with it.
 */
import type { ArgType, ToolArg } from './types.js';

const TYPE_ALIASES: Record<string, ArgType> = {
  string: 'string',
  str: 'string',
  text: 'string',
  char: 'string',
  enum: 'string',
  number: 'number',
  float: 'number',
  double: 'number',
  real: 'number',
  decimal: 'number',
  num: 'number',
  integer: 'integer',
  int: 'integer',
  long: 'integer',
  short: 'integer',
  int32: 'integer',
  int64: 'integer',
  boolean: 'boolean',
  bool: 'boolean',
  object: 'object',
  dict: 'object',
  map: 'object',
  table: 'object',
  json: 'object',
  array: 'array',
  list: 'array',
  vector: 'array',
  tuple: 'array',
  any: 'any',
};

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A string, or a number as text; undefined for anything else. */
export const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
/** true, or the string "true" in any case (serializers differ). */
export const truthy = (v: unknown) => v === true || (typeof v === 'string' && v.trim().toLowerCase() === 'true');

function argType(v: unknown): ArgType {
  if (typeof v !== 'string') return 'any';
  return TYPE_ALIASES[v.trim().toLowerCase()] ?? 'any';
}

/** A default as text; undefined for none (absent or null). */
export function defaultText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

/** One argument from an object (name taken from the object or the map key). Throws a reason. */
function parseArg(raw: unknown, nameFromKey?: string): ToolArg {
  if (typeof raw === 'string' && nameFromKey === undefined) {
    if (!raw.trim()) throw new Error('an argument has an empty name');
    return { name: raw.trim(), type: 'any', description: '', required: false };
  }
  // map form: name → "number" (a bare type) or name → {type, description, ...}
  if (nameFromKey !== undefined && (typeof raw === 'string' || raw === null || raw === undefined)) {
    return { name: nameFromKey, type: argType(raw), description: '', required: false };
  }
  if (!isObj(raw)) throw new Error(`an argument is ${raw === null ? 'null' : typeof raw}, not an object or a name`);
  const name = nameFromKey ?? raw.name;
  if (typeof name !== 'string' || !name.trim()) throw new Error('an argument has no name');
  const arg: ToolArg = {
    name: name.trim(),
    type: argType(raw.type),
    description: str(raw.description) ?? str(raw.desc) ?? str(raw.help) ?? '',
    required: truthy(raw.required) || (raw.optional !== undefined && !truthy(raw.optional)),
  };
  const d = defaultText(raw.default);
  if (d !== undefined) arg.default = d;
  return arg;
}
/** A tool's arguments, under `args`, `arguments`, `params` or `parameters`, as a list or a map. Throws a reason. */
export function parseArgs(tool: Obj): ToolArg[] {
  const raw = tool.args ?? tool.arguments ?? tool.params ?? tool.parameters;
  if (raw === undefined || raw === null) return [];
  let args: ToolArg[];
  if (Array.isArray(raw)) args = raw.map((a) => parseArg(a));
  else if (isObj(raw)) args = Object.entries(raw).map(([k, v]) => parseArg(v, k));
  else throw new Error(`its arguments are a ${typeof raw}, not a list or a map`);
  const seen = new Set<string>();
  for (const a of args) {
    if (seen.has(a.name)) throw new Error(`argument '${a.name}' is listed twice`);
    seen.add(a.name);
  }
  return args;
}
