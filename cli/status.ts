/**
 * `game-bridge-mcp status` for people: the daemon in one line, then its sessions, its running
 * games and the games that exited, as tables. `--json` prints the daemon's facts unchanged.
 */
import { duration, since, table } from './table.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers read field by field for printing; their shapes are in docs/TOOLS.md
type Json = Record<string, any>;

/** The /status facts as text. */
export function statusText(facts: Json, log: string): string {
  const sessions = (facts.sessions ?? []) as Json[];
  const instances = (facts.instances ?? []) as Json[];
  const exited = (facts.exited ?? []) as Json[];
  const head =
    `game-bridge daemon ${facts.version ?? '?'}: pid ${facts.pid ?? '?'}, port ${facts.port ?? '?'}, up ${duration(Number(facts.uptimeMs))}, ` +
    `${sessions.length} session(s), ${instances.length} game(s) running\n  home ${facts.home ?? '?'}; log ${log}\n`;
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
      ['PORT', 'PID', 'GAME', 'PROFILE', 'UP', 'OWNER', 'LOG'],
      instances.map((i) => [
        String(i.port),
        String(i.pid),
        String(i.name ?? ''),
        i.profile !== undefined ? `${i.profile} #${i.index ?? 0}` : '-',
        since(i.startedAt),
        i.owner === 'detached' ? 'detached' : short(i.owner),
        String(i.logFile ?? ''),
      ]),
      'none (launch_instance, or game-bridge-mcp launch, starts one)',
    ),
    ...(exited.length
      ? [
          'Games that exited (until relaunched or pruned)',
          table(
            ['PORT', 'PID', 'GAME', 'HOW', 'RAN', 'WHEN', 'LOG'],
            exited.map((e) => [
              String(e.port),
              String(e.pid),
              String(e.name ?? ''),
              String(e.how),
              duration(Number(e.uptimeMs)),
              e.exitedAt ? `${since(e.exitedAt)} ago` : 'while no daemon ran',
              String(e.logFile ?? ''),
            ]),
            '',
          ),
        ]
      : []),
  ].join('\n');
}
