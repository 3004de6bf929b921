/**
 * 10. Concurrency: 10, 40 and 100 agents at once on one game, each its own client making
 * sequential get_state calls, through one daemon (N proxies) beside N --no-daemon servers.
 * Per level and mode: calls per second, p50 / p99 latency per call, and memory (the daemon's
 * RSS; the sum of the N in-process servers' RSS). Modes run one after the other, daemon first,
 * so the two never share the machine.
 */
import {
  connectMcp,
  daemonPid,
  freeRange,
  now,
  pct,
  round,
  rssMb,
  startGame,
  type Mcp,
  type Reaper,
} from './harness.js';
import { type BenchConfig, type Measurement, type Row } from './types.js';

const LEVELS = [10, 40, 100];

interface LevelFigures {
  callsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  rssMb: number;
}

/** `n` clients of `mode`, `calls` get_state each, all at once; the clients are closed after. */
async function level(
  r: Reaper,
  mode: 'proxy' | 'in-process',
  home: string,
  port: number,
  n: number,
  calls: number,
): Promise<LevelFigures> {
  const clients: Mcp[] = [];
  for (let i = 0; i < n; i++) clients.push(await connectMcp(r, mode, home));
  for (const c of clients) await c.call('call_tool', { port, name: 'get_state' }); // warm
  const took: number[] = [];
  const t0 = now();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < calls; i++) {
        const t = now();
        await c.call('call_tool', { port, name: 'get_state' });
        took.push(now() - t);
      }
    }),
  );
  const wall = now() - t0;
  const pids = mode === 'proxy' ? [daemonPid(home)!] : clients.map((c) => c.pid);
  const rss = pids.reduce((sum, pid) => sum + rssMb(pid).rss, 0);
  await Promise.all(clients.map((c) => c.close()));
  return {
    callsPerSecond: round((n * calls) / (wall / 1000), 0),
    p50Ms: round(pct(took, 50), 1),
    p99Ms: round(pct(took, 99), 1),
    rssMb: round(rss, 0),
  };
}

export async function measureConcurrency(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-conc-');
  const [port] = await freeRange(1);
  await startGame(r, port, home);
  const calls = cfg.quick ? 10 : 30;
  const levels = cfg.quick ? LEVELS.slice(0, 2) : LEVELS;
  const figures: Record<string, { daemon: LevelFigures; inProcess: LevelFigures }> = {};
  const rows: Row[] = [];
  for (const n of levels) {
    const daemon = await level(r, 'proxy', home, port, n, calls);
    const inProcess = await level(r, 'in-process', home, port, n, calls);
    figures[String(n)] = { daemon, inProcess };
    rows.push({
      id: '10 concurrency',
      what: `${n} clients × ${calls} get_state, proxy+daemon (calls/s, p50/p99, daemon RSS)`,
      value: `${daemon.callsPerSecond}/s, ${daemon.p50Ms}/${daemon.p99Ms} ms, ${daemon.rssMb} MB`,
      reference: `${n} --no-daemon servers`,
      vs: `${inProcess.callsPerSecond}/s, ${inProcess.p50Ms}/${inProcess.p99Ms} ms, ${inProcess.rssMb} MB in all`,
      met: null,
    });
  }
  return { name: 'concurrency', figures: { callsPerClient: calls, levels: figures }, rows };
}
