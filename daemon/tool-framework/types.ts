/**
 * What a tool is made of. Every tool is declared once: an MCP tool with `defineTool` (define.ts),
 * a bridge tool with `bridgeTool` (bridge/declare.ts, which adds what it needs of its game): its
 * zod input schema, its effect, its handler. Everything else (the JSON Schema an
 * agent reads, the MCP annotations, the replay verdict the daemon acks with, the row
 * describe_toolset shows) is derived from that.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { z } from 'zod/v4';
import type { ReplayVerdict } from '../../shared/frames.js';
import type { ToolArg } from '../game/types.js';
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
  /** a listing an agent needs whole to use at all (describe_toolset's schemas): it may take four times the answer limit, as the manifest resource does */
  whole?: true;
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
export interface ToolDef<X extends ToolCallExtra = ToolCallExtra> {
  name: string;
  effect: Effect;
  /** what it answers, whole (the session's `view` and, for a bridge tool, `port`, `tool`, `via` included) */
  output: z.ZodObject;
  /** the MCP tool an agent sees in tools/list */
  advertised: Tool;
  /** its arguments as a toolset row lists them (describe_toolset, for a bridge tool), from the same schema */
  args: ToolArg[];
  /** the arguments checked against the schema; a BridgeUsageError that names the argument when they do not fit */
  parse(args: unknown): Record<string, unknown>;
  /** may this request be re-sent after a daemon restart? (checked arguments, or the raw ones when they do not parse) */
  replay(args: Record<string, unknown>, ctx: ToolContext): ReplayVerdict;
  run(args: Record<string, unknown>, ctx: ToolContext, extra: X): Promise<ToolAnswer>;
}
