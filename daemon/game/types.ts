/** The shapes a game's manifest is normalised into (manifest.ts), shared by the built-in bridge toolset. */

export type ArgType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'any';

export interface ToolArg {
  name: string;
  type: ArgType;
  description: string;
  required: boolean;
  /** the default as text ("true", "0.05"); absent when the game gave none (or null) */
  default?: string;
}

export interface GameTool {
  name: string;
  description: string;
  args: ToolArg[];
  readOnly: boolean;
  toolset: string;
  /** the manifest marks it as something a player does: a player-view session may call it */
  player?: true;
  /** a page's own WebMCP tool: its JSON Schema, shown and checked as the page gave it */
  inputSchema?: Record<string, unknown>;
  /** a page's own WebMCP tool whose output the page says may hold third-party content */
  untrustedContent?: true;
}

export interface Toolset {
  name: string;
  description: string;
  tools: GameTool[];
}

export interface Manifest {
  /**
   * inputs: the held inputs the game declares (docs/KITS.md), by name; axes: its analog axes
   * with their ranges; pointer, touch, text: it takes those inputs
   */
  game: {
    name?: string;
    version?: string;
    protocol?: number;
    inputs?: string[];
    axes?: { name: string; min: number; max: number }[];
    pointer?: boolean;
    touch?: boolean;
    text?: boolean;
  };
  toolsets: Toolset[];
  passthrough?: { description?: string; examples?: string[] };
  source: 'game' | 'file' | 'fallback';
  warnings: string[];
  /** set on a fallback: why there is no command list (e.g. the game answered 404 on /tools) */
  notice?: string;
}

export const BRIDGE_TOOLSET = 'bridge';
