/* eslint-disable max-lines -- over 250 lines once formatted; to be split (docs/DECISIONS.md, "Formatting") */
/**
 * The CLI (README.md, "The CLI"), parsed with yargs. Loaded only for subcommands, --help and --version:
 * the bare proxy never pays for it. Wrong usage (unknown command or flag, bad value) exits 2
 * with a one-line reason; a command that ran and found a problem exits 1.
 */
import yargs, { type Argv } from 'yargs';
import { parsePort, withSessionOptions } from '../shared/config.js';
import { bridgeHome, homePaths } from '../shared/paths.js';
import { VERSION } from '../shared/version.js';
import { isBridgeError } from '../shared/errors.js';
import { selfCommand } from '../shared/self-command.js';

export const COMMANDS = [
  'daemon',
  'status',
  'stop',
  'token',
  'dashboard',
  'doctor',
  'init',
  'demo',
  'launch',
  'logs',
] as const;

/** Every subcommand rejects flags it does not know, so a typo never silently does something else. */
const strict = <T>(y: Argv<T>) => y.strict();

class UsageFailure extends Error {}

function usageFailure(line: string): void {
  process.stderr.write(`game-bridge-mcp: ${line}\n`);
  process.exitCode = 2;
}

export async function runCli(argv: string[]): Promise<void> {
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-') && !(COMMANDS as readonly string[]).includes(first)) {
    return usageFailure(
      `unknown command '${first}'. Commands: ${COMMANDS.join(', ')} (none: run the stdio MCP server). See ${selfCommand()} --help.`,
    );
  }
  let exitCode = 0;
  const cli = withSessionOptions(yargs(argv))
    .scriptName(selfCommand())
    .usage(
      '$0 [options]\n\n' +
        'The stdio MCP server an MCP client spawns: it finds or starts the game-bridge daemon and forwards MCP to it.\n' +
        `Register it with your client, e.g.: claude mcp add -s user game-bridge -- ${selfCommand()}`,
    )
    .command(
      'daemon',
      'Run the daemon in the foreground (clients start it in the background on their own)',
      (y) =>
        strict(y)
          .option('port', {
            type: 'string',
            describe:
              'pin the daemon port, so an HTTP client can keep http://127.0.0.1:<port>/mcp (env GAME_BRIDGE_DAEMON_PORT)',
          })
          .example('$0 daemon', 'run the daemon here; logs go to <home>/daemon/daemon.log')
          .example('$0 daemon --port 7790', 'MCP over HTTP at http://127.0.0.1:7790/mcp')
          .example('GAME_BRIDGE_HOME=/tmp/gb $0 daemon', 'a separate daemon with its own home'),
      async (a) => {
        const port = a.port === undefined ? undefined : parsePort(a.port, 'daemon port');
        const { runDaemon } = await import('../daemon/main.js');
        await runDaemon({ port, foreground: true });
      },
    )
    .command(
      'token',
      "Print the bearer token HTTP clients send to the daemon's /mcp (created on first use, kept across daemon restarts)",
      (y) =>
        strict(y).example(
          '$0 token',
          'claude mcp add --transport http game-bridge http://127.0.0.1:7790/mcp --header "Authorization: Bearer $($0 token)"',
        ),
      async () => {
        const { readOrCreateToken } = await import('../shared/token.js');
        process.stdout.write(readOrCreateToken(homePaths(bridgeHome())) + '\n');
      },
    )
    .command(
      'status',
      'Show the daemon: pid, port, version, uptime, sessions, launched games (running and exited) and their owners',
      (y) =>
        strict(y)
          .option('json', {
            type: 'boolean',
            default: false,
            describe: "Print the daemon's facts as JSON instead of tables",
          })
          .example('$0 status', 'the running daemon as tables (exit 1 when none runs)')
          .example('$0 status --json', 'the same facts as JSON, for scripts'),
      async (a) => {
        const { runStatus } = await import('./admin.js');
        exitCode = await runStatus(a.json === true);
      },
    )
    .command(
      'launch',
      'Launch the game declared in gamebridge.json (from the current directory) through the daemon, showing its progress; it stays running for agents',
      (y) =>
        strict(y)
          .option('profile', {
            type: 'string',
            requiresArg: true,
            describe: 'A launch profile of gamebridge.json (launch.profiles)',
          })
          .option('count', {
            type: 'number',
            requiresArg: true,
            describe: 'Start this many instances at once ({index} = 0, 1, …); all or none',
          })
          .option('restart', {
            type: 'number',
            requiresArg: true,
            describe: 'Relaunch the game launched on this port (same declaration and profile, same port)',
          })
          .example('$0 launch', 'start the game, wait until it answers, print its port and pid')
          .example('$0 launch --profile server && $0 launch --profile client --count 3', 'a server and three clients')
          .example('$0 launch --restart 7820', 'restart the game on port 7820'),
      async (a) => {
        const { runLaunch } = await import('./launch.js');
        exitCode = await runLaunch({
          profile: a.profile as string | undefined,
          count: a.count as number | undefined,
          restart: a.restart as number | undefined,
          config: a.config as string | undefined,
        });
      },
    )
    .command(
      'logs <port>',
      "Print a launched game's log (running or exited); -f follows it",
      (y) =>
        strict(y)
          .positional('port', { type: 'number', describe: 'The port the game was launched on' })
          .option('follow', {
            alias: 'f',
            type: 'boolean',
            default: false,
            describe: 'Keep printing new output (and the next log when it is relaunched) until Ctrl-C',
          })
          .option('lines', {
            alias: 'n',
            type: 'number',
            default: 50,
            describe: 'How many of the last lines to print first',
          })
          .example('$0 logs 7820', 'the last 50 lines of the game on port 7820')
          .example('$0 logs 7820 -f', 'follow it'),
      async (a) => {
        const { runLogs } = await import('./logs.js');
        exitCode = await runLogs({ port: Number(a.port), lines: Number(a.lines), follow: a.follow === true });
      },
    )
    .command(
      'stop',
      'Stop the daemon; it first stops every game it launched',
      (y) =>
        strict(y)
          .example('$0 stop', 'stop the daemon of ~/.game-bridge')
          .example('GAME_BRIDGE_HOME=/tmp/gb $0 stop', 'stop the daemon of another home'),
      async () => {
        const { runStop } = await import('./admin.js');
        exitCode = await runStop();
      },
    )
    .command(
      'dashboard',
      'Print the URL of the live dashboard (games, sessions, calls) with a one-time key, and open it in a browser when there is a display',
      (y) =>
        strict(y)
          .option('open', { type: 'boolean', default: true, describe: '--no-open: only print the URL' })
          .example('$0 dashboard', 'print the URL and open it')
          .example('$0 dashboard --no-open', 'print the URL only (e.g. over SSH, then forward the port)'),
      async (a) => {
        const { runDashboard } = await import('./dashboard.js');
        exitCode = await runDashboard({ open: a.open !== false });
      },
    )
    .command(
      'doctor',
      'Check the home directory, the daemon, gamebridge.json, the scan range and the registry; print each problem with its fix',
      (y) =>
        strict(y)
          .option('dir', {
            type: 'string',
            requiresArg: true,
            describe: 'Resolve gamebridge.json from this directory (default: the current one)',
          })
          .option('config', {
            type: 'string',
            requiresArg: true,
            describe: 'Check this gamebridge.json instead of the one --dir resolves to',
          })
          .option('scan-range', {
            type: 'string',
            requiresArg: true,
            describe: 'Check this scan range instead of GAME_BRIDGE_SCAN_RANGE / the default',
          })
          .example('$0 doctor', 'check everything from the current directory')
          .example(
            '$0 doctor --dir ~/games/orbital',
            'which gamebridge.json that project resolves to, and whether it parses',
          )
          .epilogue('Exit code 0: no problems; 1: at least one problem (each printed with "fix:").'),
      async (a) => {
        const { runDoctor } = await import('./doctor.js');
        const { resolve } = await import('node:path');
        exitCode = await runDoctor({
          dir: resolve(String(a.dir ?? process.cwd())),
          config: a.config as string | undefined,
          scanRange: a['scan-range'] as string | undefined,
        });
      },
    )
    .command(
      'init',
      'Write a starter gamebridge.json (asks for the name and command on a terminal; asks nothing otherwise)',
      (y) =>
        strict(y)
          .option('dir', {
            type: 'string',
            requiresArg: true,
            describe: 'Write it in this directory (default: the current one)',
          })
          .option('force', { type: 'boolean', default: false, describe: 'Overwrite an existing gamebridge.json' })
          .option('name', { type: 'string', requiresArg: true, describe: 'Game name (default: the directory name)' })
          .option('command', {
            type: 'string',
            requiresArg: true,
            describe: 'Shell command that starts the game, with {port} where its debug port goes',
          })
          .option('port-range', {
            type: 'string',
            requiresArg: true,
            describe: 'Ports launches may use (default 7820-7839)',
          })
          .option('template', {
            choices: ['single', 'multiplayer'],
            default: 'single',
            describe: 'multiplayer: add a server profile and a client profile',
          })
          .example('$0 init', 'write ./gamebridge.json with a placeholder command')
          .example('$0 init --template multiplayer', 'with "server" and "client" launch profiles')
          .example(
            '$0 init --name "Orbital Freight" --command "./gradlew run -PdebugPort={port}"',
            'write it ready to use',
          )
          .example('$0 init --dir ../mygame --force', 'overwrite the one in ../mygame'),
      async (a) => {
        const { runInit } = await import('./init.js');
        exitCode = await runInit({
          dir: String(a.dir ?? process.cwd()),
          force: a.force === true,
          name: a.name as string | undefined,
          command: a.command as string | undefined,
          portRange: a['port-range'] as string | undefined,
          template: a.template === 'multiplayer' ? 'multiplayer' : 'single',
        });
      },
    )
    .command(
      'demo',
      'Launch the bundled example game and drive it end to end through a real MCP client (what npm run demo runs)',
      (y) =>
        strict(y)
          .option('port-range', {
            type: 'string',
            requiresArg: true,
            describe: 'Ports the demo game may use (default 7820-7839)',
          })
          .option('daemon', {
            type: 'boolean',
            default: true,
            describe: '--no-daemon: the engine runs inside the proxy process',
          })
          .option('web', {
            type: 'boolean',
            default: false,
            describe: 'Play the Phaser example in headless Chromium instead, and save a screenshot',
          })
          .option('screenshot', {
            type: 'string',
            requiresArg: true,
            describe: 'With --web: where the screenshot goes (default: the temp folder)',
          })
          .example('$0 demo', 'through the proxy and the daemon (started if needed)')
          .example('$0 demo --no-daemon', 'with the engine inside the proxy process instead')
          .example('$0 demo --web', 'a browser game (Phaser) in headless Chromium, with a screenshot'),
      async (a) => {
        if (a.web === true) {
          const { runWebDemo } = await import('./demo-web.js');
          exitCode = await runWebDemo({
            portRange: a['port-range'] as string | undefined,
            noDaemon: a.daemon === false,
            screenshot: a.screenshot as string | undefined,
          });
          return;
        }
        const { runDemo } = await import('./demo.js');
        exitCode = await runDemo({ portRange: a['port-range'] as string | undefined, noDaemon: a.daemon === false });
      },
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
  try {
    await cli.parseAsync();
  } catch (e) {
    // Point at the help of the command that was used: that is where the missing detail is.
    const help = `${selfCommand()}${(COMMANDS as readonly string[]).includes(first ?? '') ? ` ${first}` : ''} --help`;
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
