/**
 * `game-bridge-mcp status` for people: the daemon in one line, then its sessions, its running
 * games and the games that exited, as tables. `--json` prints the daemon's facts unchanged.
 */
import { daemonStatus, type DaemonStatus } from '../shared/answers/status.js';
import { printable } from './printable.js';
import { duration, since, table } from './table.js';

type Game = { port: number; pid: number; name: string; logFile: string };

/** A games table's columns: port, pid and game first, the log last, `middle` between. */
const gameColumns = (middle: string[]) => ['PORT', 'PID', 'GAME', ...middle, 'LOG'];

/** A game's row (running or exited) for gameColumns. */
const gameRow = (g: Game, middle: string[]) => [
  String(g.port),
  String(g.pid),
  String(g.name ?? ''),
  ...middle,
  String(g.logFile ?? ''),
];

/** Which standby waits to take over, if any (daemon/life/standby.ts). */
function standbyLine(standby: DaemonStatus['standby']): string {
  return standby
    ? `  standby pid ${printable(standby.pid)} (${printable(standby.kind)}): takes over if the daemon dies\n`
    : '';
}

/** The /status facts as text. */
export function statusText(answer: unknown, log: string): string {
  const facts = daemonStatus.parse(answer);
  const sessions = facts.sessions ?? [];
  const instances = facts.instances ?? [];
  const exited = facts.exited ?? [];
  const head =
    `game-bridge daemon ${printable(facts.version ?? '?')}: pid ${printable(facts.pid ?? '?')}, port ${printable(facts.port ?? '?')}, up ${duration(Number(facts.uptimeMs))}, ` +
    `${sessions.length} session(s), ${instances.length} game(s) running\n  home ${printable(facts.home ?? '?')}; log ${printable(log)}\n` +
    standbyLine(facts.standby);
  const short = (id: unknown) => (typeof id === 'string' ? id.slice(0, 8) : '-');
  return [
    head,
    'Sessions',
    table(
      ['SESSION', 'CLIENT PID', 'FOR', 'WORKING DIRECTORY'],
      sessions.map((s) => [short(s.id), String(s.pid ?? '-'), since(s.startedAt), String(s.cwd ?? '')]),
      'none (no MCP client is connected)',
    ),
    'Games running',
    table(
      gameColumns(['PROFILE', 'UP', 'OWNER']),
      instances.map((i) =>
        gameRow(i, [
          i.profile !== undefined ? `${i.profile} #${i.index ?? 0}` : '-',
          since(i.startedAt),
          i.owner === 'detached' ? 'detached' : short(i.owner),
        ]),
      ),
      'none (launch_instance, or game-bridge-mcp launch, starts one)',
    ),
    ...(exited.length
      ? [
          'Games that exited (until relaunched or pruned)',
          table(
            gameColumns(['HOW', 'RAN', 'WHEN']),
            exited.map((e) =>
              gameRow(e, [
                String(e.how),
                duration(Number(e.uptimeMs)),
                e.exitedAt ? `${since(e.exitedAt)} ago` : 'while no daemon ran',
              ]),
            ),
            '',
          ),
        ]
      : []),
  ].join('\n');
}
