/**
 * Traces (docs/TESTS.md, "Traces"): what `--trace on` costs a frame-exact replay against
 * `--trace off`. A 1,000-step test on Crate Stack serving screenshots (each step a press of 10
 * frames, left and right in turn, so every picture differs) run by `game-bridge-mcp test`; the
 * wall time of its steps (the launch apart) both ways, and the trace file's bytes per step.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alternatingPresses, crateStackProject, freeRange, round, runSavedTests, type Reaper } from './harness.js';
import { ms, x, type BenchConfig, type Measurement } from './types.js';

interface Report {
  tests: Array<{ ok: boolean; ms: number; steps: Array<{ ms: number }>; trace?: string }>;
}

async function replay(project: string, home: string, trace: 'on' | 'off') {
  const { wallMs, report } = await runSavedTests<Report>(
    ['gamebridge-tests/long.jsonl', '--trace', trace],
    project,
    home,
    900000,
  );
  const test = report.tests[0];
  return { wallMs, test, stepsMs: test.steps.reduce((a, s) => a + s.ms, 0) };
}

export async function measureTraces(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-traces-');
  const ports = await freeRange(6);
  const project = crateStackProject(home, ports, ['--screenshot']);
  const steps = cfg.quick ? 100 : 1000;
  const lines = [
    JSON.stringify({
      gamebridgeTest: 1,
      name: 'long',
      launch: { config: '../gamebridge.json' },
      timing: 'frame-exact',
    }),
  ];
  lines.push(...alternatingPresses(steps));
  writeFileSync(join(project, 'gamebridge-tests', 'long.jsonl'), lines.join('\n') + '\n');

  const off = await replay(project, home, 'off');
  const on = await replay(project, home, 'on');
  const bytes = on.test.trace ? statSync(on.test.trace).size : NaN;
  const html = on.test.trace ? readFileSync(on.test.trace, 'utf8') : '';
  const shots = (html.match(/"shot":\d+/g) ?? []).length;
  const ratio = on.stepsMs / off.stepsMs;
  return {
    name: 'traces',
    figures: {
      steps,
      offStepsMs: round(off.stepsMs),
      onStepsMs: round(on.stepsMs),
      offWallMs: round(off.wallMs),
      onWallMs: round(on.wallMs),
      ratio: round(ratio, 2),
      traceBytes: bytes,
      bytesPerStep: round(bytes / (steps + 1)),
      stepsWithScreenshot: shots,
      ok: on.test.ok && off.test.ok,
    },
    rows: [
      {
        id: '15 saved tests',
        what: `frame-exact replay of ${steps} steps on Crate Stack (screenshots served): steps' wall time, --trace on / off`,
        value: `${ms(on.stepsMs, 0)} / ${ms(off.stepsMs, 0)}`,
        vs: x(ratio),
        met: null,
      },
      {
        id: '15 saved tests',
        what: `its trace: bytes per step (${steps + 1} steps with the launch, ${shots} screenshots)`,
        value: `${round(bytes / (steps + 1))} B`,
        reference: `${round(bytes / 1024)} KiB in all`,
        met: null,
      },
    ],
  };
}
