/**
 * The skills of the running games, as the places that offer them besides call_tool see them:
 * the MCP prompts (`skill_<name>`), the flat tools of --eager and SKILL.md's listing. One skill
 * per game, with its effect and its arguments as a game tool's.
 */
import { compositeAsTool } from '../composites/run.js';
import type { GameTool } from '../game/manifest.js';
import { gameSkills } from '../bridge/skill-check.js';
import { SKILLS_TOOLSET, type Skill } from '../skills/skill-file.js';
import type { ToolContext } from '../tool-framework/context.js';
import { resolveGameTool } from './game-tool.js';
import { listSeen } from './list-instances.js';

export interface SkillOffer {
  port: number;
  game: string | null;
  skill: Skill;
  readOnly: boolean;
  /** its arguments as a game tool's (toolset `skills`) */
  tool: GameTool;
}

/** The skills of one live game. */
export async function skillsOfPort(ctx: ToolContext, port: number, game?: string | null): Promise<SkillOffer[]> {
  const m = await ctx.manifest(port).catch(() => undefined);
  if (!m) return [];
  const { skills } = gameSkills(ctx, port, m.game.name);
  return skills.map((skill) => {
    const readOnly = resolveGameTool(skill.name, m, undefined, skills).readOnly;
    const tool = { ...compositeAsTool({ ...skill, run: () => undefined }), readOnly, toolset: SKILLS_TOOLSET };
    return { port, game: game ?? m.game.name ?? null, skill, readOnly, tool };
  });
}

/** The skills of every live game this session sees, ports in order. */
export async function skillOffers(ctx: ToolContext): Promise<SkillOffer[]> {
  const found = await listSeen(ctx).catch(() => undefined);
  const live = [...(found?.live ?? [])].sort((a, b) => a.port - b.port);
  return (await Promise.all(live.map((inst) => skillsOfPort(ctx, inst.port, inst.game)))).flat();
}
