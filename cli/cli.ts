/**
 * The CLI (README.md, "The CLI"), parsed with yargs. Loaded only for subcommands, --help and --version:
 * the bare proxy never pays for it. Wrong usage (unknown command or flag, bad value) exits 2
 * with a one-line reason; a command that ran and found a problem exits 1. The subcommands
 * themselves are declared in cli/commands/.
 */
import yargs from 'yargs';
import { withSessionOptions } from '../shared/session-args.js';
import { VERSION } from '../shared/version.js';
import { isBridgeError } from '../shared/errors.js';
import { selfCommand } from '../shared/self-command.js';
import type { Subcommand } from './commands/subcommand.js';
import { daemonCommands } from './commands/daemon.js';
import { gameCommands } from './commands/games.js';
import { projectCommands } from './commands/project.js';
import { registerCommand } from './commands/register.js';
import { skillCommand } from './commands/skill.js';

/** Every subcommand, grouped as the help lists them: the daemon, a project's game, setting a project up. */
const SUBCOMMANDS: Subcommand[] = [...daemonCommands, ...gameCommands, ...projectCommands];
SUBCOMMANDS.push(registerCommand);
SUBCOMMANDS.push(skillCommand);

/** The subcommands' names (`logs <port>` is `logs`). */
export const COMMANDS = SUBCOMMANDS.map((c) => c.command.split(' ')[0]);

class UsageFailure extends Error {}

function usageFailure(line: string): void {
  process.stderr.write(`game-bridge-mcp: ${line}\n`);
  process.exitCode = 2;
}

export async function runCli(argv: string[]): Promise<void> {
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-') && !COMMANDS.includes(first)) {
    return usageFailure(
      `unknown command '${first}'. Commands: ${COMMANDS.join(', ')} (none: run the stdio MCP server). See ${selfCommand()} --help.`,
    );
  }
  let exitCode = 0;
  let cli = withSessionOptions(yargs(argv))
    .scriptName(selfCommand())
    .usage(
      '$0 [options]\n\n' +
        'The stdio MCP server an MCP client spawns: it finds or starts the game-bridge daemon and forwards MCP to it.\n' +
        `Register it with your client, e.g.: claude mcp add -s user game-bridge -- ${selfCommand()}`,
    )
    .example('$0', 'serve MCP on stdio (what MCP clients run)')
    .example('$0 --port 7820', 'default every call to the game on port 7820')
    .example('$0 --scan-range 7777,7800-7839 --eager', 'scan more ports; advertise every game tool flatly')
    .example('$0 --no-daemon', 'run the engine in this process, no daemon')
    .example('$0 doctor', 'find out what is wrong')
    .epilogue(
      'Environment: GAME_BRIDGE_HOME (default ~/.game-bridge), GAME_BRIDGE_PORT, GAME_BRIDGE_SCAN_RANGE, GAME_BRIDGE_LAUNCH_HINT, GAME_BRIDGE_MANIFEST, GAME_BRIDGE_CONFIG, GAME_BRIDGE_INSTANCES.',
    )
    .alias('h', 'help')
    .version(VERSION)
    .alias('v', 'version')
    .strict()
    .recommendCommands()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((msg, err) => {
      // Throwing is what stops yargs: a fail handler that returns lets the command run anyway.
      throw msg ? new UsageFailure(msg) : err;
    });
  for (const c of SUBCOMMANDS) {
    // Every subcommand rejects flags it does not know, so a typo never silently does something else.
    cli = cli.command(
      c.command,
      c.describe,
      (y) => c.builder(y.strict()),
      async (a) => {
        exitCode = (await c.run(a)) ?? 0;
      },
    );
  }
  try {
    await cli.parseAsync();
  } catch (e) {
    // Point at the help of the command that was used: that is where the missing detail is.
    const help = `${selfCommand()}${COMMANDS.includes(first ?? '') ? ` ${first}` : ''} --help`;
    if (e instanceof UsageFailure) return usageFailure(`${e.message}. See ${help}.`);
    if (isBridgeError(e) && e.kind === 'BridgeUsageError')
      return usageFailure(e.message.replace(`Run ${selfCommand()} --help`, `Run ${help}`));
    // an exception from a command handler: not a usage error
    process.stderr.write(`game-bridge-mcp: ${(e as Error)?.message ?? String(e)}\n`);
    process.exitCode = 1;
    return;
  }
  if (exitCode) process.exitCode = exitCode;
}
