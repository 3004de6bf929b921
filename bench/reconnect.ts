/**
 * 3. Reconnect: with a client idle, kill -9 the daemon, then time the next tools/call
 * (call_tool get_state on a live game) until answered. The call is made as soon as the killed
 * pid is gone, so the figure includes noticing the loss, starting a daemon and re-initialising.
 */
import {
  alive,
  connectMcp,
  daemonPid,
  freeRange,
  median,
  now,
  pct,
  round,
  sleep,
  startGame,
  waitFor,
  waitGone,
  type Reaper,
} from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

export async function measureReconnect(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-rec-');
  const [port] = await freeRange(1);
  await startGame(r, port, home);
  const client = await connectMcp(r, 'proxy', home);
  await client.call('call_tool', { port, name: 'get_state' });
  const samples: number[] = [];
  const fromKill: number[] = [];
  for (let i = 0; i < cfg.runs; i++) {
    const pid = await waitFor('daemon', () => daemonPid(home), 10000);
    r.track(pid);
    await sleep(300); // idle
    const tKill = now();
    process.kill(pid, 'SIGKILL');
    await waitGone(pid, 3000);
    const t = now();
    await client.call('call_tool', { port, name: 'get_state' });
    const end = now();
    samples.push(end - t);
    fromKill.push(end - tKill);
    await waitFor('new daemon', () => {
      const p = daemonPid(home);
      return p && p !== pid && alive(p) ? p : undefined;
    });
  }
  await client.close();
  const m = median(samples);
  return {
    name: 'reconnect',
    figures: {
      runs: cfg.runs,
      medianMs: round(m),
      p90Ms: round(pct(samples, 90)),
      medianFromKillMs: round(median(fromKill)),
      samplesMs: samples.map((v) => round(v, 1)),
    },
    rows: [
      {
        id: '3 reconnect',
        what: `kill -9 daemon → next tools/call answered (median of ${cfg.runs})`,
        value: ms(m, 1),
        vs: `p90 ${ms(pct(samples, 90), 1)}`,
        target: '≤ 300 ms',
        met: m <= 300,
      },
    ],
  };
}
