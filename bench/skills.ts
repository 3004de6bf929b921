/**
 * skills. A 20-step skill called once against the same 20 calls made one by one by the client,
 * through proxy+daemon on one 60 fps Crate Stack: wall time per run and the characters the
 * agent receives (the text of every answer), medians over alternating runs (`BENCH_ONLY=skills`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMcp, freeRange, median, now, round, startGame, type Mcp, type Reaper } from './harness.js';
import type { BenchConfig, Measurement } from './types.js';

const STEPS = 20;

/** One call as the agent sees it: wall time and the characters of its answer's text. */
async function timed(mcp: Mcp, args: Record<string, unknown>): Promise<{ ms: number; chars: number }> {
  const t0 = now();
  const res = (await mcp.client.callTool({ name: 'call_tool', arguments: args }, undefined, { timeout: 60000 })) as {
    content: Array<{ type: string; text?: string }>;
    isError?: boolean;
  };
  const ms = now() - t0;
  const text = res.content.map((c) => c.text ?? '').join('');
  if (res.isError) throw new Error(`call_tool ${String(args.name)} failed: ${text}`);
  return { ms, chars: text.length };
}

export async function measureSkills(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-skills-');
  const project = join(home, 'project');
  mkdirSync(project, { recursive: true });
  const [port] = await freeRange(1);
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify({ name: 'Crate Stack', launch: { command: 'true', portRange: String(port) } }),
  );
  await startGame(r, port, home, ['--fps', '60']);
  const mcp = await connectMcp(r, 'proxy', home, ['--port', String(port), '--no-scan'], project);
  const step = { do: 'call_tool', name: 'bump', arguments: { tag: 's' } };
  await mcp.call('call_tool', {
    port,
    name: 'define_skill',
    arguments: {
      name: 'bump-20',
      description: 'Bump a counter 20 times.',
      steps: Array(STEPS).fill(step),
      overwrite: true,
    },
  });
  const runs = cfg.quick ? 3 : 10;
  const one: Array<{ ms: number; chars: number }> = [];
  const many: Array<{ ms: number; chars: number }> = [];
  await timed(mcp, { port, name: 'bump-20' }); // warm-up, both ways
  for (let i = 0; i < STEPS; i++) await timed(mcp, { port, name: 'bump', arguments: { tag: 's' } });
  for (let run = 0; run < runs; run++) {
    const skill = async () => one.push(await timed(mcp, { port, name: 'bump-20' }));
    const calls = async () => {
      let ms = 0;
      let chars = 0;
      for (let i = 0; i < STEPS; i++) {
        const t = await timed(mcp, { port, name: 'bump', arguments: { tag: 's' } });
        ms += t.ms;
        chars += t.chars;
      }
      many.push({ ms, chars });
    };
    // the order alternates, so a drift in the machine's load weighs on both
    if (run % 2) await calls().then(skill);
    else await skill().then(calls);
  }
  await mcp.close();
  const med = (xs: Array<{ ms: number; chars: number }>, k: 'ms' | 'chars') => median(xs.map((x) => x[k]));
  const [skillMs, callsMs, skillChars, callsChars] = [
    med(one, 'ms'),
    med(many, 'ms'),
    med(one, 'chars'),
    med(many, 'chars'),
  ];
  return {
    name: 'skills',
    figures: {
      steps: STEPS,
      runs,
      skillMs: round(skillMs, 1),
      callsMs: round(callsMs, 1),
      skillChars,
      callsChars,
    },
    rows: [
      {
        id: 'skills',
        what: `${STEPS}-step skill (bump) called once vs the ${STEPS} calls from the client: wall time (median of ${runs})`,
        value: `${round(skillMs, 1)} ms`,
        reference: `${round(callsMs, 1)} ms`,
        vs: `${round(callsMs / skillMs, 2)}× faster`,
        met: null,
      },
      {
        id: 'skills',
        what: `the same: characters the agent receives`,
        value: `${skillChars}`,
        reference: `${callsChars}`,
        vs: `${round(callsChars / skillChars, 2)}× fewer`,
        met: null,
      },
    ],
  };
}
