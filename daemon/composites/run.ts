/** Running a composite: its JSON schema, its per-instance context, and its error wrapping. */
import { BridgeError, isBridgeError, usageError } from '../../shared/errors.js';
import type { GameClient } from '../game/client.js';
import type { Manifest } from '../game/manifest.js';
import { commandAndSync } from '../sync/command.js';
import { sleep } from '../sync/poll.js';
import { summarise } from '../sync/summary.js';
import type { Composite, CompositeContext } from './types.js';

export function compositeSchema(c: Composite) {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const a of c.args ?? []) {
    const desc = [a.description ?? '', a.default !== undefined ? `Default: ${String(a.default)}.` : ''].filter(Boolean).join(' ');
    properties[a.name] = { ...(a.type ? { type: a.type } : {}), ...(desc ? { description: desc } : {}) };
    if (a.required) required.push(a.name);
  }
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
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

export async function runComposite(c: Composite, args: Record<string, unknown>, deps: CompositeDeps): Promise<Record<string, unknown>> {
  const withDefaults: Record<string, unknown> = { ...args };
  for (const a of c.args ?? []) {
    if (withDefaults[a.name] === undefined && a.default !== undefined) withDefaults[a.name] = a.default;
    if (a.required && withDefaults[a.name] === undefined) throw usageError(`Composite '${c.name}' needs argument '${a.name}'.`);
  }
  const ctx: CompositeContext = {
    port: deps.port,
    args: withDefaults,
    state: () => deps.client.state(),
    health: () => deps.client.health(),
    command: (cmd, a = {}) => deps.client.command(cmd, a),
    commandAndSync: (cmd, a = {}) => commandAndSync(deps.client, cmd, a, { timeoutMs: deps.timeoutMs, generation: deps.generation, signal: deps.signal }),
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
    throw new BridgeError('BridgeUsageError', `Composite '${c.name}' failed: ${e instanceof Error ? e.message : String(e)}. Fix the composite module, or call the game's tools directly.`);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if (v.state && typeof v.state === 'object' && 'command' in v) delete v.state; // a SyncResult: keep it small
    return v;
  }
  return { result: value === undefined ? null : value };
}
