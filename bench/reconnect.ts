/**
 * 3. Reconnect: with a client idle, kill -9 the daemon, then time the next tools/call
 * (call_tool get_state on a live game) until answered. The call is made as soon as the killed
 * pid is gone, so the figure includes noticing the loss, the successor taking the home and
 * re-initialising. Two homes side by side, one kill each in turn: the default (the proxy starts
 * a successor, which boots) and the warm standby (GAME_BRIDGE_STANDBY=1: a booted successor
 * waits; each kill comes once daemon.json names a live standby). Also the standby's VmRSS.
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
  rssMb,
  sleep,
  startGame,
  waitFor,
  waitGone,
  type Mcp,
  type Reaper,
} from './harness.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ms, type BenchConfig, type Measurement, type Row } from './types.js';

interface Side {
  home: string;
  port: number;
  client: Mcp;
  standby: boolean;
  samples: number[];
  standbyRss: number[];
}

/** The standby daemon.json names, once it is alive. */
function liveStandby(home: string): number | undefined {
  try {
    const info = JSON.parse(readFileSync(join(home, 'daemon', 'daemon.json'), 'utf8')) as { standby?: { pid: number } };
    return info.standby && alive(info.standby.pid) ? info.standby.pid : undefined;
  } catch {
    return undefined;
  }
}

async function setUp(r: Reaper, standby: boolean): Promise<Side> {
  const home = r.home(standby ? 'gb-bench-rec-sb-' : 'gb-bench-rec-');
  const [port] = await freeRange(1);
  await startGame(r, port, home);
  const env: Record<string, string> = standby ? { GAME_BRIDGE_STANDBY: '1' } : {};
  const client = await connectMcp(r, 'proxy', home, [], undefined, undefined, env);
  await client.call('call_tool', { port, name: 'get_state' });
  return { home, port, client, standby, samples: [], standbyRss: [] };
}

/** One kill -9 of `side`'s daemon and the time to the next answered tools/call. */
async function killOnce(r: Reaper, side: Side): Promise<void> {
  const pid = await waitFor('daemon', () => daemonPid(side.home), 10000);
  r.track(pid);
  const standby = side.standby ? await waitFor('a ready standby', () => liveStandby(side.home), 20000) : 0;
  r.track(standby);
  await sleep(300); // idle
  if (standby) side.standbyRss.push(rssMb(standby).rss);
  process.kill(pid, 'SIGKILL');
  await waitGone(pid, 3000);
  const t = now();
  await side.client.call('call_tool', { port: side.port, name: 'get_state' });
  side.samples.push(now() - t);
  const next = await waitFor('new daemon', () => {
    const p = daemonPid(side.home);
    return p && p !== pid && alive(p) ? p : undefined;
  });
  r.track(next);
  // the next standby boots now: not while the other side is being measured
  if (side.standby) r.track(await waitFor('the next standby', () => liveStandby(side.home), 20000));
}

function row(side: Side, runs: number): Row {
  const m = median(side.samples);
  return {
    id: '3 reconnect',
    what: `kill -9 daemon → next tools/call answered, ${side.standby ? 'warm standby (GAME_BRIDGE_STANDBY=1)' : 'default (successor boots)'} (median of ${runs})`,
    value: ms(m, 1),
    vs: `p90 ${ms(pct(side.samples, 90), 1)}`,
    target: '≤ 300 ms',
    met: m <= 300,
  };
}

export async function measureReconnect(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const sides = [await setUp(r, false), await setUp(r, true)];
  for (let i = 0; i < cfg.runs; i++) for (const side of i % 2 ? [...sides].reverse() : sides) await killOnce(r, side);
  for (const side of sides) await side.client.close();
  const [plain, warm] = sides;
  const standbyRss = median(warm.standbyRss);
  const figures = (s: Side) => ({
    medianMs: round(median(s.samples)),
    p90Ms: round(pct(s.samples, 90)),
    samplesMs: s.samples.map((v) => round(v, 1)),
  });
  return {
    name: 'reconnect',
    figures: { runs: cfg.runs, default: figures(plain), standby: figures(warm), standbyRssMb: round(standbyRss, 1) },
    rows: [
      row(plain, cfg.runs),
      row(warm, cfg.runs),
      {
        id: '3 reconnect',
        what: 'warm standby VmRSS (its cost, on top of the daemon)',
        value: `${standbyRss.toFixed(1)} MB`,
        met: null,
      },
    ],
  };
}
