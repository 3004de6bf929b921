/**
 * The CLI (docs/CLI.md), parsed with yargs. Loaded only for subcommands, --help and --version:
 * the bare proxy never pays for it. Wrong usage (unknown command or flag, bad value) exits 2
 * with a one-line reason; a command that ran and found a problem exits 1. The subcommands
 * themselves are declared in cli/commands/.
 */
import yargs from 'yargs';
import { withSessionOptions } from '../shared/session-args.js';
import { VERSION } from '../shared/version.js';
import { isBridgeError } from '../shared/errors.js';
import { selfCommand } from '../shared/self-command.js';
import { printableLines } from './printable.js';
import { examples, type Subcommand } from './commands/subcommand.js';
import { daemonCommands } from './commands/daemon.js';
import { gameCommands } from './commands/games.js';
import { projectCommands } from './commands/project.js';
import { testCommands } from './commands/test.js';
import { registerCommand } from './commands/register.js';
import { skillCommand } from './commands/skill.js';

/** Every subcommand, grouped as the help lists them: the daemon, a project's game, setting a project up. */
export const SUBCOMMANDS: Subcommand[] = [...daemonCommands, ...gameCommands, ...projectCommands, ...testCommands];
SUBCOMMANDS.push(registerCommand);
SUBCOMMANDS.push(skillCommand);

/** The subcommands' names (`logs <port>` is `logs`). */
export const COMMANDS = SUBCOMMANDS.map((c) => c.command.split(' ')[0]);

class UsageFailure extends Error {}

function usageFailure(line: string): void {
  process.stderr.write(`game-bridge-mcp: ${printableLines(line)}\n`);
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
        'The stdio MCP server an MCP client spawns: it finds or starts the game-bridge daemon\n' +
        'and forwards MCP to it. Register it with your client, e.g.:\n' +
        `  claude mcp add -s user game-bridge -- ${selfCommand()}\n` +
        'See what the agent does, live: $0 dashboard\n\n' +
        // the commands listed like the examples, each whole on its own line (yargs's table wraps them)
        ['Commands (each has --help):', ...SUBCOMMANDS.map((c) => `  $0 ${c.command}\n      ${c.describe}`)].join('\n'),
    )
    .epilogue(
      examples(
        ['$0', 'serve MCP on stdio (what MCP clients run)'],
        ['$0 --port 7820', 'default every call to the game on port 7820'],
        ['$0 --scan-range 7777,7800-7839 --eager', 'scan more ports; advertise every game tool flatly'],
        ['$0 --no-daemon', 'run the engine in this process, no daemon'],
        ['$0 doctor', 'find out what is wrong'],
      ),
    )
    .epilogue(
      '\nEnvironment: GAME_BRIDGE_HOME (default ~/.game-bridge), GAME_BRIDGE_PORT, GAME_BRIDGE_SCAN_RANGE,\n' +
        'GAME_BRIDGE_LAUNCH_HINT, GAME_BRIDGE_MANIFEST, GAME_BRIDGE_CONFIG, GAME_BRIDGE_INSTANCES.',
    )
    .alias('h', 'help')
    .version(VERSION)
    .alias('v', 'version')
    .strict()
    .recommendCommands()
    // No wrapping: yargs wraps a table's first column at half the width, which breaks a clone's
    // `node <abs path>/dist/proxy/main.js` mid-path; unwrapped, each command is one copyable line.
    .wrap(null)
    .exitProcess(false)
    .fail((msg, err) => {
      // Throwing is what stops yargs: a fail handler that returns lets the command run anyway.
      throw msg ? new UsageFailure(msg) : err;
    });
  for (const c of SUBCOMMANDS) {
    // Every subcommand rejects flags it does not know, so a typo never silently does something else.
    // Listed in the usage text above, so yargs's own table (describe: false) stays out of the help.
    cli = cli.command(
      c.command,
      false,
      (y) => c.builder(y.strict().usage(`$0 ${c.command}\n\n${c.describe}`)),
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
    process.stderr.write(`game-bridge-mcp: ${printableLines((e as Error)?.message ?? String(e))}\n`);
    process.exitCode = 1;
    return;
  }
  if (exitCode) process.exitCode = exitCode;
}
