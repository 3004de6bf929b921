/**
 * 5. Command confirmation on a 60 fps game: time from the frame that applies a command to the
 * tool result, and /state polls per command.
 *
 * t(apply): the example game prints "crate-stack: applied #N ..." inside the tick that applies
 * command N; the bench stamps the line when it arrives on the game's stdout pipe (so the figure
 * includes a pipe hop, slightly over-stating the latency). t(result): when callTool resolves.
 * Polls: counted at a TCP pass-through in front of the game (counting-forwarder.ts), not guessed.
 * Each client alternates between the game's own port (latency) and the forwarder's port (polls,
 * and latency with the extra hop), so both figures come from the same minutes.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  connectMcp,
  freeRange,
  mean,
  median,
  now,
  pct,
  round,
  sleep,
  startGame,
  type Mcp,
  type Reaper,
} from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

const FPS = 60;
const FRAME_MS = 1000 / FPS;

interface Series {
  latency: number[];
  polls: number[];
  /** frames the wait spanned (/command arrival → the confirming /state arrival), forwarder runs only */
  frames: number[];
}

export async function measureConfirm(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-conf-');
  const [port] = await freeRange(1);
  const game = await startGame(r, port, home, ['--fps', String(FPS)]);
  const applied = new Map<number, number>();
  game.onLine((line, at) => {
    const m = /applied #(\d+) /.exec(line);
    if (m) applied.set(Number(m[1]), at);
  });

  const counts = new SharedArrayBuffer(8);
  const times = new SharedArrayBuffer(16);
  const c = new Int32Array(counts);
  const t = new Float64Array(times);
  const worker = new Worker(fileURLToPath(new URL('./counting-forwarder.js', import.meta.url)), {
    workerData: { target: port, counts, times },
  });
  const fwdPort = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
  });

  const clients: Record<string, Mcp> = {
    'proxy+daemon': await connectMcp(r, 'proxy', home),
    'in-process': await connectMcp(r, 'in-process', home),
  };
  const series: Record<string, Series> = {};
  for (const mode of Object.keys(clients))
    for (const via of ['direct', 'forwarder']) series[`${mode} ${via}`] = { latency: [], polls: [], frames: [] };

  const one = async (mode: string, via: 'direct' | 'forwarder', tag: string, record: boolean) => {
    const p = via === 'direct' ? port : fwdPort;
    const pollsBefore = Atomics.load(c, 0);
    const res = await clients[mode].call('call_tool', { port: p, name: 'bump', arguments: { tag } });
    const end = now();
    const polls = Atomics.load(c, 0) - pollsBefore;
    const id = res.commandId as number;
    if (res.applied !== true || typeof id !== 'number')
      throw new Error(`bump was not confirmed: ${JSON.stringify(res)}`);
    let at = applied.get(id);
    for (let i = 0; at === undefined && i < 100; i++) {
      await sleep(1);
      at = applied.get(id);
    }
    if (at === undefined) throw new Error(`the game never printed 'applied #${id}'`);
    applied.delete(id);
    if (!record) return;
    const s = series[`${mode} ${via}`];
    s.latency.push(end - at);
    if (via === 'forwarder') {
      s.polls.push(polls);
      s.frames.push(Math.max(0, t[1] - t[0]) / FRAME_MS);
    }
  };

  for (const mode of Object.keys(clients))
    for (const via of ['direct', 'forwarder'] as const)
      for (let i = 0; i < 20; i++) await one(mode, via, 'warm', false);
  for (let i = 0; i < cfg.commands; i++) {
    for (const mode of i % 2 ? ['in-process', 'proxy+daemon'] : ['proxy+daemon', 'in-process']) {
      await one(mode, 'direct', 'b', true);
      await one(mode, 'forwarder', 'b', true);
    }
  }
  for (const cl of Object.values(clients)) await cl.close();
  await worker.terminate();

  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const stat = (s: Series) => ({
    p50: round(median(s.latency), 2),
    p90: round(pct(s.latency, 90), 2),
    p99: round(pct(s.latency, 99), 2),
    ...(s.polls.length
      ? {
          pollsPerCommand: round(mean(s.polls), 2),
          maxPollsPerCommand: Math.max(...s.polls),
          // a wait shorter than one frame still spans "one frame" of the game's time
          pollsPerFrame: round(sum(s.polls) / sum(s.frames.map((f) => Math.max(1, f))), 2),
        }
      : {}),
  });
  const figures: Record<string, unknown> = { fps: FPS, frameMs: round(FRAME_MS, 2), commandsPerSeries: cfg.commands };
  for (const [k, s] of Object.entries(series)) figures[k] = stat(s);
  const target = FRAME_MS + 4;
  const pd = stat(series['proxy+daemon direct']);
  const pf = stat(series['proxy+daemon forwarder']);
  const id = stat(series['in-process direct']);
  const inf = stat(series['in-process forwarder']);
  return {
    name: 'confirm',
    figures,
    rows: [
      {
        id: '5 confirm',
        what: `apply frame → result, proxy+daemon p50 / p99 (n=${cfg.commands})`,
        value: `${ms(pd.p50)} / ${ms(pd.p99)}`,
        reference: 'in-process',
        vs: `${ms(id.p50)} / ${ms(id.p99)}`,
        target: `≤ 1 frame + 4 ms = ${ms(target)} p50`,
        met: pd.p50 <= target,
      },
      {
        id: '5 confirm',
        what: `/state polls per command (per frame), proxy+daemon`,
        value: `${pf.pollsPerCommand} (${pf.pollsPerFrame}/frame)`,
        reference: 'in-process',
        vs: `${inf.pollsPerCommand} (${inf.pollsPerFrame}/frame)`,
        target: '≤ 2 polls per frame',
        met: (pf.pollsPerFrame ?? Infinity) <= 2,
      },
      {
        id: '5 confirm',
        what: 'same, through the counting hop: p50 / p99',
        value: `${ms(pf.p50)} / ${ms(pf.p99)}`,
        reference: 'in-process',
        vs: `${ms(inf.p50)} / ${ms(inf.p99)}`,
        met: null,
      },
    ],
  };
}
