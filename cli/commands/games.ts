/** The subcommands about a project's game: launch it through the daemon, read its log. */
import { parsePort } from '../../shared/config.js';
import { numberFlag, subcommand, switchFlag, textFlag } from './subcommand.js';

export const gameCommands = [
  subcommand({
    command: 'launch',
    describe:
      'Launch the game declared in gamebridge.json (from the current directory) through the daemon, showing its progress; it stays running for agents',
    options: {
      profile: textFlag('A launch profile of gamebridge.json (launch.profiles)'),
      count: numberFlag('Start this many instances at once ({index} = 0, 1, …); all or none'),
      restart: numberFlag('Relaunch the game launched on this port (same declaration and profile, same port)'),
    },
    run: async (a) => {
      // --config is a session option every command shares (shared/config.ts)
      const config = (a as { config?: unknown }).config as string | undefined;
      const { runLaunch } = await import('../launch.js');
      return runLaunch({ profile: a.profile, count: a.count, restart: a.restart, config });
    },
    examples: [
      ['$0 launch', 'start the game, wait until it answers, print its port and pid'],
      ['$0 launch --profile server && $0 launch --profile client --count 3', 'a server and three clients'],
      ['$0 launch --restart 7820', 'restart the game on port 7820'],
    ],
  }),
  subcommand({
    command: 'logs [port]',
    describe: "Print a launched game's log (running or exited); -f follows it",
    positionals: { port: { type: 'string', describe: 'The port the game was launched on' } },
    options: {
      follow: {
        ...switchFlag('Keep printing new output (and the next log when it is relaunched) until Ctrl-C'),
        alias: 'f',
      },
      lines: { alias: 'n', type: 'number', default: 50, describe: 'How many of the last lines to print first' },
    },
    run: async (a) => {
      const { runLogs } = await import('../logs.js');
      return runLogs({
        port: a.port === undefined ? undefined : parsePort(a.port),
        lines: Number(a.lines),
        follow: a.follow === true,
      });
    },
    examples: [
      ['$0 logs 7820', 'the last 50 lines of the game on port 7820'],
      ['$0 logs 7820 -f', 'follow it'],
    ],
  }),
];
