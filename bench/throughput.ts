/**
 * 6. Throughput: N concurrent clients, each making sequential call_tool get_state calls on one
 * 60 fps game, through one daemon (N proxies) vs the same load in-process (N --no-daemon
 * servers). Two rounds per mode, alternating (in-process, daemon, in-process, daemon), half the
 * calls each; the rate is calls / wall time summed over a mode's rounds.
 */
import { connectMcp, freeRange, now, round, startGame, type Mcp, type Reaper } from './harness.js';
import { type BenchConfig, type Measurement } from './types.js';

export async function measureThroughput(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-tput-');
  const [port] = await freeRange(1);
  await startGame(r, port, home);
  const conns: Record<string, Mcp[]> = { 'in-process': [], 'proxy+daemon': [] };
  for (let i = 0; i < cfg.clients; i++) {
    conns['in-process'].push(await connectMcp(r, 'in-process', home));
    conns['proxy+daemon'].push(await connectMcp(r, 'proxy', home));
  }
  const load = async (clients: Mcp[], calls: number) => {
    const t = now();
    await Promise.all(
      clients.map(async (c) => {
        for (let i = 0; i < calls; i++) await c.call('call_tool', { port, name: 'get_state' });
      }),
    );
    return now() - t;
  };
  for (const mode of Object.keys(conns)) await load(conns[mode], 20); // warm
  const wall: Record<string, number> = { 'in-process': 0, 'proxy+daemon': 0 };
  const half = Math.ceil(cfg.callsPerClient / 2);
  for (let round_ = 0; round_ < 2; round_++)
    for (const mode of ['in-process', 'proxy+daemon']) wall[mode] += await load(conns[mode], half);
  for (const list of Object.values(conns)) await Promise.all(list.map((c) => c.close()));

  const total = cfg.clients * half * 2;
  const rate = (mode: string) => total / (wall[mode] / 1000);
  const ri = rate('in-process');
  const rp = rate('proxy+daemon');
  return {
    name: 'throughput',
    figures: {
      clients: cfg.clients,
      callsPerClient: half * 2,
      callsPerSecond: { inProcess: round(ri, 0), proxyDaemon: round(rp, 0) },
      ratio: round(rp / ri, 3),
      wallMs: { inProcess: round(wall['in-process'], 0), proxyDaemon: round(wall['proxy+daemon'], 0) },
    },
    rows: [
      {
        id: '6 throughput',
        what: `${cfg.clients} clients × ${half * 2} get_state, proxy+daemon`,
        value: `${rp.toFixed(0)} calls/s`,
        reference: 'in-process',
        vs: `${ri.toFixed(0)} calls/s → ${((rp / ri) * 100).toFixed(0)}%`,
        target: '≥ 60%',
        met: rp / ri >= 0.6,
      },
    ],
  };
}
