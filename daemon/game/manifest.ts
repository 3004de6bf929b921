/**
 * The game's tool manifest (docs/CONTRACT.md, `GET /tools`), normalised into one shape.
 *
 * A manifest is written with whatever serializer the game has, so the reader is tolerant:
 * `toolsets` as an array or a map; arguments under `args`, `arguments` or `params`, as objects,
 * bare names or a map; defaults as strings, numbers or booleans. Anything it cannot make sense
 * of is dropped with a line in `warnings`; nothing here ever throws.
 *
 * One reader for every serializer's shape: one argument is read in manifest-args.ts; finding a
 * tool and its JSON Schema are in manifest-tools.ts. Decisions the contract leaves open:
 * - read-only: `readOnly`, `readonly`, `read_only` and `readOnlyHint` are all honoured, as
 *   `true` or the string "true" (serializers differ in casing; anything else means "may change
 *   the game", the safe reading for replay).
 * - a tool whose arguments cannot be parsed is dropped whole: advertising it with half its
 *   arguments would mislead the agent.
 * - a top-level `tools` list without `toolsets` becomes a toolset named `game`.
 * - what an agent is shown also lists the built-in `bridge` toolset (last), because every
 *   conformant game supports it: `mergeBridge` adds it, given the toolset the bridge declares
 *   (daemon/bridge/, a layer above this one). A game toolset named `bridge` is merged into it:
 *   the built-in tools win a name clash (the bridge implements them, so the game's version could
 *   never be reached), the game's other tools are added. A game tool with a bridge tool's name
 *   (`health`) in another toolset is kept; the toolset name tells them apart.
 */

import { BRIDGE_TOOLSET, type GameTool, type Manifest, type Toolset } from './types.js';
import { isObj, parseArgs, str, truthy, type Obj } from './manifest-args.js';
import { MANIFEST_FLAGS } from '../../shared/capabilities.js';

// The shapes, argument reading and tool lookup live in their own files; importers keep reading
// them from here.
export type { ArgType, ToolArg, GameTool, Toolset, Manifest } from './types.js';
export { BRIDGE_TOOLSET } from './types.js';
export { defaultText } from './manifest-args.js';
export { findTool, toolInputSchema } from './manifest-tools.js';

/** Read-only in any of the spellings serializers use (see the decisions above). */
function readOnlyFlag(o: Obj): boolean {
  return truthy(o.readOnly) || truthy(o.readonly) || truthy(o.read_only) || truthy(o.readOnlyHint);
}

/** One tool of a toolset, or undefined (with a warning) when it cannot be read. */
function parseTool(
  raw: unknown,
  toolset: string,
  nameFromKey: string | undefined,
  warnings: string[],
): GameTool | undefined {
  const where = `toolset '${toolset}'`;
  if (!isObj(raw)) {
    warnings.push(
      `Dropped a tool in ${where}${nameFromKey ? ` ('${nameFromKey}')` : ''}: it is ${raw === null ? 'null' : typeof raw}, not an object.`,
    );
    return undefined;
  }
  const name = raw.name ?? nameFromKey;
  if (typeof name !== 'string' || !name.trim()) {
    warnings.push(
      `Dropped a tool in ${where}: it has no name${name !== undefined ? ` (name is ${JSON.stringify(name)})` : ''}.`,
    );
    return undefined;
  }
  try {
    return {
      name: name.trim(),
      description: str(raw.description) ?? str(raw.desc) ?? '',
      args: parseArgs(raw),
      readOnly: readOnlyFlag(raw),
      toolset,
      ...(truthy(raw.player) ? { player: true as const } : {}),
    };
  } catch (e) {
    warnings.push(`Dropped tool '${name}' in ${where}: ${(e as Error).message}.`);
    return undefined;
  }
}

/** One toolset (its tools as a list or a map), or undefined (with a warning). */
function parseToolset(raw: unknown, nameFromKey: string | undefined, warnings: string[]): Toolset | undefined {
  // map form may hold the tools directly: {"play": [{...}, {...}]}
  const obj: Obj | undefined = Array.isArray(raw) ? { tools: raw } : isObj(raw) ? raw : undefined;
  if (!obj) {
    warnings.push(
      `Dropped toolset${nameFromKey ? ` '${nameFromKey}'` : ''}: it is ${raw === null ? 'null' : typeof raw}, not an object.`,
    );
    return undefined;
  }
  const name = obj.name ?? nameFromKey;
  if (typeof name !== 'string' || !name.trim()) {
    warnings.push('Dropped a toolset: it has no name.');
    return undefined;
  }
  const tsName = name.trim();
  const rawTools = obj.tools ?? obj.commands;
  const entries: [string | undefined, unknown][] = Array.isArray(rawTools)
    ? rawTools.map((t) => [undefined, t])
    : isObj(rawTools)
      ? Object.entries(rawTools)
      : [];
  if (rawTools !== undefined && rawTools !== null && !Array.isArray(rawTools) && !isObj(rawTools)) {
    warnings.push(`Toolset '${tsName}' has tools of type ${typeof rawTools}, not a list or a map; it is empty.`);
  }
  const tools: GameTool[] = [];
  for (const [key, t] of entries) {
    const tool = parseTool(t, tsName, key, warnings);
    if (!tool) continue;
    if (tools.some((x) => x.name === tool.name)) {
      warnings.push(`Dropped the second tool named '${tool.name}' in toolset '${tsName}'.`);
      continue;
    }
    tools.push(tool);
  }
  return { name: tsName, description: str(obj.description) ?? '', tools };
}

/** The `game` block: name, version, protocol, inputs, axes, pointer, touch, text; a bare string is the name. */
function parseGame(raw: unknown): Manifest['game'] {
  if (!isObj(raw)) return typeof raw === 'string' ? { name: raw } : {};
  const game: Manifest['game'] = {};
  const name = str(raw.name);
  const version = str(raw.version);
  const protocol =
    typeof raw.protocol === 'number'
      ? raw.protocol
      : typeof raw.protocol === 'string' && raw.protocol.trim() !== ''
        ? Number(raw.protocol)
        : undefined;
  if (name !== undefined) game.name = name;
  if (version !== undefined) game.version = version;
  if (protocol !== undefined && Number.isFinite(protocol)) game.protocol = protocol;
  if (Array.isArray(raw.inputs) && raw.inputs.length)
    game.inputs = raw.inputs.filter((i): i is string => typeof i === 'string');
  if (Array.isArray(raw.axes)) {
    const axes = raw.axes.flatMap((a) => {
      if (!isObj(a) || typeof a.name !== 'string') return [];
      const [min, max] = [Number(a.min), Number(a.max)];
      return Number.isFinite(min) && Number.isFinite(max) && min < max ? [{ name: a.name, min, max }] : [];
    });
    if (axes.length) game.axes = axes;
  }
  for (const k of MANIFEST_FLAGS) if (raw[k] === true) game[k] = true;
  return game;
}

/** The `passthrough` block: a description and examples; a bare string is the description. */
function parsePassthrough(raw: unknown): Manifest['passthrough'] {
  if (!isObj(raw)) return typeof raw === 'string' ? { description: raw } : undefined;
  const p: NonNullable<Manifest['passthrough']> = {};
  if (typeof raw.description === 'string') p.description = raw.description;
  if (Array.isArray(raw.examples)) p.examples = raw.examples.filter((e): e is string => typeof e === 'string');
  return p;
}

/** Any JSON a game served (or a file held) → a Manifest of the game's own toolsets. Never throws. */
export function readManifest(raw: unknown, source: 'game' | 'file' = 'game'): Manifest {
  const warnings: string[] = [];
  const m: Manifest = { game: {}, toolsets: [], source, warnings };
  if (!isObj(raw)) {
    warnings.push(
      `The manifest is ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}, not a JSON object; it lists no tools.`,
    );
  } else {
    m.game = parseGame(raw.game);
    const passthrough = parsePassthrough(raw.passthrough);
    if (passthrough) m.passthrough = passthrough;
    let rawSets = raw.toolsets;
    if (rawSets === undefined && raw.tools !== undefined) rawSets = [{ name: 'game', tools: raw.tools }];
    const entries: [string | undefined, unknown][] = Array.isArray(rawSets)
      ? rawSets.map((t) => [undefined, t])
      : isObj(rawSets)
        ? Object.entries(rawSets)
        : [];
    if (rawSets !== undefined && !Array.isArray(rawSets) && !isObj(rawSets)) {
      warnings.push(
        `The manifest's toolsets are a ${rawSets === null ? 'null' : typeof rawSets}, not a list or a map; it lists no tools.`,
      );
    }
    for (const [key, t] of entries) {
      const ts = parseToolset(t, key, warnings);
      if (!ts) continue;
      const same = m.toolsets.find((x) => x.name === ts.name);
      if (same) {
        // two toolsets with one name (a list written twice): merge, first tool of a name wins
        for (const tool of ts.tools) {
          if (same.tools.some((x) => x.name === tool.name))
            warnings.push(`Dropped the second tool named '${tool.name}' in toolset '${ts.name}'.`);
          else same.tools.push(tool);
        }
        continue;
      }
      m.toolsets.push(ts);
    }
  }
  return m;
}

/** The manifest with the bridge's toolset appended, a game-defined `bridge` toolset merged into it. */
export function mergeBridge(m: Manifest, bridgeToolset: Toolset): Manifest {
  const bridge: Toolset = { ...bridgeToolset, tools: [...bridgeToolset.tools] };
  const warnings = [...m.warnings];
  const fromGame = m.toolsets.find((t) => t.name === BRIDGE_TOOLSET);
  if (fromGame) {
    for (const tool of fromGame.tools) {
      if (bridge.tools.some((b) => b.name === tool.name)) {
        warnings.push(
          `The game's tool '${tool.name}' in toolset 'bridge' is shadowed by the built-in bridge tool of that name; put it in another toolset to reach it.`,
        );
      } else bridge.tools.push(tool);
    }
  }
  return { ...m, toolsets: [...m.toolsets.filter((t) => t !== fromGame), bridge], warnings };
}

/** The manifest used when the game publishes none: no toolset of its own. */
export function emptyManifest(notice?: string): Manifest {
  const m: Manifest = { game: {}, toolsets: [], source: 'fallback', warnings: [] };
  if (notice) m.notice = notice;
  return m;
}
