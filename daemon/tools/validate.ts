/**
 * Argument checking against a tool's JSON schema (the subset our schemas use), so bad input
 * gets a BridgeUsageError that names the argument instead of a confusing failure later.
 */
import { usageError } from '../../shared/errors.js';
import type { JsonSchemaObject } from './types.js';

function typeOk(value: unknown, type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    switch (t) {
      case undefined:
        return true;
      case 'string':
        return typeof value === 'string';
      case 'number':
        return typeof value === 'number' && Number.isFinite(value);
      case 'integer':
        return typeof value === 'number' && Number.isInteger(value);
      case 'boolean':
        return typeof value === 'boolean';
      case 'object':
        return value !== null && typeof value === 'object' && !Array.isArray(value);
      case 'array':
        return Array.isArray(value);
      default:
        return true;
    }
  });
}

export function validateArgs(toolName: string, schema: JsonSchemaObject, args: unknown): Record<string, unknown> {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) throw usageError(`${toolName}: arguments must be a JSON object.`);
  const a = args as Record<string, unknown>;
  for (const req of schema.required ?? []) {
    if (a[req] === undefined) throw usageError(`${toolName}: missing required argument '${req}'. ${describe(schema)}`);
  }
  for (const [k, v] of Object.entries(a)) {
    const prop = schema.properties[k];
    if (!prop) {
      if (schema.additionalProperties === false) throw usageError(`${toolName}: unknown argument '${k}'. ${describe(schema)}`);
      continue;
    }
    if (v === undefined || v === null) continue;
    if (!typeOk(v, prop.type)) {
      throw usageError(`${toolName}: argument '${k}' must be ${Array.isArray(prop.type) ? prop.type.join(' or ') : String(prop.type)}, got ${JSON.stringify(v)?.slice(0, 80)}.`);
    }
    if (prop.type === 'integer' && typeof prop.minimum === 'number' && (v as number) < prop.minimum) {
      throw usageError(`${toolName}: argument '${k}' must be at least ${prop.minimum}.`);
    }
    if (prop.type === 'integer' && typeof prop.maximum === 'number' && (v as number) > prop.maximum) {
      throw usageError(`${toolName}: argument '${k}' must be at most ${prop.maximum}.`);
    }
  }
  return a;
}

function describe(schema: JsonSchemaObject): string {
  const names = Object.keys(schema.properties);
  return names.length ? `It takes: ${names.join(', ')}.` : 'It takes no arguments.';
}
