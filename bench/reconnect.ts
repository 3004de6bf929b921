/**
 * 3. Reconnect: with a client idle, kill -9 the daemon, then time the next tools/call
 * (call_tool get_state on a live game) until answered. The call is made as soon as the killed
 * pid is gone (a zombie counts as gone: a promoted standby's parent is dead, and init reaps it
 * late), so the figure includes noticing the loss, the successor taking the home and
 * re-initialising. Three homes side by side, one kill each in turn: the default (a light
 * standby, Node started and nothing loaded, takes over), the warm standby (GAME_BRIDGE_STANDBY=1:
 * every module loaded) and none (GAME_BRIDGE_STANDBY=0: the proxy starts a successor, which
 * boots). With a standby, each kill comes once daemon.json names a ready one, and the next side
 * waits for the next one, so its start never overlaps a measurement. Also what each standby
 * holds: VmRSS, and its own memory (USS) beyond the pages it shares with the daemon.
 */
import {
  alive,
  connectMcp,
  daemonPid,
  freeRange,
  liveStandby,
  median,
  now,
  ownMb,
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
import { ms, type BenchConfig, type Measurement, type Row } from './types.js';

type Kind = 'light' | 'warm' | 'none';

const ENV: Record<Kind, Record<string, string>> = {
  light: {},
  warm: { GAME_BRIDGE_STANDBY: '1' },
  none: { GAME_BRIDGE_STANDBY: '0' },
};
const LABEL: Record<Kind, string> = {
  light: 'default (a light standby takes over)',
  warm: 'warm standby (GAME_BRIDGE_STANDBY=1)',
  none: 'no standby (GAME_BRIDGE_STANDBY=0: the successor boots)',
};

interface Side {
  kind: Kind;
  home: string;
  port: number;
  client: Mcp;
  samples: number[];
  standbyRss: number[];
  standbyOwn: number[];
}

async function setUp(r: Reaper, kind: Kind): Promise<Side> {
  const home = r.home(`gb-bench-rec-${kind}-`);
  const [port] = await freeRange(1);
  await startGame(r, port, home);
  const client = await connectMcp(r, 'proxy', home, [], undefined, undefined, ENV[kind]);
  await client.call('call_tool', { port, name: 'get_state' });
  return { kind, home, port, client, samples: [], standbyRss: [], standbyOwn: [] };
}

/** One kill -9 of `side`'s daemon and the time to the next answered tools/call. */
async function killOnce(r: Reaper, side: Side): Promise<void> {
  const pid = await waitFor('daemon', () => daemonPid(side.home), 10000);
  r.track(pid);
  const withStandby = side.kind !== 'none';
  const standby = withStandby ? await waitFor('a ready standby', () => liveStandby(side.home), 20000) : 0;
  r.track(standby);
  await sleep(300); // idle
  if (standby) {
    side.standbyRss.push(rssMb(standby).rss);
    side.standbyOwn.push(ownMb(standby));
  }
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
  // the next standby starts now: not while the other side is being measured
  if (withStandby) r.track(await waitFor('the next standby', () => liveStandby(side.home), 20000));
}

function row(side: Side, runs: number): Row {
  const m = median(side.samples);
  return {
    id: '3 reconnect',
    what: `kill -9 daemon → next tools/call answered, ${LABEL[side.kind]} (median of ${runs})`,
    value: ms(m, 1),
    vs: `p90 ${ms(pct(side.samples, 90), 1)}`,
    target: side.kind === 'none' ? undefined : '≤ 300 ms',
    met: side.kind === 'none' ? null : m <= 300,
  };
}

function memoryRow(side: Side): Row {
  return {
    id: '3 reconnect',
    what: `${side.kind} standby: VmRSS; its own memory (USS, beyond the pages it shares with the daemon)`,
    value: `${median(side.standbyRss).toFixed(1)} MB`,
    vs: `own ${median(side.standbyOwn).toFixed(1)} MB`,
    met: null,
  };
}

export async function measureReconnect(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const sides: Side[] = [];
  for (const kind of ['light', 'warm', 'none'] as const) sides.push(await setUp(r, kind));
  for (let i = 0; i < cfg.runs; i++) for (const side of i % 2 ? [...sides].reverse() : sides) await killOnce(r, side);
  for (const side of sides) await side.client.close();
  const [light, warm, none] = sides;
  const figures = (s: Side) => ({
    medianMs: round(median(s.samples)),
    p90Ms: round(pct(s.samples, 90)),
    samplesMs: s.samples.map((v) => round(v, 1)),
    ...(s.standbyRss.length
      ? { standbyRssMb: round(median(s.standbyRss), 1), standbyOwnMb: round(median(s.standbyOwn), 1) }
      : {}),
  });
  return {
    name: 'reconnect',
    figures: { runs: cfg.runs, default: figures(light), warmStandby: figures(warm), noStandby: figures(none) },
    rows: [row(light, cfg.runs), row(warm, cfg.runs), row(none, cfg.runs), memoryRow(light), memoryRow(warm)],
  };
}
