/**
 * A page stuck in its own code (test/fixtures/web-pages/stuck.html: the key B starts a loop that
 * never ends), through the real proxy + daemon, the SDK client and Debian's Chromium: a press
 * answers with the frames error within the call's timeout while another game on the same
 * daemon answers, a client's cancel ends a blocked step, and a restart brings the page back;
 * a pointer click and an input_sequence that get the page stuck answer with the same error.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, cleanedAfterAll, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { ROOT, tempHome } from './helpers/procs.js';

jest.setTimeout(240_000);

const PAGES = join(ROOT, 'test', 'fixtures', 'web-pages');
const cleanup = cleanedAfterAll();
let h: McpHandle;
let stuck: number;
let other: number;

beforeAll(async () => {
  const home = tempHome('gb-pagestuck-');
  cleanup.homes.push(home);
  const project = join(home, 'project');
  mkdirSync(project);
  const [first] = await freeRange(4);
  const declare = (file: string, name: string, url: string) =>
    writeFileSync(
      join(project, file),
      JSON.stringify({
        name,
        launch: { portRange: `${first}-${first + 3}`, readyTimeoutMs: 90_000, web: { static: PAGES, url, kit: false } },
      }),
    );
  declare('stuck.json', 'Stuck', 'stuck.html');
  declare('other.json', 'Ticker', 'timer.html');
  h = await connect({ env: { GAME_BRIDGE_HOME: home }, cwd: project, args: ['--no-scan', '--timeout', '8000'] });
  cleanup.handles.push(h);
  const launch = async (config: string) => {
    const r = await call(h, 'launch_instance', { config }, 120_000);
    if (r.isError) throw new Error(r.text);
    return r.json.port as number;
  };
  stuck = await launch('stuck.json');
  other = await launch('other.json');
});

const STUCK_ANSWER =
  /^CommandTimeout: (\S+) on port \d+: the page stopped drawing frames: it is stuck in its own code .*What the call held is released\./;

const logOf = async (port: number) => ((await call(h, 'instance_log', { port })).json.lines as string[]).join('\n');

test('a press that gets the page stuck answers with the frames error, while another game on the daemon answers', async () => {
  expect((await gameCall(h, stuck, 'press', { input: 'ArrowLeft' })).isError).toBe(false);
  const press = gameCall(h, stuck, 'press', { input: 'b', frames: 2 }, 60_000);
  const meanwhile = await gameCall(h, other, 'get_state', {}, 30_000);
  expect(meanwhile.isError).toBe(false);
  expect(meanwhile.json.state.game).toMatchObject({ ticks: expect.any(Number) });
  const r = await press;
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(
    /^CommandTimeout: press on port \d+: the page stopped drawing frames: it is stuck in its own code .*; its last frame was \d+, \d+\.\d s ago\. What the call held is released\. launch_instance \{restart: \d+\} brings the page back/,
  );
  expect(r.json).toMatchObject({ kind: 'CommandTimeout', port: stuck, cmd: 'press', frame: expect.any(Number) });
  expect(await logOf(stuck)).toMatch(/page stuck: the page stopped drawing frames.* \(during press\)/);
  expect((await gameCall(h, other, 'get_state')).isError).toBe(false);
});

test("a client's cancel ends a step waiting on the stuck page", async () => {
  const cancel = new AbortController();
  const step = h.client.callTool(
    { name: 'call_tool', arguments: { port: stuck, name: 'step', arguments: { frames: 5 } } },
    undefined,
    { signal: cancel.signal, timeout: 60_000 },
  );
  setTimeout(() => cancel.abort(), 1000);
  await expect(step).rejects.toThrow(/abort/i);
  const until = Date.now() + 30_000;
  while (!/step cancelled by its client/.test(await logOf(stuck)) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 250));
  expect(await logOf(stuck)).toMatch(/step cancelled by its client after \d+\.\d s; the page last answered/);
});

test('restart brings the stuck page back', async () => {
  const r = await call(h, 'launch_instance', { restart: stuck }, 120_000);
  expect(r.isError).toBe(false);
  const s0 = (await gameCall(h, stuck, 'get_state')).json.state;
  await new Promise((res) => setTimeout(res, 500));
  const s1 = (await gameCall(h, stuck, 'get_state')).json.state;
  expect(s1.simFrame).toBeGreaterThan(s0.simFrame);
  expect((await gameCall(h, stuck, 'press', { input: 'ArrowLeft' })).isError).toBe(false);
});

/** The stuck page brought back, as the test above does, for the next way of getting it stuck. */
async function restarted(): Promise<void> {
  const r = await call(h, 'launch_instance', { restart: stuck }, 120_000);
  if (r.isError) throw new Error(r.text);
}

test('a pointer click that gets the page stuck answers with the frames error', async () => {
  const nodes = (await gameCall(h, stuck, 'snapshot')).json.nodes as Array<{ name: string; rect: number[] }>;
  const [x, y, w, hh] = nodes.find((n) => n.name === 'Freeze')!.rect;
  const r = await gameCall(h, stuck, 'pointer', { action: 'click', x: x + w / 2, y: y + hh / 2 }, 60_000);
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(STUCK_ANSWER);
  expect(STUCK_ANSWER.exec(r.text)![1]).toBe('pointer');
  expect(r.json).toMatchObject({ kind: 'CommandTimeout', port: stuck, cmd: 'pointer' });
  expect((await gameCall(h, other, 'get_state')).isError).toBe(false);
  await restarted();
});

test('an input_sequence that gets the page stuck answers with the frames error', async () => {
  const r = await gameCall(
    h,
    stuck,
    'input_sequence',
    {
      steps: [
        { frame: 0, tool: 'press', args: { input: 'ArrowLeft', frames: 1 } },
        { frame: 2, tool: 'hold', args: { input: 'ArrowRight', ms: 60_000 } },
        { frame: 3, tool: 'press', args: { input: 'b', frames: 1 } },
        { frame: 10, tool: 'release', args: { input: 'ArrowRight' } },
      ],
    },
    60_000,
  );
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(STUCK_ANSWER);
  expect(STUCK_ANSWER.exec(r.text)![1]).toBe('input_sequence');
  expect(r.json).toMatchObject({ kind: 'CommandTimeout', port: stuck, cmd: 'input_sequence' });
  expect((await gameCall(h, other, 'get_state')).isError).toBe(false);
  await restarted();
});
