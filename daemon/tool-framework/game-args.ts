/**
 * A game tool's arguments as a zod schema, built from the rows of its manifest (the same rows
 * describe_toolset shows), so call_tool checks them with the one check every tool's arguments
 * pass (define.ts checkArguments) before anything is sent. A number or a flag given as its text
 * ("3", "true") passes: the command goes to the game as text anyway, and many clients and typed
 * serializers send them so.
 */
import type { GameTool, ToolArg } from '../game/manifest.js';
import { checkArguments, z } from './define.js';

const NUMBER_TEXT = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

const numberText = (v: unknown) => (typeof v === 'string' && NUMBER_TEXT.test(v) ? Number(v) : v);
const flagText = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : v);

function argSchema(a: ToolArg): z.ZodType {
  switch (a.type) {
    case 'string':
      return z.string();
    case 'number':
      return z.preprocess(numberText, z.number());
    case 'integer':
      return z.preprocess(numberText, z.int());
    case 'boolean':
      return z.preprocess(flagText, z.boolean());
    case 'object':
      return z.record(z.string(), z.unknown());
    case 'array':
      return z.array(z.unknown());
    default:
      return z.unknown();
  }
}

const schemas = new WeakMap<GameTool, z.ZodObject>();

/** The tool's schema: its declared arguments, required ones required, no other key. */
function schemaOf(tool: GameTool): z.ZodObject {
  let s = schemas.get(tool);
  if (!s) {
    s = z
      .object(Object.fromEntries(tool.args.map((a) => [a.name, a.required ? argSchema(a) : argSchema(a).optional()])))
      .strict();
    schemas.set(tool, s);
  }
  return s;
}

/** Refuses, naming the tool's arguments, a call whose arguments its manifest says it does not take. */
export function checkGameToolArgs(tool: GameTool, args: Record<string, unknown>): void {
  checkArguments(tool.name, schemaOf(tool), tool.args, args);
}
