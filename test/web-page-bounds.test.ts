/**
 * What a hostile page hands the shared daemon is bounded by the daemon, on the real proxy +
 * daemon, the SDK client and Debian's Chromium: a WebMCP tool whose schema sets a pattern that
 * backtracks for seconds in V8 (`^(a+)+$`) does not hold another session's calls up; a tool's
 * structuredContent of 1.5 million characters is left out, saying its size, and a page state as
 * big is refused though the page replaced the JSON.stringify its own state check uses.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { call, connect, gameCall, type McpHandle, cleanedAfterAll, launchWebGame } from './helpers/mcp.js';
import { tempHome } from './helpers/procs.js';

jest.setTimeout(180_000);

const BIG = 1_500_000;

const PAGE = `<!doctype html><html><head><title>Hostile page</title></head><body>
<h1>Hostile page</h1><button id="grow" onclick="window.big = true">Grow</button>
<script>
const real = JSON.stringify;
// the page's own state check sees one element; the daemon gets the whole text inside it
JSON.stringify = function (v, ...rest) {
  const text = real.call(JSON, v, ...rest);
  return v && v.blob ? [text] : text;
};
window.big = false;
window.gameAPI = { getState: () => (window.big ? { blob: 'x'.repeat(${BIG}) } : { small: true }) };
const mc = document.modelContext;
if (mc) {
  mc.registerTool({
    name: 'spell', description: 'Takes a word of a letters.',
    inputSchema: { type: 'object', properties: { word: { type: 'string', pattern: '^(a+)+$' } }, required: ['word'] },
    execute: async ({ word }) => 'spelt ' + word.length,
  });
  mc.registerTool({
    name: 'heap', description: 'Answers a heap of structured content.',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => ({ content: [{ type: 'text', text: 'heaped' }], structuredContent: { heap: 'y'.repeat(${BIG}) } }),
  });
}
</script></body></html>`;

const cleanup = cleanedAfterAll();
let home: string;
let h: McpHandle;
let port: number;
let project: string;

beforeAll(async () => {
  const site = tempHome('gb-bounds-site-');
  cleanup.homes.push(site);
  writeFileSync(join(site, 'index.html'), PAGE);
  ({ h, port, home, project } = await launchWebGame({
    prefix: 'gb-bounds-',
    name: 'hostile-page',
    web: { static: site, kit: false },
    cleanup,
  }));
});

/** How long `p` took, or Infinity past `ms` (a deadline, not a figure: the stall it guards against lasts seconds). */
async function within<T>(p: Promise<T>, ms: number): Promise<number> {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((r) => (timer = setTimeout(() => r(Infinity), ms)));
  const took = await Promise.race([p.then(() => Date.now() - t0), late]);
  clearTimeout(timer);
  return took;
}

test("a page tool's backtracking pattern does not hold up another session's list_instances", async () => {
  const other = await connect({
    env: { GAME_BRIDGE_HOME: home },
    cwd: project,
    args: ['--no-scan', '--timeout', '10000'],
  });
  cleanup.handles.push(other);
  expect((await gameCall(h, port, 'spell', { word: 'aaa' })).json.result).toBe('spelt 3');
  const evil = gameCall(h, port, 'spell', { word: `${'a'.repeat(30)}!` }, 120_000);
  // let the call reach the daemon and its argument check
  await new Promise((r) => setTimeout(r, 1000));
  expect(await within(call(other, 'list_instances'), 5000)).toBeLessThan(5000);
  const r = await evil;
  expect(r.text).toMatch(/^BridgeUsageError: spell: argument 'word' does not match the page's pattern \^\(a\+\)\+\$/);
});

test("a page tool's pattern still refuses a word it does not match, and takes one it does", async () => {
  expect((await gameCall(h, port, 'spell', { word: 'ab' })).text).toMatch(/^BridgeUsageError: .*'word'.*pattern/);
  expect((await gameCall(h, port, 'spell', { word: 'a'.repeat(200) })).json.result).toBe('spelt 200');
});

test("a page tool's structuredContent of 1.5 million characters is left out of its answer, saying why", async () => {
  const r = await gameCall(h, port, 'heap');
  expect(r.text.length).toBeLessThan(10_000);
  expect(r.json).toMatchObject({ tool: 'heap', via: 'webmcp', result: 'heaped' });
  expect(r.json.structuredContent).toBeUndefined();
  expect(r.json.structuredContentRefused).toBe(
    'it is 1500011 characters of JSON, over the 1000000 the bridge takes; have the tool answer less (a page of a list, a summary)',
  );
});

test("a page's state of 1.5 million characters is refused by the daemon, though the page's own check was fooled", async () => {
  expect((await gameCall(h, port, 'get_state')).json.state.game).toEqual({ small: true });
  await gameCall(h, port, 'raw_command', { cmd: 'ui.activate', args: { id: await growRef() } });
  const r = await gameCall(h, port, 'get_state');
  expect(r.isError).toBe(true);
  expect(r.text).toMatch(
    /window\.gameAPI\.getState\(\) failed: its value came back as an array where JSON text was expected/,
  );
  expect(r.text.length).toBeLessThan(10_000);
});

async function growRef(): Promise<string> {
  const text = (await gameCall(h, port, 'snapshot')).text;
  return /\[ref=(dom-\d+)\]/.exec(text.split('\n').find((l) => l.includes('button "Grow"'))!)![1];
}
