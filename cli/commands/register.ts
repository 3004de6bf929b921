/** `register`: add the bridge to a project's MCP client files (cli/client-config.ts). */
import { clientsFlag, subcommand, switchFlag, textFlag } from './subcommand.js';

export const registerCommand = subcommand({
  command: 'register',
  describe:
    "Add game-bridge to this project's MCP client configuration (.mcp.json for Claude Code; --client cursor or vscode for theirs), keeping every other server",
  options: {
    dir: textFlag('The project directory (default: the current one)'),
    client: clientsFlag(
      'Which clients to register with: claude (.mcp.json), cursor (.cursor/mcp.json), vscode (.vscode/mcp.json)',
    ),
    force: switchFlag('Replace a "game-bridge" entry that differs'),
  },
  run: async (a) => {
    const { runRegister } = await import('../client-config.js');
    return runRegister({
      dir: String(a.dir ?? process.cwd()),
      clients: a.client ?? ['claude'],
      force: a.force === true,
    });
  },
  examples: [
    ['$0 register', 'add game-bridge to ./.mcp.json'],
    ['$0 register --client cursor --client vscode', 'to .cursor/mcp.json and .vscode/mcp.json'],
  ],
});
