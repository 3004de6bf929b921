/** Running a composite: its JSON schema, its per-instance context, and its error wrapping. */
import { isBridgeError, usageError } from '../../shared/errors.js';
import type { GameClient } from '../game/client.js';
import { defaultText, type GameTool, type Manifest, type ToolArg } from '../game/manifest.js';
import { commandAndSync } from '../sync/command.js';
import { sleep } from '../../shared/sleep.js';
import { summarise } from '../sync/summary.js';
import type { Composite, CompositeContext } from './types.js';

/** The toolset name under which list_toolsets and describe_toolset show a project's composites. */
export const COMPOSITES_TOOLSET = 'composites';

/** A composite seen as a game tool, so describe_toolset derives its JSON Schema the one way game tools get theirs. */
export function compositeAsTool(c: Composite): GameTool {
  const args = (c.args ?? []).map((a): ToolArg => {
    const d = defaultText(a.default);
    const arg: ToolArg = {
      name: a.name,
      type: a.type ?? 'any',
      description: a.description ?? '',
      required: a.required === true,
    };
    return d === undefined ? arg : { ...arg, default: d };
  });
  return { name: c.name, description: c.description, args, readOnly: c.readOnly === true, toolset: COMPOSITES_TOOLSET };
}

export interface CompositeDeps {
  port: number;
  client: GameClient;
  timeoutMs: number;
  /** the port's process generation (a change fails a pending sync) */
  generation: () => number;
  manifest: () => Promise<Manifest>;
  call: (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
  signal: AbortSignal;
}

export async function runComposite(
  c: Composite,
  args: Record<string, unknown>,
  deps: CompositeDeps,
): Promise<Record<string, unknown>> {
  const withDefaults: Record<string, unknown> = { ...args };
  for (const a of c.args ?? []) {
    if (withDefaults[a.name] === undefined && a.default !== undefined) withDefaults[a.name] = a.default;
    if (a.required && withDefaults[a.name] === undefined)
      throw usageError(`Composite '${c.name}' needs argument '${a.name}'.`);
  }
  const ctx: CompositeContext = {
    port: deps.port,
    args: withDefaults,
    state: () => deps.client.state(),
    health: () => deps.client.health(),
    command: (cmd, a = {}) => deps.client.command(cmd, a),
    commandAndSync: (cmd, a = {}) =>
      commandAndSync(deps.client, cmd, a, {
        timeoutMs: deps.timeoutMs,
        generation: deps.generation,
        signal: deps.signal,
      }),
    call: (tool, a = {}) => deps.call(tool, a),
    manifest: deps.manifest,
    summarise,
    sleep: (ms) => sleep(ms, deps.signal),
  };
  let value: unknown;
  try {
    value = await c.run(ctx);
  } catch (e) {
    // A composite that throws is a tool error with its message, never a dead session.
    if (isBridgeError(e)) throw e;
    throw usageError(
      `Composite '${c.name}' failed: ${e instanceof Error ? e.message : String(e)}. Fix the composite module, or call the game's tools directly.`,
      {},
      e,
    );
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if (v.state && typeof v.state === 'object' && 'command' in v) delete v.state; // a SyncResult: keep it small
    return v;
  }
  return { result: value === undefined ? null : value };
}
