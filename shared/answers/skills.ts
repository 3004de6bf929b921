/** What the tools of skills answer (docs/TOOLS.md is written from these). */
import { z } from './fields.js';

/** What keeping a skill answers. */
const skillKeptShape = {
  name: z.string().describe("the skill's name, the one call_tool runs it by"),
  file: z.string().describe('the file written'),
  only: z.string().describe("the game it serves (the manifest's `game.name`), or `null` for every game"),
  args: z.array(z.string()).describe("its arguments' names"),
  steps: z.number().describe('how many top-level steps it has'),
  summary: z.string().describe('one sentence saying the above, and how to call it'),
};

/** What define_skill answers. */
export const defineSkillAnswer = z.object(skillKeptShape).loose();

/** What skill_from_session answers. */
export const skillFromSessionAnswer = z
  .object({
    ...skillKeptShape,
    skill: z
      .object({
        gamebridgeSkill: z.number().describe('the format version'),
        name: z.string().describe('its name'),
        description: z.string().describe('when to use it'),
        only: z.string().describe('the game it serves'),
        args: z.array(z.unknown()).describe('its arguments: name, type, default'),
        steps: z.array(z.unknown()).describe('its steps'),
      })
      .loose()
      .describe('the skill as written to its file'),
  })
  .loose();

/** What delete_skill answers. */
export const deleteSkillAnswer = z
  .object({
    name: z.string().describe("the skill's name"),
    file: z.string().describe('the file deleted'),
    deleted: z.boolean().describe('`true`'),
  })
  .loose();
