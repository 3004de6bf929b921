/**
 * A tool of a normalised manifest: found by name (bare or qualified), and its arguments as the
 * JSON Schema an MCP client reads.
 */
import { z } from 'zod/v4';
import { clientJsonSchema } from '../../shared/schema-words.js';
import { BRIDGE_TOOLSET, type ArgType, type GameTool, type Manifest, type ToolArg } from './types.js';
import type { Obj } from './manifest-args.js';

/**
 * JSON Schema for a tool's arguments (describe_toolset, eager mode), from the zod schema of its
 * argument rows. Defaults are folded into the description ("Default: true."), never emitted as
 * `default`: a strict client may reject `"default": "false"` on a boolean.
 */
export function toolInputSchema(tool: GameTool): {
  type: 'object';
  properties: Record<string, Obj>;
  required?: string[];
} {
  if (tool.inputSchema) return tool.inputSchema as ReturnType<typeof toolInputSchema>;
  // fromEntries keeps a game's argument named "__proto__" as an argument, not a prototype.
  const shape = Object.fromEntries(
    tool.args.map((a) => {
      const schema = ARG_SCHEMAS[a.type]();
      const described = describedArg(a) ? schema.describe(describedArg(a)) : schema;
      return [a.name, a.required ? described : described.optional()];
    }),
  );
  return clientJsonSchema(z.object(shape)) as ReturnType<typeof toolInputSchema>;
}

const ARG_SCHEMAS: Record<ArgType, () => z.ZodType> = {
  string: () => z.string(),
  number: () => z.number(),
  integer: () => z.int(),
  boolean: () => z.boolean(),
  object: () => z.record(z.string(), z.unknown()),
  array: () => z.array(z.unknown()),
  any: () => z.unknown(),
};

/** An argument's description, with its default as a sentence after it. */
function describedArg(a: ToolArg): string {
  const description = a.description.trim();
  if (a.default === undefined) return description;
  const sentence = description && !/[.!?]$/.test(description) ? `${description}.` : description;
  return `${sentence ? `${sentence} ` : ''}Default: ${a.default}.`;
}

/**
 * A tool by name. `name` may be qualified as `toolset.name` (or `toolset/name`); a bare name
 * prefers the game's own toolsets over the built-in bridge toolset (the game published it on
 * purpose), and the first toolset listing it wins.
 */
export function findTool(m: Manifest, name: string, toolset?: string): GameTool | undefined {
  const sets = toolset
    ? m.toolsets.filter((t) => t.name === toolset)
    : [...m.toolsets.filter((t) => t.name !== BRIDGE_TOOLSET), ...m.toolsets.filter((t) => t.name === BRIDGE_TOOLSET)];
  for (const ts of sets) {
    const hit = ts.tools.find((t) => t.name === name);
    if (hit) return hit;
  }
  if (!toolset) {
    const m2 = /^([^./]+)[./](.+)$/.exec(name);
    if (m2) return findTool(m, m2[2], m2[1]);
  }
  return undefined;
}
