/** `skill`: write an agent skill (SKILL.md) for the project's game (cli/skill-md.ts). */
import { subcommand, switchFlag, textFlag } from './subcommand.js';

export const skillCommand = subcommand({
  command: 'skill',
  describe:
    "Write an agent skill (SKILL.md) for this project's game from its live manifest and composites (launches the game if none runs)",
  options: {
    out: textFlag('Write SKILL.md in this directory (default: .claude/skills/<game>/ beside gamebridge.json)'),
    config: textFlag('Use this gamebridge.json instead of the nearest one'),
    force: switchFlag('Replace a SKILL.md this command did not write'),
  },
  run: async (a) => {
    const { runSkill } = await import('../skill-md.js');
    return runSkill({ cwd: process.cwd(), out: a.out, config: a.config, force: a.force === true });
  },
  examples: [
    ['$0 skill', 'write .claude/skills/<game>/SKILL.md for the game gamebridge.json declares'],
    ['$0 skill --out docs/agent', 'write docs/agent/SKILL.md'],
  ],
});
