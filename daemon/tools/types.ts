/**
 * What a tool is made of. Each of the seven is declared once with `defineTool` (define.ts):
 * its zod input schema, its effect, its handler. Everything else (the JSON Schema an agent
 * reads, the MCP annotations, the replay verdict the daemon acks with) is derived from that.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { ReplayVerdict } from '../../shared/frames.js';
import type { ToolContext } from './context.js';

export interface ToolCallExtra {
  signal: AbortSignal;
  /** send notifications/progress when the request carried a progressToken (no-op otherwise) */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

/** What every handler returns: one JSON object, plus optional image blocks (screenshot). */
export interface ToolAnswer {
  json: Record<string, unknown>;
  /** the text an agent reads instead of the JSON's own (a snapshot's compact rendering); the JSON stays the structured content */
  text?: string;
  images?: Array<{ data: string; mimeType: string }>;
}

/**
 * What a call can do to the world, which decides the MCP hints and the replay verdict.
 * `destructive` and `idempotent` mean something only when `readOnly` is false.
 */
export interface Effect {
  /** changes nothing anywhere: safe to re-send after a daemon restart */
  readOnly: boolean;
  /** may end or delete something (stop_instance ends a game); left out when unknown (a game's own tool) */
  destructive?: boolean;
  /** calling it twice with the same arguments does no more than calling it once */
  idempotent?: boolean;
}

/** A declared tool as the session uses it: advertised, checked, judged for replay, run. */
export interface ToolDef {
  name: string;
  effect: Effect;
  /** the MCP tool an agent sees in tools/list */
  advertised: Tool;
  /** the arguments checked against the schema; a BridgeUsageError that names the argument when they do not fit */
  parse(args: unknown): Record<string, unknown>;
  /** may this request be re-sent after a daemon restart? (checked arguments, or the raw ones when they do not parse) */
  replay(args: Record<string, unknown>, ctx: ToolContext): ReplayVerdict;
  run(args: Record<string, unknown>, ctx: ToolContext, extra: ToolCallExtra): Promise<ToolAnswer>;
}

/** What every answer of a bridge tool starts with: the port, the tool's name, and `via: 'bridge'`. */
export type BridgeToolBase = { port: number; tool: string; via: 'bridge' };

/** A tool of the built-in `bridge` toolset (reached through call_tool), given its answer's base. */
export type BridgeToolHandler = (
  ctx: ToolContext,
  base: BridgeToolBase,
  args: Record<string, unknown>,
  extra: ToolCallExtra,
) => Promise<ToolAnswer>;
