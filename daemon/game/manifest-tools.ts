/**
 * A tool of a normalised manifest: found by name (bare or qualified), and its arguments as the
 * JSON Schema an MCP client reads.
 */
import { BRIDGE_TOOLSET, type GameTool, type Manifest } from './types.js';
import type { Obj } from './manifest-args.js';

/**
 * JSON Schema for a tool's arguments (describe_toolset, eager mode). Defaults are folded into the
 * description ("Default: true."), never emitted as `default`: a strict client may reject
 * `"default": "false"` on a boolean.
 */
export function toolInputSchema(tool: GameTool): {
  type: 'object';
  properties: Record<string, Obj>;
  required?: string[];
} {
  if (tool.inputSchema) return tool.inputSchema as ReturnType<typeof toolInputSchema>;
  const properties: Record<string, Obj> = {};
  for (const a of tool.args) {
    let description = a.description.trim();
    if (a.default !== undefined) {
      const sentence = description && !/[.!?]$/.test(description) ? `${description}.` : description;
      description = `${sentence ? `${sentence} ` : ''}Default: ${a.default}.`;
    }
    const prop: Obj = {};
    if (a.type !== 'any') prop.type = a.type;
    if (description) prop.description = description;
    properties[a.name] = prop;
  }
  const required = tool.args.filter((a) => a.required).map((a) => a.name);
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
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
