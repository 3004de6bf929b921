/**
 * inputs. Through proxy+daemon on a 60 fps Crate Stack (the Node kit): an `input_sequence` of 60
 * steps (a `press {frames: 1}` on each frame) on the paused game against the same 60 presses sent
 * as 60 `press {frames: 1}` calls, wall time of one run each; and a `pointer` click on the running
 * game, call to answer (`BENCH_ONLY=inputs`).
 */
import { connectMcp, freeRange, now, pct, round, startGame, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

const FRAME_MS = 1000 / 60;
const STEPS = 60;

export async function measureInputs(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-inputs-');
  const [port] = await freeRange(1);
  await startGame(r, port, home, ['--fps', '60']);
  const mcp = await connectMcp(r, 'proxy', home);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const t = now();
    await mcp.call('call_tool', { port, name, arguments: args });
    return now() - t;
  };
  const steps = Array.from({ length: STEPS }, (_, frame) => ({
    frame,
    tool: 'press',
    args: { input: frame % 2 ? 'left' : 'right', frames: 1 },
  }));

  // Crate Stack has a 'pause' of its own: the bridge's clock is bridge.pause
  await call('bridge.pause');
  // warm-up, both ways
  await call('input_sequence', { steps: steps.slice(0, 5) });
  for (let i = 0; i < 5; i++) await call('press', { input: 'left', frames: 1 });
  const sequenceMs = await call('input_sequence', { steps });
  let singleMs = 0;
  for (const s of steps) singleMs += await call('press', s.args);
  await call('bridge.resume');

  const n = Math.max(30, Math.round(cfg.commands / 3));
  for (let i = 0; i < 5; i++) await call('pointer', { action: 'click', x: 80, y: 40 });
  const clicks: number[] = [];
  for (let i = 0; i < n; i++) clicks.push(await call('pointer', { action: 'click', x: 80, y: 40 }));
  await mcp.close();

  const clickP50 = pct(clicks, 50);
  return {
    name: 'inputs',
    figures: {
      sequence: { steps: STEPS, ms: round(sequenceMs, 1) },
      presses: { calls: STEPS, ms: round(singleMs, 1) },
      ratio: round(singleMs / sequenceMs, 1),
      click: { p50: round(clickP50), p99: round(pct(clicks, 99)), n },
    },
    rows: [
      {
        id: 'inputs',
        what: `input_sequence of ${STEPS} presses on a paused 60 fps game, one run`,
        value: ms(sequenceMs, 1),
        reference: `${STEPS} press {frames: 1} calls ${ms(singleMs, 1)}`,
        vs: `${round(singleMs / sequenceMs, 1)}× faster`,
        met: null,
      },
      {
        id: 'inputs',
        what: `pointer click to answer on a running 60 fps game p50 / p99 (n=${n})`,
        value: `${ms(clickP50)} / ${ms(pct(clicks, 99))}`,
        target: `≤ 1 frame + 5 ms (${ms(FRAME_MS + 5, 1)})`,
        met: clickP50 <= FRAME_MS + 5,
      },
    ],
  };
}
