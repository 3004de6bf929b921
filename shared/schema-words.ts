/**
 * How a zod schema is said to a person, in the words every schema check of this package uses:
 * a tool's arguments (daemon/tool-framework/define.ts) and gamebridge.json (daemon/launcher/
 * declaration-schema.ts). Each caller names the thing ("argument 'x'", `"launch.cwd"`); these
 * give what it must be, and the near-miss of an unknown key. And how a schema is said to an MCP
 * client: as JSON Schema, without what says nothing.
 */
import { z } from 'zod/v4';

/** A tool's arguments as the JSON Schema an MCP client reads (zod's, tidied: see `tidy`). */
export function clientJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return tidy(z.toJSONSchema(schema, { io: 'input' })) as Record<string, unknown>;
}

/**
 * A tool's answer as the MCP `outputSchema` a client checks structuredContent against: the
 * answer, or what stands in for one (the cut answer over the size limit, a failure's facts).
 */
export function answerJsonSchema(answer: z.ZodObject, ...others: z.ZodObject[]): Record<string, unknown> {
  const { anyOf } = tidy(z.toJSONSchema(z.union([answer, ...others]), { io: 'output' })) as { anyOf: unknown[] };
  return { type: 'object', anyOf };
}

/**
 * Without what says nothing to a client: `$schema`, "any extra key is fine", "keys are strings",
 * and the bounds of a safe integer that zod puts on every integer.
 */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema' || says(k, v) === 'nothing') continue;
    // the keys of `properties` are the arguments' names, not keywords: an argument may be called `$schema`
    out[k] =
      k === 'properties' && v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([name, p]) => [name, tidy(p)]))
        : tidy(v);
  }
  return out;
}

function says(key: string, v: unknown): 'nothing' | 'something' {
  if (key === 'minimum' && v === Number.MIN_SAFE_INTEGER) return 'nothing';
  if (key === 'maximum' && v === Number.MAX_SAFE_INTEGER) return 'nothing';
  if (!v || typeof v !== 'object') return 'something';
  const o = v as Record<string, unknown>;
  if (key === 'additionalProperties' && Object.keys(o).length === 0) return 'nothing';
  if (key === 'propertyNames' && Object.keys(o).length === 1 && o.type === 'string') return 'nothing';
  return 'something';
}

/** A type as a sentence says it. */
const TYPE_NAMES: Record<string, string> = {
  int: 'an integer',
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  record: 'an object',
  object: 'an object',
  array: 'an array',
};

/** The issue to report of several: a misspelt key first, since it explains the field it left missing. */
export function firstIssue(issues: z.core.$ZodIssue[]): z.core.$ZodIssue {
  return issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0];
}

/** A value in an error: its JSON, bounded. */
export const shown = (v: unknown): string => JSON.stringify(v)?.slice(0, 80) ?? String(v);

/**
 * What the value must be, for the issues zod describes by their fields (a type, a bound), or
 * undefined for the rest (the caller then uses the issue's own message).
 */
export function mustBe(issue: z.core.$ZodIssue, value: unknown): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}, got ${shown(value)}`;
    case 'too_small':
      return issue.inclusive === false
        ? `must be more than ${String(issue.minimum)}`
        : `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return issue.inclusive === false
        ? `must be less than ${String(issue.maximum)}`
        : `must be at most ${String(issue.maximum)}`;
    default:
      return undefined;
  }
}

/** Edit distance (insert, delete, replace, swap of neighbours), for near-miss names only. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/**
 * The known name an unknown one is most likely a slip of ("comand" → "command"), or undefined
 * when none is close: one edit in a short name, up to a third of a longer one's letters.
 * Case is ignored ("PortRange" → "portRange"). Names under three letters get no guess.
 */
export function nearMiss(name: string, known: readonly string[]): string | undefined {
  if (name.length < 3 || name.length > 100) return undefined;
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    if (d <= limit && (!best || d < best.d)) best = { name: k, d };
  }
  return best?.name;
}
