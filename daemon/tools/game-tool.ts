/**
 * What a call_tool name is on a game, decided in one place for the two paths that ask: the
 * replay verdict (call-tool.ts callToolVerdict, from what is already known, at once) and the
 * dispatch (call-tool.ts callGameTool, after asking the game). In order:
 *   1. a bridge tool that acts on no game of the port's (run_test): the port's game has no say;
 *   2. a composite (it shadows a game command of the same name);
 *   3. a skill of the project for this game (define_skill refuses a name the game already has);
 *   4. a tool of the game's manifest, the bridge toolset merged in after the game's own
 *      toolsets (so a game's own tool of a bridge tool's name wins, and 'bridge.name' picks the
 *      built-in one);
 *   5. a page's own WebMCP tool (the toolset `webmcp`, merged in after the game's own toolsets
 *      and never under a name they or the bridge toolset already use: bridge/webmcp-toolset.ts);
 *   6. anything else: a raw command passed through.
 */
import { BRIDGE_TOOLSET, findTool, type GameTool, type Manifest } from '../game/manifest.js';
import { bridgeToolNamed, fallbackManifest } from '../bridge/index.js';
import type { BridgeTool } from '../bridge/declare.js';
import { WEBMCP_TOOLSET } from '../bridge/webmcp-toolset.js';
import { gameSkills } from '../bridge/skill-check.js';
import type { Composite } from '../composites/types.js';
import type { Skill } from '../skills/skill-file.js';
import type { ToolContext } from '../tool-framework/context.js';

export type GameToolRef =
  | { kind: 'bridge'; readOnly: boolean; tool: BridgeTool }
  | { kind: 'composite'; readOnly: boolean; composite: Composite }
  | { kind: 'skill'; readOnly: boolean; skill: Skill }
  | { kind: 'manifest'; readOnly: boolean; tool: GameTool }
  | { kind: 'webmcp'; readOnly: boolean; tool: GameTool }
  | { kind: 'passthrough'; readOnly: false };

/** Before any manifest is known, the bridge toolset (every game has it) still answers for its own tools. */
const BRIDGE_ONLY = fallbackManifest();

/** How deep the effect of skills calling skills is followed; deeper counts as game-affecting. */
const MAX_SKILL_DEPTH = 8;

const bare = (name: string) => (name.startsWith(`${BRIDGE_TOOLSET}.`) ? name.slice(BRIDGE_TOOLSET.length + 1) : name);

/** A bridge tool that acts on no game of the port's, by its name (with or without 'bridge.'). */
function portless(name: string): BridgeTool | undefined {
  const tool = bridgeToolNamed(bare(name));
  return tool && !tool.onPort ? tool : undefined;
}

/**
 * What `name` is, from what is known of the game: its manifest (none yet: the bridge toolset
 * only), a composite of that name, and the project's skills for the game. A skill is read-only
 * when every tool it calls is (its strongest effect); a composite it calls counts as
 * game-affecting unless declared read-only where it is found first.
 */
export function resolveGameTool(
  name: string,
  manifest: Manifest | undefined,
  composite?: Composite,
  skills: readonly Skill[] = [],
  depth = 0,
): GameToolRef {
  const own = portless(name);
  if (own) return { kind: 'bridge', readOnly: own.effect.readOnly, tool: own };
  if (composite) return { kind: 'composite', readOnly: composite.readOnly === true, composite };
  const skill = skills.find((s) => s.name === name);
  if (skill)
    return { kind: 'skill', readOnly: depth < MAX_SKILL_DEPTH && skillReadOnly(skill, manifest, skills, depth), skill };
  const row = findTool(manifest ?? BRIDGE_ONLY, name);
  const bridge = row?.toolset === BRIDGE_TOOLSET ? bridgeToolNamed(row.name) : undefined;
  if (bridge) return { kind: 'bridge', readOnly: bridge.effect.readOnly, tool: bridge };
  if (row?.toolset === WEBMCP_TOOLSET) return { kind: 'webmcp', readOnly: row.readOnly, tool: row };
  if (row) return { kind: 'manifest', readOnly: row.readOnly === true, tool: row };
  return { kind: 'passthrough', readOnly: false };
}

function skillReadOnly(skill: Skill, manifest: Manifest | undefined, skills: readonly Skill[], depth: number): boolean {
  const names: string[] = [];
  const walk = (steps: Skill['steps']) => {
    for (const s of steps) {
      if ('do' in s) names.push(s.name);
      else if ('if' in s) {
        walk(s.then);
        if (s.else) walk(s.else);
      } else if ('repeat' in s) walk(s.steps);
    }
  };
  walk(skill.steps);
  return names.every((n) => n !== skill.name && resolveGameTool(n, manifest, undefined, skills, depth + 1).readOnly);
}

/**
 * What `name` is on the game on `port`, asked of the game: its manifest (refetched once on a
 * miss: the game may have gained a command), the composites that serve it and the project's
 * skills for it. Returns the manifest it decided from, for the passthrough's error; none for a
 * portless tool.
 */
export async function resolveOnGame(
  ctx: ToolContext,
  port: number,
  name: string,
): Promise<{ ref: GameToolRef; manifest?: Manifest }> {
  const own = portless(name);
  if (own) return { ref: resolveGameTool(name, undefined) };
  let manifest = await ctx.manifest(port);
  const composite = await ctx.composites.find(name, manifest.game.name);
  const { skills } = gameSkills(ctx, port, manifest.game.name);
  let ref = resolveGameTool(name, manifest, composite, skills);
  if (ref.kind === 'passthrough' && manifest.source !== 'fallback') {
    ctx.cache.invalidate(port);
    manifest = await ctx.manifest(port);
    ref = resolveGameTool(name, manifest, undefined, skills);
  }
  return { ref, manifest };
}
