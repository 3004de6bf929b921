/**
 * A page's JSON Schema as the daemon checks a call's arguments with it. The page wrote it, so no
 * pattern of it may reach V8's backtracking RegExp: one like `^(a+)+$` against a run of `a`s and
 * a `!` holds the shared daemon's event loop for seconds, every session with it. So every
 * `pattern` is taken out before zod reads the schema (zod would compile it natively, in places no
 * one can reach afterwards), and checked here in the linear-time engine (sync/regex.ts), each
 * match's work bounded, on the strings it applies to: properties, items, `additionalProperties`,
 * `allOf`, the branches of `anyOf`/`oneOf` of the value's type, local `$ref`s, and key names
 * under `propertyNames`. A pattern the engine cannot read (backreferences, lookaround), and
 * `patternProperties` with what it governs, are left to the page's own tool, which sees every
 * argument anyway.
 */
import { linearRegex, matchesText, type PatternUse } from '../sync/regex.js';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is one schema (or, for items, a list of them). */
const ONE = [
  'items',
  'additionalProperties',
  'additionalItems',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
];
/** Keywords whose value is a list of schemas. */
const LIST = ['prefixItems', 'anyOf', 'oneOf', 'allOf'];
/** Keywords whose value maps names to schemas. */
const MAP = ['properties', '$defs', 'definitions', 'dependentSchemas'];

/** The schema with no pattern left in it, for zod; the page's own schema is not changed. */
export function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (!isNode(schema)) return schema;
  const out: Node = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'pattern' || k === 'patternProperties') continue;
    if (ONE.includes(k) || LIST.includes(k)) out[k] = withoutPatterns(v);
    else if (MAP.includes(k) && isNode(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, withoutPatterns(s)]));
    else out[k] = v;
  }
  // keys patternProperties allowed would now be refused as unknown ones: the page judges them
  if (schema.patternProperties !== undefined && schema.additionalProperties !== undefined)
    delete out.additionalProperties;
  return out;
}

/** Where a string failed its pattern. */
export interface PatternMiss {
  path: string;
  pattern: string;
}

const TYPES: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: Array.isArray,
  object: isNode,
};

/** Does `value` have a type the schema allows (one it does not name: any)? */
function typeFits(node: Node, value: unknown): boolean {
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  return !types.length || types.some((t) => TYPES[String(t)]?.(value) ?? true);
}

const MAX_DEPTH = 32;

/**
 * The first string of `value` that fails a pattern the page's schema sets for it, or undefined.
 * Throws a BridgeUsageError when a string is too long to match on the shared daemon.
 */
export function patternMiss(schema: unknown, value: unknown, tool: string): PatternMiss | undefined {
  const root = isNode(schema) ? schema : {};
  const fits = (pattern: string, text: string, path: string): boolean => {
    const use: PatternUse = {
      what: `${tool}: the page's pattern for '${path}'`,
      fix: `Give '${path}' a shorter value.`,
    };
    try {
      linearRegex(pattern, use);
    } catch {
      return true; // the linear engine cannot read it: the page's tool checks its own argument
    }
    return matchesText(pattern, text, use);
  };
  const resolve = (ref: string): unknown => {
    const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    return m ? (root[m[1]] as Node | undefined)?.[m[2].replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  };
  const walk = (node: unknown, v: unknown, path: string, depth: number): PatternMiss | undefined => {
    if (!isNode(node) || depth > MAX_DEPTH) return undefined;
    if (typeof node.$ref === 'string') {
      const miss = walk(resolve(node.$ref), v, path, depth + 1);
      if (miss) return miss;
    }
    if (typeof v === 'string' && typeof node.pattern === 'string' && !fits(node.pattern, v, path))
      return { path, pattern: node.pattern };
    for (const s of Array.isArray(node.allOf) ? node.allOf : []) {
      const miss = walk(s, v, path, depth + 1);
      if (miss) return miss;
    }
    for (const key of ['anyOf', 'oneOf']) {
      const branches = (Array.isArray(node[key]) ? (node[key] as unknown[]) : []).filter(
        (b) => isNode(b) && typeFits(b, v),
      );
      const misses = branches.map((b) => walk(b, v, path, depth + 1));
      if (branches.length && misses.every(Boolean)) return misses[0];
    }
    const at = (k: string | number) => (path ? `${path}.${k}` : String(k));
    if (isNode(v)) {
      const props = isNode(node.properties) ? node.properties : {};
      const names = isNode(node.propertyNames) ? node.propertyNames : undefined;
      // a key patternProperties governs is the page's to judge, not additionalProperties'
      const rest = node.patternProperties === undefined ? node.additionalProperties : undefined;
      for (const [k, x] of Object.entries(v)) {
        const miss =
          (names && walk(names, k, at(k), depth + 1)) ||
          walk(Object.hasOwn(props, k) ? props[k] : rest, x, at(k), depth + 1);
        if (miss) return miss;
      }
    }
    if (Array.isArray(v)) {
      const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
      const rest = Array.isArray(node.items) ? node.additionalItems : node.items;
      for (let i = 0; i < v.length; i++) {
        const miss = walk(i < tuple.length ? tuple[i] : rest, v[i], at(i), depth + 1);
        if (miss) return miss;
      }
    }
    return undefined;
  };
  return walk(root, value, '', 0);
}
