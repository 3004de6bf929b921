/**
 * How a bridge tool is declared (CONTRIBUTING.md, "Add a bridge tool"): `bridgeTool` takes what
 * `defineTool` takes, plus what the tool needs of its game. From that one declaration come its
 * description's last sentence, the one capability check before its handler runs (needs.ts),
 * the start of its answer, `{port, tool, via: 'bridge'}`, whether a player view may call it
 * (tools/player-calls.ts) and what a saved test records of a call (tools/record-call.ts).
 */
import { defineTool, z, type ToolDeclaration } from '../tool-framework/define.js';
import { answerWith, bridgeShape } from '../../shared/answers/fields.js';
import type { ToolCallExtra, ToolDef } from '../tool-framework/types.js';
import { needsSentence, requireCapabilities, type Need } from './needs.js';

/** What a bridge tool's handler is given beside the call's extras: the port of the game it acts on. */
export interface BridgeCall extends ToolCallExtra {
  port: number;
  /** call_tool's own dispatch (on that port, or `on`), for a tool that makes recorded calls again (rewind) */
  call?: (name: string, args: Record<string, unknown>, on?: number) => Promise<Record<string, unknown>>;
}

/**
 * What a session's recording keeps of a call, for save_test: a `do` step (it changes the game; a
 * replay makes it again), a `check` step (its condition and whether it held), or nothing (it
 * changes nothing a replay needs: a read, or work on tests and skills).
 */
export type Recorded = 'do' | 'check' | false;

/** What every bridge tool says of itself beyond how it runs. */
interface BridgeNature {
  /** a player could do it (docs/TOOLS.md, "The player view"): a `--view player` session may call it */
  player: boolean;
  /** what a saved test records of a call (`step {until}` is a check as well) */
  recorded: Recorded;
}

export interface BridgeToolDeclaration<S extends z.ZodObject> extends ToolDeclaration<S, BridgeCall>, BridgeNature {
  /** what it needs of its game beyond the contract: checked before the handler, named in the description */
  needs?: Need;
  /** when its arguments decide what it needs (snapshot's `tree`): what is checked instead of `needs` */
  needsOf?(args: z.output<S>): Need[];
  /** false: it acts on no game already on the port (run_test launches its own), so its answer names no port */
  onPort?: false;
}

/** A declared bridge tool, as call_tool resolves and runs it. */
export interface BridgeTool extends ToolDef<BridgeCall>, BridgeNature {
  needs?: Need;
  onPort: boolean;
}

export function bridgeTool<S extends z.ZodObject>({
  needs,
  needsOf,
  onPort,
  player,
  recorded,
  ...decl
}: BridgeToolDeclaration<S>): BridgeTool {
  const checked = needsOf ?? (() => (needs ? [needs] : []));
  const def = defineTool<S, BridgeCall>({
    ...decl,
    description: decl.description + (needs ? needsSentence(needs) : ''),
    // the handler's answer goes after {port, tool, via}: it may say `via` otherwise
    output: answerWith(bridgeShape, decl.output),
    async handler(args, ctx, call) {
      await requireCapabilities(ctx, call.port, checked(args), decl.name);
      const answer = await decl.handler(args, ctx, call);
      const base =
        onPort === false ? { tool: decl.name, via: 'bridge' } : { port: call.port, tool: decl.name, via: 'bridge' };
      return { ...answer, json: { ...base, ...answer.json } };
    },
  });
  return { ...def, ...(needs ? { needs } : {}), onPort: onPort !== false, player, recorded };
}

/**
 * A family of bridge tools (families/): its tools, in the order describe_toolset lists them, and
 * its clause of the toolset's description, which says what they do and on which games.
 */
export interface BridgeFamily {
  name: string;
  clause: string;
  tools: readonly BridgeTool[];
}
