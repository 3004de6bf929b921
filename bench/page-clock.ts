/**
 * page-clock. The bridge's clock on pages without the kit, through proxy+daemon and headless
 * Chromium (`BENCH_ONLY=page-clock`):
 * - a click whose handler deepens a search until 100 ms of the page's `Date` time are spent
 *   (test/fixtures/web-pages/search.html, "Think"), on a running page: call to answer, p50,
 *   beside a click on the same page whose handler reads the clock a few times ("Wait");
 * - the cost of the rule of reads (daemon/web/page-time.ts) on a frame: a 60-frame `step` of the
 *   Phaser example launched without its kit, through the daemon; and the same 60-frame step asked
 *   straight of two pages of it in one more Chromium, one with the clock as shipped and one with
 *   time frozen inside a run of code (the clock before the rule), alternating.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMcp, DIST, freeRange, now, pct, round, type Mcp, type Reaper } from './harness.js';
import { openBrowser, type WebBrowser } from '../daemon/web/browser.js';
import { clockStep, pageScript } from '../daemon/web/page-clock.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

const PAGES = join(DIST, '..', 'test', 'fixtures', 'web-pages');
const FRAMES = 60;
/** the rule's read, and the same read with time standing still inside a run */
const RULE_READ = 'const read = () => {';
const FROZEN_READ = 'const read = () => now; const ruleRead = () => {';

async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = now();
    await fn();
    out.push(now() - t);
  }
  return out;
}

/** The ref of the button named `name` in the page's snapshot. */
async function buttonRef(mcp: Mcp, port: number, name: string): Promise<string> {
  const snap = await mcp.call('call_tool', { port, name: 'snapshot' });
  const nodes = (snap.nodes ?? []) as Array<{ id: string; role: string; name: string }>;
  const node = nodes.find((n) => n.role === 'button' && n.name === name);
  if (!node) throw new Error(`no button "${name}" in the snapshot: ${JSON.stringify(snap).slice(0, 400)}`);
  return node.id;
}

/** The Phaser page twice in one Chromium profile each: the clock as shipped, and frozen inside a run. */
async function openBoth(r: Reaper, url: string): Promise<{ rule: WebBrowser; frozen: WebBrowser }> {
  const rule = pageScript({ clock: true, seed: '1', paused: true });
  if (!rule.includes(RULE_READ)) throw new Error('page-time.ts no longer reads through `const read = () => {`');
  const open = async (initScript: string) => {
    const b = await openBrowser({ url, initScript });
    r.track(b.pid);
    return b;
  };
  return { rule: await open(rule), frozen: await open(rule.replace(RULE_READ, FROZEN_READ)) };
}

export async function measurePageClock(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-pageclock-');
  const dir = r.tempDir('gb-bench-pageclockproj-');
  const [first] = await freeRange(2);
  const declare = (file: string, name: string, web: Record<string, unknown>, port: number) =>
    writeFileSync(
      join(dir, file),
      JSON.stringify({ name, launch: { portRange: `${port}-${port}`, readyTimeoutMs: 120000, web } }),
    );
  declare('search.json', 'Thinker', { static: PAGES, url: 'search.html', kit: false }, first);
  declare(
    'phaser.json',
    'Star Catcher',
    { static: join(DIST, 'examples', 'phaser-game', 'www'), kit: false },
    first + 1,
  );
  const mcp = await connectMcp(r, 'proxy', home, ['--timeout', '60000'], dir);
  const n = cfg.quick ? 5 : 20;

  // a click that searches for 100 ms of page time, on the running page, against a click that reads little
  await mcp.call('launch_instance', { config: 'search.json' });
  const think = await buttonRef(mcp, first, 'Think');
  const wait = await buttonRef(mcp, first, 'Wait');
  const click = (ref: string) => () => mcp.call('call_tool', { port: first, name: 'click', arguments: { ref } });
  await click(think)();
  await click(wait)();
  const thinks: number[] = [];
  const waits: number[] = [];
  for (let i = 0; i < n; i++) {
    thinks.push(...(await timed(1, click(think))));
    waits.push(...(await timed(1, click(wait))));
  }

  // a 60-frame step of the Phaser page, through the daemon
  const phaser = first + 1;
  await mcp.call('launch_instance', { config: 'phaser.json' });
  await mcp.call('call_tool', { port: phaser, name: 'pause' });
  const step = () => mcp.call('call_tool', { port: phaser, name: 'step', arguments: { frames: FRAMES } });
  await timed(3, step);
  const daemonSteps = await timed(n, step);

  // the same step asked straight of the page, with the rule and with time frozen inside a run
  const launched = JSON.parse(readFileSync(join(home, 'daemon', 'launched.json'), 'utf8')) as {
    instances: Array<{ port: number; web?: { url: string } }>;
  };
  const url = launched.instances.find((i) => i.port === phaser)?.web?.url;
  if (!url) throw new Error(`launched.json records no page for port ${phaser}`);
  const pages = await openBoth(r, url);
  const straight = { rule: [] as number[], frozen: [] as number[] };
  let id = 1;
  try {
    for (const b of [pages.rule, pages.frozen]) for (let i = 0; i < 3; i++) await clockStep(b.page, id++, FRAMES);
    for (let i = 0; i < n; i++) {
      const order = i % 2 ? (['frozen', 'rule'] as const) : (['rule', 'frozen'] as const);
      for (const side of order)
        straight[side].push(...(await timed(1, () => clockStep(pages[side].page, id++, FRAMES))));
    }
  } finally {
    await pages.rule.close();
    await pages.frozen.close();
  }
  await mcp.close();

  const p50 = (xs: number[]) => pct(xs, 50);
  const signed = (d: number) => `${d < 0 ? '−' : '+'}${ms(Math.abs(d), 1)}`;
  return {
    name: 'page-clock',
    figures: {
      thinkClick: { p50: round(p50(thinks)), p99: round(pct(thinks, 99)), n },
      waitClick: { p50: round(p50(waits)), n },
      phaserStep: { frames: FRAMES, daemonP50: round(p50(daemonSteps)), n },
      straightStep: { rule: round(p50(straight.rule)), frozen: round(p50(straight.frozen)), n },
    },
    rows: [
      {
        id: 'page-clock',
        what: `click whose handler searches 100 ms of page time, running page, call to answer p50 / p99 (n=${n})`,
        value: `${ms(p50(thinks), 1)} / ${ms(pct(thinks, 99), 1)}`,
        reference: `a click reading the clock 5 times ${ms(p50(waits), 1)}`,
        vs: signed(p50(thinks) - p50(waits)),
        met: null,
      },
      {
        id: 'page-clock',
        what: `step {frames: ${FRAMES}} of the Phaser page without its kit, through the daemon p50 (n=${n})`,
        value: ms(p50(daemonSteps), 1),
        met: null,
      },
      {
        id: 'page-clock',
        what: `the same step asked of the page straight, with the rule of reads p50 (n=${n})`,
        value: ms(p50(straight.rule), 1),
        reference: `time frozen inside a run ${ms(p50(straight.frozen), 1)}`,
        vs: `${round(p50(straight.rule) / p50(straight.frozen), 2)}×`,
        met: null,
      },
    ],
  };
}
