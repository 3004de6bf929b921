/**
 * Composites (docs/COMPOSITES.md): a named routine that chains several commands or waits for what
 * /command cannot report. `ctx` is bound to one game instance.
 */
import type { CommandAnswer, Health, State } from '../game/client.js';
import type { Manifest } from '../game/manifest.js';
import type { SyncResult } from '../sync/command.js';
import type { Summary } from '../sync/summary.js';

export interface CompositeArg {
  name: string;
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';
  description?: string;
  required?: boolean;
  default?: unknown;
}

export interface CompositeContext {
  port: number;
  args: Record<string, unknown>;
  state(): Promise<State>;
  health(): Promise<Health>;
  /** fire and forget */
  command(cmd: string, args?: Record<string, unknown>): Promise<CommandAnswer>;
  /** send and wait until applied; returns the summarised state after it */
  commandAndSync(cmd: string, args?: Record<string, unknown>): Promise<SyncResult>;
  /** call any tool call_tool can reach (manifest, bridge, passthrough, other composites) */
  call(tool: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  manifest(): Promise<Manifest>;
  summarise(state: State): Summary;
  sleep(ms: number): Promise<void>;
}

export interface Composite {
  name: string;
  description: string;
  /** the games it serves, matched against the manifest's game.name; all games when absent */
  only?: string | string[];
  args?: CompositeArg[];
  /** true when it changes nothing in the game: then it is safe to re-send after a restart */
  readOnly?: boolean;
  run(ctx: CompositeContext): unknown | Promise<unknown>;
}
