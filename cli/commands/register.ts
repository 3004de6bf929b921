/** `register`: add the bridge to a project's MCP client files (cli/register.ts). */
import { examples, subcommand, textFlag } from './subcommand.js';

export const registerCommand = subcommand({
  command: 'register',
  describe:
    "Add game-bridge to this project's MCP client configuration (.mcp.json for Claude Code; --client cursor or vscode for theirs), keeping every other server",
  builder: (y) =>
    y
      .option('dir', textFlag('The project directory (default: the current one)'))
      .option('client', {
        type: 'array',
        string: true,
        choices: ['claude', 'cursor', 'vscode'],
        default: ['claude'],
        describe:
          'Which clients to register with: claude (.mcp.json), cursor (.cursor/mcp.json), vscode (.vscode/mcp.json)',
      })
      .option('force', { type: 'boolean', default: false, describe: 'Replace a "game-bridge" entry that differs' })
      .epilogue(
        examples(
          ['$0 register', 'add game-bridge to ./.mcp.json'],
          ['$0 register --client cursor --client vscode', 'to .cursor/mcp.json and .vscode/mcp.json'],
        ),
      ),
  run: async (a) => {
    const { runRegister } = await import('../register.js');
    return runRegister({
      dir: String(a.dir ?? process.cwd()),
      clients: (a.client as Array<'claude' | 'cursor' | 'vscode'>) ?? ['claude'],
      force: a.force === true,
    });
  },
});
