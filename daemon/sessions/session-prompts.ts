/**
 * A session's MCP prompts: the bridge's own (daemon/prompts/prompts.ts) and one per skill of a
 * running game (daemon/prompts/skill-prompts.ts), the skills read afresh on every request.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { toBridgeError } from '../../shared/errors.js';
import { getPrompt, listPrompts } from '../prompts/prompts.js';
import { getSkillPrompt, listSkillPrompts, SKILL_PROMPT_PREFIX } from '../prompts/skill-prompts.js';
import type { ToolContext } from '../tool-framework/context.js';
import { skillOffers } from '../tools/skill-offers.js';

export function installPrompts(server: Server, ctx: ToolContext): void {
  server.setRequestHandler('prompts/list', async () => ({
    prompts: [...listPrompts(), ...listSkillPrompts(await skillOffers(ctx))],
  }));
  server.setRequestHandler('prompts/get', async (req) => {
    try {
      const args = req.params.arguments ?? {};
      const skill = req.params.name.startsWith(SKILL_PROMPT_PREFIX)
        ? getSkillPrompt(req.params.name, await skillOffers(ctx), args)
        : undefined;
      return skill ?? getPrompt(req.params.name, args);
    } catch (e) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, toBridgeError(e).text);
    }
  });
}
