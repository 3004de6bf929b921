/**
 * One tool = one declaration: name, description, input schema, whether it is read-only, and
 * its handler. `readOnly` drives both the MCP `readOnlyHint` annotation and the daemon's
 * replay verdict (SPEC §6.3); `replay` refines the verdict when it depends on the arguments
 * (call_tool: safe only for a read-only game tool).
 */
import type { ReplayVerdict } from '../../shared/frames.js';
import type { ToolContext } from './context.js';

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
}

export interface ToolCallExtra {
  signal: AbortSignal;
  /** send notifications/progress when the request carried a progressToken (no-op otherwise) */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

/** What a handler returns: one JSON object, plus optional image blocks (screenshot). */
export interface ToolAnswer {
  json: Record<string, unknown>;
  images?: Array<{ data: string; mimeType: string }>;
}

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchemaObject;
  readOnly: boolean;
  /** false for tools that may change the world outside the game too (launch/stop) */
  idempotent?: boolean;
  replay?(args: Record<string, unknown>, ctx: ToolContext): ReplayVerdict;
  handler(args: Record<string, unknown>, ctx: ToolContext, extra: ToolCallExtra): Promise<ToolAnswer | Record<string, unknown>>;
}

export function defineTool(def: ToolDef): ToolDef {
  return def;
}
