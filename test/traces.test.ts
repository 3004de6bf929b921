/**
 * Traces (docs/TESTS.md, "Traces"): `game-bridge-mcp test --trace` on Crate Stack (serving
 * screenshots) through the real CLI, proxy and daemon, each trace opened in headless Chromium
 * and stepped through as a person would; `retain-on-failure` keeps only failed tests' traces and
 * the HTML report links them; `show-trace` without a display; `save_trace` of an agent's session
 * and the dashboard's "Download trace" of the same recording.
 * One home, one project and one browser for the whole file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import { CHROMIUM, startBrowser, type BrowserHandle } from './helpers/browser.js';
import { reapAndReport } from './helpers/fault.js';
import { freeRange } from './helpers/ports.js';
import { bridgeFreeEnv, removeDir, tempHome, runCli } from './helpers/procs.js';
import { writeProject, type Project } from './helpers/project.js';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { dashboardUrl } from './helpers/dashboard.js';

let home: string;
let root: string;
let p: Project;
let browser: BrowserHandle | undefined;
let agent: McpHandle | undefined;
/** The steps of the agent's session both agent traces show, as their step lists name them. */
const AGENT_STEPS = [
  'bridge.pause @0',
  'start @0',
  'press {"input":"right","frames":30} @0',
  'drop_here @30',
  'step {"frames":40} @30',
  'assert game.score equals 20 @70',
  'assert game.score equals 99 @70',
];

const chromiumMissing = existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`;
const env = () => {
  const e = bridgeFreeEnv({ GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '120000' });
  // show-trace opens nothing here: no display
  delete e.DISPLAY;
  delete e.WAYLAND_DISPLAY;
  return e;
};

const cli = (args: string[], cwd = p.root) => runCli(args, { cwd, env: env() });

const line = (o: object) => JSON.stringify(o);
const HEAD = (name: string) =>
  line({ gamebridgeTest: 1, name, launch: { config: '../gamebridge.json' }, timing: 'frame-exact' });

/** A test of Crate Stack: start, move right, drop, let it land; then `last`. */
function writeTest(name: string, last: object): string {
  const file = join(p.root, 'gamebridge-tests', `${name}.jsonl`);
  writeFileSync(
    file,
    [
      HEAD(name),
      line({ do: 'call_tool', name: 'start' }),
      line({ do: 'call_tool', name: 'bridge.press', arguments: { input: 'right', frames: 30 }, atSimFrame: 0 }),
      line({ do: 'call_tool', name: 'drop_here' }),
      line({ do: 'call_tool', name: 'bridge.step', arguments: { frames: 40 } }),
      line({ expect: { screenshot: 'landed.png', maxDiffRatio: 0 } }),
      line(last),
    ].join('\n') + '\n',
  );
  return file;
}

/** What the trace page shows of its selected step. */
async function shown(page: Page) {
  return page.evaluate(() => {
    const text = (id: string) => document.getElementById(id)?.textContent ?? '';
    const rows = [...document.querySelectorAll('#changes tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent),
    );
    const img = document.querySelector<HTMLImageElement>('#shot img');
    const checked = [...document.querySelectorAll('#checked tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent),
    );
    return {
      pos: text('pos'),
      title: text('step-title'),
      meta: text('step-meta'),
      error: document.getElementById('step-error')!.hidden ? '' : text('step-error'),
      changes: Object.fromEntries(rows.map(([path, before, after]) => [path, [before, after]])),
      shot: img?.src ?? null,
      shotText: text('shot'),
      /** shown at this width, and its own */
      shotWidth: img ? [Math.round(img.getBoundingClientRect().width), img.naturalWidth] : null,
      checked: document.getElementById('checked-box')?.hidden === false ? Object.fromEntries(checked) : null,
      // each step's title, and the simFrame it began at as `@N`
      list: [...document.querySelectorAll('#steps li')].map((li) =>
        [li.querySelector('.t')?.textContent, li.querySelector('.f')?.textContent].filter(Boolean).join(' '),
      ),
      marks: [...document.querySelectorAll('#steps li .mk')].map((e) => e.textContent).join(''),
    };
  });
}

const pngOf = (dataUrl: string) =>
  PNG.sync.read(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));

beforeAll(async () => {
  home = tempHome('gb-trace-');
  root = tempHome('gb-trace-proj-');
  p = writeProject(join(root, 'crates'), { ports: await freeRange(6), gameArgs: '--screenshot' });
  mkdirSync(join(p.root, 'gamebridge-tests'));
  if (!chromiumMissing) browser = await startBrowser();
}, 60000);

afterAll(async () => {
  await agent?.close();
  await browser?.close();
  await reapAndReport(home);
  removeDir(home);
  removeDir(root);
});

// A runtime that is missing skips here and fails under CI=true.
const withChromium = chromiumMissing && process.env.CI !== 'true' ? test.skip : test;

withChromium(
  "a failed test's trace shows every step's call, state changes, screenshot and frame as the run had them, stepped through in Chromium",
  async () => {
    const file = writeTest('drop', { expect: { path: 'game.score', equals: 999 } });
    // the screenshot baseline from this build: the run compares the picture after the landing with it
    expect((await cli(['test', file, '--update', '--trace', 'off'])).code).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"equals":\d+/, '"equals":999'));
    const run = await cli(['test', file, '--reporter', 'json', '--output', 'out/results.json']);
    expect(run.code).toBe(1);
    const trace = join(p.root, 'out', 'results.traces', 'drop.trace.html');
    expect(run.out).toContain(`    trace: out/results.traces/drop.trace.html (`);
    const report = JSON.parse(readFileSync(join(p.root, 'out', 'results.json'), 'utf8')).tests[0];
    expect(report.trace).toBe(trace);

    const page = await browser!.browser.newPage({ viewport: { width: 1280, height: 860 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(trace).href);
    // it opens on the failed step
    let s = await shown(page);
    // every step is labelled with the simFrame it began at, as the test file's atSimFrame is
    expect(s.list).toEqual([
      'launch gamebridge.json',
      'start @0',
      'bridge.press {"input":"right","frames":30} @0',
      'drop_here @30',
      'bridge.step {"frames":40} @30',
      'expect screenshot landed.png @70',
      'expect game.score equals 999 @70',
    ]);
    // the runner's steps, one for one, and the launch
    expect(report.steps.map((x: { text: string }, i: number) => s.list[i + 1].startsWith(x.text))).not.toContain(false);
    // the failed expect shows the value it read, and the object around it
    expect(s.checked?.['game.score']).toBe('20');
    expect(JSON.parse(s.checked?.game ?? '{}')).toMatchObject({ score: 20 });
    // the time it ran is the reader's local time with its zone, not an ISO string
    const when = await page.locator('#meta time').evaluate((t) => [t.textContent, t.getAttribute('datetime')]);
    expect(when[0]).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(when[0]).toMatch(/\d\d:\d\d:\d\d.*[A-Z]{2,}|GMT/);
    expect(Date.parse(when[1]!)).toBeGreaterThan(0);
    expect(s.marks).toBe('✓✓✓✓✓✓✗');
    expect(s.pos).toBe('step 7 of 7');
    expect(s.error).toMatch(/^AssertionFailed: On port \d+, game\.score is 20 at frame \d+; expected equals 999\./);
    expect(await page.textContent('#failure')).toContain(
      'at gamebridge-tests/drop.jsonl:7  expect game.score equals 999',
    );

    // step through from the first, with the buttons a person uses
    await page.click('#steps li >> nth=0');
    s = await shown(page);
    expect(s.pos).toBe('step 1 of 7');
    expect(await page.textContent('#state')).toContain('"score": 0');
    await page.click('#next');
    await page.click('#next');
    s = await shown(page);
    expect(s.title).toBe('✓ bridge.press {"input":"right","frames":30}');
    // the press moved the paused clock exactly its frames, and the dropper with it
    expect(s.meta).toMatch(/simFrame 0 → 30/);
    expect(s.changes.simFrame).toEqual(['0', '30']);
    expect(Number(s.changes['game.dropperX'][1])).toBeGreaterThan(Number(s.changes['game.dropperX'][0]));
    await page.keyboard.press('ArrowDown');
    s = await shown(page);
    expect(s.title).toBe('✓ drop_here');
    expect(s.changes['game.crates.0']?.[0]).toBe('absent');
    await page.click('#next');
    s = await shown(page);
    expect(s.title).toBe('✓ bridge.step {"frames":40}');
    expect(s.changes['game.score']).toEqual(['0', '20']);
    expect(s.changes.simFrame).toEqual(['30', '70']);
    const landed = s.shot!;
    // the picture is shown at its own size when it fits (the page is 1280 px wide), and a click enlarges it
    expect(s.shotWidth![0]).toBeGreaterThanOrEqual(Math.min(s.shotWidth![1], 500));
    await page.click('#shot img');
    expect(await page.locator('#zoom').evaluate((d: HTMLDialogElement) => d.open)).toBe(true);
    expect(await page.locator('#zoom-img').getAttribute('src')).toBe(landed);
    await page.keyboard.press('Escape');
    expect(await page.locator('#zoom').evaluate((d: HTMLDialogElement) => d.open)).toBe(false);
    await page.click('#next');
    s = await shown(page);
    // a check moves nothing of the game (only the wall-clock frame and the events window), and the
    // picture after the landing is the one the run compared with its baseline
    expect(s.title).toBe('✓ expect screenshot landed.png');
    expect(Object.keys(s.changes).filter((k) => /^(game|simFrame|ui)\b/.test(k))).toEqual([]);
    const baseline = PNG.sync.read(readFileSync(join(p.root, 'gamebridge-tests', 'landed.png')));
    const got = pngOf(landed);
    expect([got.width, got.height]).toEqual([baseline.width, baseline.height]);
    expect(pixelmatch(got.data, baseline.data, null, got.width, got.height, { threshold: 0 })).toBe(0);
    // an earlier picture differs: the crate was still falling
    await page.click('#prev');
    await page.click('#prev');
    const before = pngOf((await shown(page)).shot!);
    expect(pixelmatch(before.data, baseline.data, null, got.width, got.height, { threshold: 0 })).toBeGreaterThan(0);
    await page.click('#steps li >> nth=4');
    expect(errors).toEqual([]);
    await page.close();
  },
  180000,
);

(chromiumMissing && process.env.CI !== 'true' ? describe.skip : describe)('retain-on-failure', () => {
  let dir: string;
  let traces: string;
  let on: Awaited<ReturnType<typeof cli>>;
  let all: typeof on;
  let run: typeof on;
  let afterAllOn: string[];

  beforeAll(async () => {
    writeTest('pass', { expect: { path: 'game.score', equals: 20 } });
    writeTest('fail', { expect: { path: 'game.score', equals: 21 } });
    dir = join(p.root, 'gamebridge-tests');
    on = await cli(['test', join(dir, 'pass.jsonl'), join(dir, 'fail.jsonl'), '--update', '--trace', 'on']);
    writeFileSync(
      join(dir, 'fail.jsonl'),
      readFileSync(join(dir, 'fail.jsonl'), 'utf8').replace('"equals":20', '"equals":21'),
    );
    traces = join(p.root, 'report', 'traces');
    all = await cli([
      'test',
      'gamebridge-tests/pass.jsonl',
      'gamebridge-tests/fail.jsonl',
      '--trace',
      'on',
      '--reporter',
      'html',
      '--output',
      'report',
    ]);
    afterAllOn = readdirSync(traces).sort();
    // the default: the passing test's trace of the run before is gone, the failed one's written anew
    run = await cli([
      'test',
      'gamebridge-tests/pass.jsonl',
      'gamebridge-tests/fail.jsonl',
      '--reporter',
      'html',
      '--output',
      'report',
    ]);
  }, 240000);

  test("keeps only failed tests' traces, dropping a passing test's old one", () => {
    expect(on.out).toMatch(/2 passed, 0 failed/);
    expect(all.code).toBe(1);
    expect(afterAllOn.filter((f) => !f.startsWith('.'))).toEqual(['fail.trace.html', 'pass.trace.html']);
    expect(run.code).toBe(1);
    expect(readdirSync(traces).filter((f) => !f.startsWith('.'))).toEqual(['fail.trace.html']);
    expect(run.out).toMatch(/✗ fail .*\n(.*\n)*    trace: report\/traces\/fail\.trace\.html/);
    expect(run.out).not.toMatch(/pass\.trace\.html/);
  });

  test("the HTML report links the failed test's trace", async () => {
    const page = await browser!.browser.newPage();
    await page.goto(pathToFileURL(join(p.root, 'report', 'index.html')).href);
    expect(await page.locator('a.trace').count()).toBe(1);
    await page.click('a.trace');
    await page.waitForURL(/fail\.trace\.html/);
    expect(await page.textContent('#title')).toBe('fail');
    expect(await page.textContent('#step-title')).toBe('✗ expect game.score equals 21');
    await page.close();
  });

  test('the runner never removes or writes over a file it did not write, whatever its name', async () => {
    // an agent's session traces in the folder the JSON reporter keeps its traces in, named as the runner names its own
    const shared = join(p.root, 'shared', 'results.traces');
    mkdirSync(shared, { recursive: true });
    const agents = { 'pass.trace.html': 'an agent saved this', 'fail.trace.html': 'and this' };
    for (const [name, text] of Object.entries(agents)) writeFileSync(join(shared, name), text);
    const run = (trace: string) =>
      cli([
        'test',
        ...['gamebridge-tests/pass.jsonl', 'gamebridge-tests/fail.jsonl'],
        ...['--trace', trace, '--reporter', 'json', '--output', 'shared/results.json'],
      ]);
    const keptAll = await run('on');
    const written = (
      JSON.parse(readFileSync(join(p.root, 'shared', 'results.json'), 'utf8')) as { tests: { trace: string }[] }
    ).tests.map((t) => t.trace);
    expect(written.map((f) => f.replace(/.*[\\/]/, '')).sort()).toEqual(['fail-2.trace.html', 'pass-2.trace.html']);
    // the agent writes over the runner's trace of the passing test: the file is the agent's now
    writeFileSync(join(shared, 'pass-2.trace.html'), 'the agent kept this one');
    const retained = await run('retain-on-failure');
    expect([keptAll.code, retained.code]).toEqual([1, 1]);
    for (const [name, text] of Object.entries({ ...agents, 'pass-2.trace.html': 'the agent kept this one' }))
      expect(readFileSync(join(shared, name), 'utf8')).toBe(text);
    expect(retained.out).toMatch(/    trace: shared\/results\.traces\/fail-2\.trace\.html/);
  });

  test('--trace off writes no traces', async () => {
    const off = await cli([
      'test',
      'gamebridge-tests/fail.jsonl',
      '--trace',
      'off',
      '--reporter',
      'json',
      '--output',
      'none/r.json',
    ]);
    expect(off.code).toBe(1);
    expect(existsSync(join(p.root, 'none', 'r.traces'))).toBe(false);
  });
});

test('show-trace with no display prints where the trace is and how to open it', async () => {
  const dir = join(p.root, 'shown');
  mkdirSync(dir, { recursive: true });
  const { TraceBuilder } = await import('../shared/trace.js');
  const b = new TraceBuilder({ title: 't', source: 'here' });
  b.add({ kind: 'do', title: 'start', ok: true, atMs: 0 }, { a: 1 });
  writeFileSync(join(dir, 't.trace.html'), b.html());
  const r = await cli(['show-trace', 'shown/t.trace.html']);
  expect(r.code).toBe(0);
  expect(r.out).toBe(`Trace: ${join(dir, 't.trace.html')}\n`);
  expect(r.err).toBe(
    `There is no display here, so no browser was opened. The trace is one self-contained page: open ${pathToFileURL(join(dir, 't.trace.html')).href} in any browser, or copy the file to a machine with a display and open it there.\n`,
  );
});

test('show-trace refuses a file that is not a trace', async () => {
  const dir = join(p.root, 'shown');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'other.html'), '<!doctype html><title>x</title>');
  const bad = await cli(['show-trace', 'shown/other.html']);
  expect(bad.code).toBe(2);
  expect(bad.err).toMatch(/^game-bridge-mcp: show-trace: shown\/other\.html is not a game-bridge-mcp trace/);
  const none = await cli(['show-trace', 'shown/none.html']);
  expect(none.err).toMatch(/show-trace: cannot read shown\/none\.html \(there is no such file\)/);
});

withChromium(
  "save_trace writes an agent session's calls, checks, state changes and the game's screenshot now, in the project and never over a file or through a link",
  async () => {
    agent = await connect({ env: env(), cwd: p.root, name: 'trace-agent' });
    const port = (await call(agent, 'launch_instance')).json.port as number;
    const g = async (name: string, args: Record<string, unknown> = {}) => {
      const r = await gameCall(agent!, port, name, args);
      if (r.isError) throw new Error(r.text);
      return r.json;
    };
    await g('bridge.pause');
    await g('start');
    await g('press', { input: 'right', frames: 30 });
    await g('drop_here');
    await g('step', { frames: 40 });
    await g('assert', { path: 'game.score', equals: 20 });
    expect((await gameCall(agent, port, 'assert', { path: 'game.score', equals: 99 })).isError).toBe(true);
    const saved = await g('save_trace', { file: 'traces/agent.trace.html' });
    const file = join(p.root, 'traces', 'agent.trace.html');
    expect(saved).toMatchObject({ tool: 'save_trace', file, steps: 9, screenshots: 1 });
    expect(saved.summary).toMatch(
      /^Saved a trace of 9 steps to traces\/agent\.trace\.html\. A person opens it with `game-bridge-mcp show-trace /,
    );

    const page = await browser!.browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(pathToFileURL(file).href);
    let s = await shown(page);
    expect(s.list).toEqual([`launch ${p.file}`, ...AGENT_STEPS, 'the game when the trace was made @70']);
    expect(s.marks).toBe('✓✓✓✓✓✓✓✗✓');
    // titled with the game's name, not the session's id, and made by the client that played
    expect(await page.textContent('#title')).toBe('Crate Stack');
    expect(await page.textContent('#meta')).toContain(`trace-agent 1.0.0 on port ${port}`);
    // it opens on the check that did not hold, with why and the value it read
    expect(s.title).toBe('✗ assert game.score equals 99');
    expect(s.error).toMatch(/AssertionFailed: On port \d+, game\.score is 20/);
    expect(s.checked?.['game.score']).toBe('20');
    await page.click('#steps li >> nth=3');
    s = await shown(page);
    // the press began at simFrame 0 and ran its 30 frames
    expect(s.meta).toMatch(/simFrame 0 → 30/);
    // the bridge renders no picture after an agent's calls, and says so, not that the game serves none
    await page.click('#steps li >> nth=0');
    expect((await shown(page)).shotText).toMatch(/^no screenshot: the bridge takes one only when the trace is made/);
    await page.click('#steps li >> nth=5');
    s = await shown(page);
    expect(s.title).toBe('✓ step {"frames":40}');
    expect(s.changes['game.score']).toEqual(['0', '20']);
    expect(await page.textContent('#answer')).toContain('"stepped": 40');
    await page.keyboard.press('End');
    s = await shown(page);
    expect(s.pos).toBe('step 9 of 9');
    // the picture now is the game's own, as the screenshot tool takes it
    const shot = await gameCall(agent, port, 'screenshot');
    const want = PNG.sync.read(
      Buffer.from(
        (shot.res.content as Array<{ type: string; data?: string }>).find((c) => c.type === 'image')!.data!,
        'base64',
      ),
    );
    const got = pngOf(s.shot!);
    expect([got.width, got.height]).toEqual([want.width, want.height]);
    expect(pixelmatch(got.data, want.data, null, got.width, got.height, { threshold: 0 })).toBe(0);
    await page.close();

    const again = await gameCall(agent, port, 'save_trace', { file: 'traces/agent.trace.html' });
    expect(again.text).toMatch(
      /^BridgeUsageError: save_trace: .*agent\.trace\.html already exists; nothing was written\. Pass overwrite: true/,
    );
    expect(
      (await gameCall(agent, port, 'save_trace', { file: 'traces/agent.trace.html', overwrite: true })).isError,
    ).toBe(false);
    const outside = await gameCall(agent, port, 'save_trace', { file: '../elsewhere.trace.html' });
    expect(outside.text).toMatch(/^BridgeUsageError: save_trace: \.\.\/elsewhere\.trace\.html is outside the project/);
    const target = join(root, 'target.html');
    writeFileSync(target, 'kept');
    symlinkSync(target, join(p.root, 'traces', 'link.trace.html'));
    const linked = await gameCall(agent, port, 'save_trace', { file: 'traces/link.trace.html', overwrite: true });
    expect(linked.text).toMatch(/link\.trace\.html is a symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('kept');
  },
  180000,
);

withChromium(
  "the dashboard's session list downloads the same trace of what a session did on a game",
  async () => {
    expect(agent).toBeDefined();
    const page = await browser!.browser.newPage({ acceptDownloads: true });
    await page.goto(await dashboardUrl(home));
    const button = page.locator('.session', { hasText: 'trace-agent' }).locator('button[data-trace-port]');
    await button.first().waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), button.first().click()]);
    expect(download.suggestedFilename()).toMatch(/^trace-[\w-]+-\d+\.trace\.html$/);
    const saved = join(root, 'downloaded.trace.html');
    await download.saveAs(saved);
    const trace = await browser!.browser.newPage();
    await trace.goto(pathToFileURL(saved).href);
    const s = await shown(trace);
    expect(await trace.textContent('#title')).toBe('Crate Stack');
    expect(await trace.textContent('#meta')).toContain(
      'trace-agent 1.0.0 on port ' + (await button.first().getAttribute('data-trace-port')),
    );
    expect(s.list.slice(1, 8)).toEqual(AGENT_STEPS);
    await trace.close();
    await page.close();
  },
  120000,
);
