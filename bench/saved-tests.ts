/**
 * Saved tests (docs/TESTS.md): what recording costs a call, how fast a frame-exact replay runs
 * beside the game time it covers, and what --workers buys on this machine.
 *
 * - Recording: call_tool p50 of a game-affecting tool through proxy+daemon (recorded), and the
 *   recording's own work per call (the hook call_tool runs after a call, and the state note
 *   command sync leaves) timed in this process over many calls: the call without it is the p50
 *   minus that.
 * - Replay: a 1,000-step frame-exact test on Crate Stack (each step a press of 10 frames),
 *   run by `game-bridge-mcp test`; the wall time of its steps (the launch apart) over the game
 *   time its frames stand for at 60 fps.
 * - Workers: 20 short tests with --workers 4 and with --workers 1, wall time each.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Recordings } from '../daemon/recording/recordings.js';
import { recordCall } from '../daemon/tools/record-call.js';
import type { ToolContext } from '../daemon/tool-framework/context.js';
import {
  alternatingPresses,
  connectMcp,
  crateStackProject,
  freeRange,
  median,
  now,
  pct,
  round,
  runSavedTests,
  type Reaper,
} from './harness.js';
import { ms, x, type BenchConfig, type Measurement } from './types.js';

const HEAD = (name: string) =>
  JSON.stringify({
    gamebridgeTest: 1,
    name,
    game: { name: 'Crate Stack' },
    launch: { config: '../gamebridge.json' },
    timing: 'frame-exact',
  });

/** The recording's work per call, in ms: the sync note and the hook, as call_tool runs them. */
function recordingCostMs(calls: number): number {
  const recordings = new Recordings();
  const ctx = { recordings, sessionId: 's1', knownManifest: () => undefined } as unknown as ToolContext;
  const state = { frame: 10, simFrame: 5, sessionEpoch: 1, game: { score: 3 } };
  const answer = { port: 1, tool: 'bump', via: 'manifest', applied: true, frame: 10 };
  const runs: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t = now();
    for (let i = 0; i < calls; i++) {
      recordings.of('s1', 7000).last = state;
      recordCall(ctx, 7000, 'bump', { tag: 'a' }, answer);
    }
    runs.push((now() - t) / calls);
  }
  return median(runs);
}

/** A run of `game-bridge-mcp test` in `cwd`, its JSON report kept. */
const cliRun = (args: string[], cwd: string, home: string) =>
  runSavedTests<Record<string, unknown>>(args, cwd, home, 600000);

export async function measureSavedTests(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-tests-');
  const ports = await freeRange(12);
  const project = crateStackProject(home, ports);

  // recording: a recorded game tool through the pair, and the recording's share of it
  const mcp = await connectMcp(r, 'proxy', home, [], project);
  const launched = await mcp.call('launch_instance');
  const port = launched.port as number;
  const n = cfg.quick ? 100 : 1000;
  const samples: number[] = [];
  for (let i = 0; i < n + 50; i++) {
    const t = now();
    await mcp.call('call_tool', { port, name: 'bump', arguments: { tag: 'bench' } });
    if (i >= 50) samples.push(now() - t);
  }
  await mcp.call('stop_instance', { port });
  await mcp.close();
  const p50 = pct(samples, 50);
  const cost = recordingCostMs(cfg.quick ? 2000 : 20000);

  // replay: 1,000 steps of 10 frames each
  const steps = cfg.quick ? 100 : 1000;
  const lines = [HEAD('long-replay'), JSON.stringify({ do: 'call_tool', name: 'start' })];
  lines.push(...alternatingPresses(steps));
  lines.push(JSON.stringify({ expect: { path: 'simFrame', equals: steps * 10 } }));
  writeFileSync(join(project, 'gamebridge-tests', 'long-replay.jsonl'), lines.join('\n') + '\n');
  const replay = await cliRun(['gamebridge-tests/long-replay.jsonl'], project, home);
  const test = (replay.report.tests as Array<{ ok: boolean; ms: number; steps: Array<{ ms: number }> }>)[0];
  const gameMs = ((steps * 10) / 60) * 1000;
  // the replay itself: its steps, without the game's launch and stop around them
  const replayMs = test.steps.reduce((a, st) => a + st.ms, 0);
  const ratio = replayMs / gameMs;

  // workers: 20 short tests, four at a time and one at a time
  const many = join(project, 'many');
  mkdirSync(join(many, 'gamebridge-tests'), { recursive: true });
  writeFileSync(join(many, 'gamebridge.json'), readFileSync(join(project, 'gamebridge.json')));
  const count = cfg.quick ? 8 : 20;
  for (let i = 0; i < count; i++)
    writeFileSync(
      join(many, 'gamebridge-tests', `t${i}.jsonl`),
      [
        HEAD(`t${i}`),
        JSON.stringify({ do: 'call_tool', name: 'start' }),
        JSON.stringify({ do: 'call_tool', name: 'bridge.press', arguments: { input: 'right', frames: 60 } }),
        JSON.stringify({ expect: { path: 'ui.screen', equals: 'GameScreen' } }),
      ].join('\n') + '\n',
    );
  const four = await cliRun(['--workers', '4'], many, home);
  const one = await cliRun(['--workers', '1'], many, home);
  const speedup = one.wallMs / four.wallMs;

  return {
    name: 'saved-tests',
    figures: {
      recording: { callToolP50: round(p50, 3), costPerCallMs: round(cost, 5), withoutP50: round(p50 - cost, 3), n },
      replay: {
        steps,
        frames: steps * 10,
        wallMs: round(test.ms),
        gameMs: round(gameMs),
        ratio: round(ratio, 3),
        ok: test.ok,
      },
      workers: {
        tests: count,
        workers4Ms: round(four.wallMs),
        workers1Ms: round(one.wallMs),
        speedup: round(speedup, 2),
      },
    },
    rows: [
      {
        id: '15 saved tests',
        what: `call_tool p50 of a recorded game tool, with / without recording (n=${n})`,
        value: `${ms(p50, 3)} / ${ms(p50 - cost, 3)}`,
        vs: `+${ms(cost, 4)}`,
        target: 'recording adds ≤ 0.05 ms p50',
        met: cost <= 0.05,
      },
      {
        id: '15 saved tests',
        what: `frame-exact replay of ${steps} steps (${steps * 10} frames) on Crate Stack: wall / game time`,
        value: `${ms(replayMs, 0)} / ${ms(gameMs, 0)}`,
        vs: x(ratio),
        target: '≤ 0.25',
        met: test.ok && ratio <= 0.25,
      },
      {
        id: '15 saved tests',
        what: `${count} tests, --workers 4 vs --workers 1 (this machine: ${cfg.quick ? 'quick' : 'full'} run)`,
        value: `${ms(four.wallMs, 0)} vs ${ms(one.wallMs, 0)}`,
        vs: x(speedup),
        met: null,
      },
    ],
  };
}
