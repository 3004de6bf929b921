/**
 * The subcommands about the daemon itself: run it in the foreground, print its token, show its
 * status, stop it, and open its dashboard.
 */
import { parsePort } from '../../shared/config.js';
import { bridgeHome, homePaths } from '../../shared/paths.js';
import { subcommand, switchFlag } from './subcommand.js';

export const daemonCommands = [
  subcommand({
    command: 'daemon',
    describe: 'Run the daemon in the foreground (clients start it in the background on their own)',
    options: {
      port: {
        type: 'string',
        describe:
          'pin the daemon port, so an HTTP client can keep http://127.0.0.1:<port>/mcp (env GAME_BRIDGE_DAEMON_PORT)',
      },
    },
    run: async (a) => {
      const port = a.port === undefined ? undefined : parsePort(a.port, 'daemon port');
      const { runDaemon } = await import('../../daemon/life/main.js');
      await runDaemon({ port, foreground: true });
    },
    examples: [
      ['$0 daemon', 'run the daemon here; logs go to <home>/daemon/daemon.log'],
      ['$0 daemon --port 7790', 'MCP over HTTP at http://127.0.0.1:7790/mcp'],
      ['GAME_BRIDGE_HOME=/tmp/gb $0 daemon', 'a separate daemon with its own home'],
    ],
  }),
  subcommand({
    command: 'token',
    describe:
      "Print the bearer token HTTP clients send to the daemon's /mcp (created on first use, kept across daemon restarts)",
    run: async () => {
      const { readOrCreateToken } = await import('../../shared/token.js');
      process.stdout.write(readOrCreateToken(homePaths(bridgeHome())) + '\n');
    },
    examples: [
      [
        '$0 token',
        'claude mcp add --transport http game-bridge http://127.0.0.1:7790/mcp --header "Authorization: Bearer $($0 token)"',
      ],
    ],
  }),
  subcommand({
    command: 'status',
    describe:
      'Show the daemon: pid, port, version, uptime, sessions, launched games (running and exited) and their owners',
    options: { json: switchFlag("Print the daemon's facts as JSON instead of tables") },
    run: async (a) => {
      const { runStatus } = await import('../admin.js');
      return runStatus(a.json === true);
    },
    examples: [
      ['$0 status', 'the running daemon as tables (exit 1 when none runs)'],
      ['$0 status --json', 'the same facts as JSON, for scripts'],
    ],
  }),
  subcommand({
    command: 'stop',
    describe: 'Stop the daemon; it first stops every game it launched',
    run: async () => {
      const { runStop } = await import('../admin.js');
      return runStop();
    },
    examples: [
      ['$0 stop', 'stop the daemon of ~/.game-bridge'],
      ['GAME_BRIDGE_HOME=/tmp/gb $0 stop', 'stop the daemon of another home'],
    ],
  }),
  subcommand({
    command: 'dashboard',
    describe:
      'Print the URL of the live dashboard (games, sessions, calls) with a one-time key, and open it in a browser when there is a display',
    options: { open: switchFlag('--no-open: only print the URL', true) },
    run: async (a) => {
      const { runDashboard } = await import('../dashboard.js');
      return runDashboard({ open: a.open !== false });
    },
    examples: [
      ['$0 dashboard', 'print the URL and open it'],
      ['$0 dashboard --no-open', 'print the URL only (e.g. over SSH, then forward the port)'],
    ],
  }),
];
