/**
 * `defineTool`: one declaration (zod input schema, effect, handler) → everything the session
 * needs, for an MCP tool and a bridge tool alike. The JSON Schema an agent reads and the
 * argument rows describe_toolset lists are derived from the zod schema; the MCP hints and the
 * replay verdict from the effect, by the same functions --eager uses for a game's own tools.
 */
import { z } from 'zod/v4';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { usageError } from '../../shared/errors.js';
import { answerJsonSchema, clientJsonSchema, firstIssue, mustBe, nearMiss } from '../../shared/schema-words.js';
import { answerWith, failureAnswer, truncatedAnswer, viewShape } from '../../shared/answers/fields.js';
import type { ReplayVerdict } from '../../shared/frames.js';
import type { ArgType, ToolArg } from '../game/types.js';
import type { ToolContext } from './context.js';
import type { Effect, ToolAnswer, ToolCallExtra, ToolDef } from './types.js';

export { z };

/** MCP hints for a tool with this effect (hints left unknown are left out: the client assumes the worst). */
export function annotationsOf(effect: Effect, title?: string): ToolAnnotations {
  const writes = effect.readOnly
    ? {}
    : {
        ...(effect.destructive !== undefined ? { destructiveHint: effect.destructive } : {}),
        ...(effect.idempotent !== undefined ? { idempotentHint: effect.idempotent } : {}),
      };
  return { ...(title ? { title } : {}), readOnlyHint: effect.readOnly, ...writes, openWorldHint: false };
}

/** Only what changes nothing may be re-sent after a daemon restart: it could have run already. */
export function replayOf(effect: Effect): ReplayVerdict {
  return effect.readOnly ? 'safe' : 'unsafe';
}

/** What a tool takes, as an error says it: each argument with its type. */
function takesText(rows: ToolArg[]): string {
  if (!rows.length) return 'It takes no arguments.';
  return `It takes: ${rows.map((a) => (a.type === 'any' ? a.name : `${a.name} (${a.type})`)).join(', ')}.`;
}

/** One zod issue as the sentence an agent can act on (which argument, what it must be). */
function explain(tool: string, rows: ToolArg[], args: Record<string, unknown>, issue: z.core.$ZodIssue): string {
  const key = String(issue.path[0] ?? '');
  const takes = takesText(rows);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `'${k}'`).join(', ');
    const guess =
      issue.keys.length === 1
        ? nearMiss(
            issue.keys[0],
            rows.map((a) => a.name),
          )
        : undefined;
    return `${tool}: no argument ${keys}${guess ? ` (did you mean '${guess}'?)` : ''}. ${takes}`;
  }
  if (!key) return `${tool}: ${issue.message}. ${takes}`;
  if (args[key] === undefined) return `${tool}: missing required argument '${key}'. ${takes}`;
  const must = mustBe(issue, args[key]);
  return must ? `${tool}: argument '${key}' ${must}.` : `${tool}: argument '${key}': ${issue.message}.`;
}

const ARG_TYPES: readonly string[] = ['string', 'number', 'integer', 'boolean', 'object', 'array'];

/** A JSON Schema's properties as the argument rows of a toolset (the first of several types; none: any). */
function argsOf(schema: { properties?: Record<string, Record<string, unknown>>; required?: string[] }): ToolArg[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const type = Array.isArray(p.type) ? p.type[0] : p.type;
    const arg: ToolArg = {
      name,
      type: typeof type === 'string' && ARG_TYPES.includes(type) ? (type as ArgType) : 'any',
      description: typeof p.description === 'string' ? p.description : '',
      required: required.has(name),
    };
    if (p.default !== undefined) arg.default = typeof p.default === 'string' ? p.default : JSON.stringify(p.default);
    return arg;
  });
}

/**
 * Arguments checked against a tool's schema, the one check every tool's arguments pass (an MCP
 * tool's, a bridge tool's, a game tool's from its manifest). null is how many clients say "not
 * given", so it is dropped, except for an argument that takes any value (a wait_for operand).
 * Returns the parsed arguments, or throws a BridgeUsageError naming the argument and what the
 * tool takes.
 */
export function checkArguments(
  tool: string,
  schema: z.ZodObject,
  rows: ToolArg[],
  raw: unknown,
): Record<string, unknown> {
  const args = raw ?? {};
  if (typeof args !== 'object' || Array.isArray(args)) throw usageError(`${tool}: arguments must be a JSON object.`);
  const anyValue = new Set(rows.filter((a) => a.type === 'any').map((a) => a.name));
  const given = Object.fromEntries(
    Object.entries(args as Record<string, unknown>).filter(
      ([k, v]) => v !== undefined && (v !== null || anyValue.has(k)),
    ),
  );
  const r = schema.safeParse(given);
  if (!r.success) throw usageError(explain(tool, rows, given, firstIssue(r.error.issues)));
  return r.data;
}

export interface ToolDeclaration<S extends z.ZodObject, X extends ToolCallExtra = ToolCallExtra> {
  name: string;
  title: string;
  description: string;
  /** the arguments; unknown extra keys are accepted (an agent's extra key is never worth a failure) */
  input: S;
  /** what it answers (shared/answers/): its outputSchema, its docs/TOOLS.md table, the CLI's type */
  output: z.ZodObject;
  effect: Effect;
  /** the replay verdict when it depends on the (raw, unchecked) arguments; default: from the effect */
  replay?(args: Record<string, unknown>, ctx: ToolContext): ReplayVerdict;
  handler(args: z.output<S>, ctx: ToolContext, extra: X): Promise<ToolAnswer>;
}

export function defineTool<S extends z.ZodObject, X extends ToolCallExtra = ToolCallExtra>(
  decl: ToolDeclaration<S, X>,
): ToolDef<X> {
  const schema = decl.input.loose();
  const inputSchema = clientJsonSchema(schema) as Tool['inputSchema'];
  const args = argsOf(inputSchema as Parameters<typeof argsOf>[0]);
  // every answer says which view the session sees with (sessions/session.ts puts it there)
  const output = answerWith(viewShape, decl.output);
  return {
    name: decl.name,
    effect: decl.effect,
    args,
    output,
    advertised: {
      name: decl.name,
      title: decl.title,
      description: decl.description,
      inputSchema,
      outputSchema: answerJsonSchema(output, truncatedAnswer, failureAnswer) as Tool['outputSchema'],
      annotations: annotationsOf(decl.effect, decl.title),
    },
    parse: (raw) => checkArguments(decl.name, schema, args, raw),
    replay: (args, ctx) => (decl.replay ? decl.replay(args, ctx) : replayOf(decl.effect)),
    run: (args, ctx, extra) => decl.handler(args as z.output<S>, ctx, extra),
  };
}

/** The `port` argument every game-facing tool takes. */
export const portArg = z
  .int()
  .min(1)
  .max(65535)
  .optional()
  .describe(
    "Game port. Default: the client's --port / GAME_BRIDGE_PORT, else the one game this session launched, else 7777.",
  );
