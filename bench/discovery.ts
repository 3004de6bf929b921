/**
 * 4. Discovery: list_instances over a 1,000-port range with 10 live games inside it (they also
 * register themselves in the home's registry, as real games would). The first call pays for the
 * manifests; the median is over the calls after it. Proxy+daemon and in-process alternate.
 */
import { connectMcp, freeRange, median, now, round, startGame, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

export async function measureDiscovery(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-disc-');
  const range = await freeRange(cfg.discoveryRange);
  const step = Math.floor(range.length / cfg.discoveryGames);
  const gamePorts = Array.from({ length: cfg.discoveryGames }, (_, i) => range[Math.floor(step / 2) + i * step]);
  for (let i = 0; i < gamePorts.length; i += 5)
    await Promise.all(gamePorts.slice(i, i + 5).map((p) => startGame(r, p, home)));
  const args = ['--scan-range', `${range[0]}-${range[range.length - 1]}`];
  const clients = {
    'proxy+daemon': await connectMcp(r, 'proxy', home, args),
    'in-process': await connectMcp(r, 'in-process', home, args),
  };
  const first: Record<string, number> = {};
  const samples: Record<string, number[]> = { 'proxy+daemon': [], 'in-process': [] };
  let liveSeen = Infinity;
  const once = async (mode: keyof typeof clients) => {
    const t = now();
    const res = await clients[mode].call('list_instances');
    const dt = now() - t;
    liveSeen = Math.min(liveSeen, (res.live as unknown[]).length);
    return dt;
  };
  for (const mode of Object.keys(clients) as (keyof typeof clients)[]) first[mode] = await once(mode);
  for (let i = 0; i < cfg.discoveryCalls; i++) {
    for (const mode of (i % 2
      ? ['in-process', 'proxy+daemon']
      : ['proxy+daemon', 'in-process']) as (keyof typeof clients)[]) {
      samples[mode].push(await once(mode));
    }
  }
  for (const c of Object.values(clients)) await c.close();
  if (liveSeen !== cfg.discoveryGames)
    throw new Error(`list_instances saw ${liveSeen} live games, expected ${cfg.discoveryGames}`);
  const p = median(samples['proxy+daemon']);
  const i = median(samples['in-process']);
  return {
    name: 'discovery',
    figures: {
      rangePorts: range.length,
      liveGames: cfg.discoveryGames,
      calls: cfg.discoveryCalls,
      firstCallMs: { proxyDaemon: round(first['proxy+daemon']), inProcess: round(first['in-process']) },
      medianMs: { proxyDaemon: round(p), inProcess: round(i) },
      samplesMs: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map((s) => round(s, 1))])),
    },
    rows: [
      {
        id: '4 discovery',
        what: `list_instances, ${range.length} ports, ${cfg.discoveryGames} games: proxy+daemon median (first)`,
        value: `${ms(p, 1)} (${ms(first['proxy+daemon'], 1)})`,
        reference: 'in-process',
        vs: `${ms(i, 1)} (${ms(first['in-process'], 1)})`,
        target: '≤ 150 ms',
        met: p <= 150,
      },
    ],
  };
}
