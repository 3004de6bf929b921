/**
 * 1. call_tool get_state latency: proxy+daemon vs in-process (--no-daemon) vs direct GET /state.
 * The three run in alternating blocks (rotating which goes first) against one 60 fps game,
 * so machine noise lands on all three alike.
 */
import { connectMcp, DirectState, freeRange, now, pct, rssMb, round, startGame, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

type Mode = 'direct' | 'in-process' | 'proxy+daemon';

export async function measureLatency(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-lat-');
  const [port] = await freeRange(1);
  await startGame(r, port, home);
  const proxy = await connectMcp(r, 'proxy', home);
  const inproc = await connectMcp(r, 'in-process', home);
  const direct = new DirectState(port);
  const calls: Record<Mode, () => Promise<unknown>> = {
    direct: () => direct.get(),
    'in-process': () => inproc.call('call_tool', { port, name: 'get_state' }),
    'proxy+daemon': () => proxy.call('call_tool', { port, name: 'get_state' }),
  };
  const modes = Object.keys(calls) as Mode[];
  const samples: Record<Mode, number[]> = { direct: [], 'in-process': [], 'proxy+daemon': [] };

  for (const m of modes) for (let i = 0; i < Math.min(300, cfg.latencyCalls); i++) await calls[m](); // JIT and sockets warm
  let block = 0;
  while (samples.direct.length < cfg.latencyCalls) {
    const order = modes.map((_, i) => modes[(i + block) % modes.length]);
    const size = Math.min(cfg.latencyBlock, cfg.latencyCalls - samples.direct.length);
    for (const m of order) {
      const fn = calls[m];
      const out = samples[m];
      for (let i = 0; i < size; i++) {
        const t = now();
        await fn();
        out.push(now() - t);
      }
    }
    block++;
  }
  const proxyRss = rssMb(proxy.pid);
  direct.close();
  await proxy.close();
  await inproc.close();

  const stat = (m: Mode) => ({
    p50: pct(samples[m], 50),
    p99: pct(samples[m], 99),
    mean: samples[m].reduce((a, b) => a + b, 0) / samples[m].length,
    n: samples[m].length,
  });
  const d = stat('direct');
  const i = stat('in-process');
  const p = stat('proxy+daemon');
  const addP50 = p.p50 - i.p50;
  const addP99 = p.p99 - i.p99;
  return {
    name: 'latency',
    figures: {
      callsPerMode: cfg.latencyCalls,
      blockSize: cfg.latencyBlock,
      direct: roundAll(d),
      inProcess: roundAll(i),
      proxyDaemon: roundAll(p),
      addedOverInProcess: { p50: round(addP50, 3), p99: round(addP99, 3) },
      engineOverDirect: { p50: round(i.p50 - d.p50, 3), p99: round(i.p99 - d.p99, 3) },
      proxyRssAfterLoadMb: { rss: round(proxyRss.rss, 1), hwm: round(proxyRss.hwm, 1) },
    },
    rows: [
      {
        id: '1 latency',
        what: `direct GET /state p50 / p99 (n=${d.n})`,
        value: `${ms(d.p50, 3)} / ${ms(d.p99, 3)}`,
        met: null,
      },
      {
        id: '1 latency',
        what: `in-process get_state p50 / p99`,
        value: `${ms(i.p50, 3)} / ${ms(i.p99, 3)}`,
        reference: 'direct',
        vs: `+${ms(i.p50 - d.p50, 3)} / +${ms(i.p99 - d.p99, 3)}`,
        met: null,
      },
      {
        id: '1 latency',
        what: `proxy+daemon get_state p50 / p99`,
        value: `${ms(p.p50, 3)} / ${ms(p.p99, 3)}`,
        reference: 'in-process',
        vs: `${sign(addP50)}${ms(addP50, 3)} / ${sign(addP99)}${ms(addP99, 3)}`,
        target: 'added ≤ 0.5 ms p50, ≤ 2 ms p99',
        met: addP50 <= 0.5 && addP99 <= 2,
      },
    ],
  };
}

const sign = (v: number) => (v >= 0 ? '+' : '');
function roundAll(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v, 3)]));
}
