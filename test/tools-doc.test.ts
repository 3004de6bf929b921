/**
 * docs/TOOLS.md documents every field the tools return. This test drives the real proxy and
 * daemon through the SDK client against the example game, collects real answers of every tool
 * (and of the bridge toolset through call_tool), and checks them against the document both
 * ways: every field an answer carries is documented, and every documented field shows up in
 * some answer or is marked "(when …)" as conditional.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, gameCall } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { freeRange } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { waitFor } from './helpers/procs.js';
import { startTreeGame } from './helpers/tree-game.js';
import { TOOLS_BY_NAME } from '../daemon/tools/index.js';
import { bridgeToolNamed } from '../daemon/bridge/index.js';

const suite = pairSuite('gb-tools-doc-');
type Json = Record<string, unknown>;

/** `## name` sections of docs/TOOLS.md → documented field paths, and which are marked conditional. */
function documented(): Map<string, Map<string, boolean>> {
  const text = readFileSync(join(process.cwd(), 'docs', 'TOOLS.md'), 'utf8');
  const out = new Map<string, Map<string, boolean>>();
  let fields: Map<string, boolean> | undefined;
  for (const line of text.split('\n')) {
    const heading = /^## `?([a-z_ ]+?)`?\s*$/.exec(line);
    if (heading) out.set(heading[1], (fields = new Map()));
    const row = /^\| `([^`]+)` \|(.*)\|\s*$/.exec(line);
    if (row && fields) fields.set(row[1], /\(when /.test(row[2]));
  }
  return out;
}

/** Field paths of an answer: `a`, `a.b`, `list[]`, `list[].x`, down to `depth` levels. */
function paths(value: unknown, depth = 2, prefix = ''): string[] {
  if (depth === 0 || value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) out.push(...paths(item, depth, `${prefix}[]`));
    return out;
  }
  for (const [k, v] of Object.entries(value as Json)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.push(p);
    if (Array.isArray(v)) for (const item of v) out.push(...paths(item, depth - 1, `${p}[]`));
    else out.push(...paths(v, depth - 1, p));
  }
  return [...new Set(out)];
}

/** A documented path covers itself; one ending in `.…` (the game's own data) covers everything under it too. */
function covered(path: string, docs: Map<string, boolean>): boolean {
  if (docs.has(path)) return true;
  for (const d of docs.keys())
    if (d.endsWith('.…') && (path === d.slice(0, -2) || path.startsWith(d.slice(0, -1)))) return true;
  return false;
}

/** Every answer collected below, by the tool that gave it ('errors': the failures). */
const answers = new Map<string, Json[]>();

test('docs/TOOLS.md documents exactly the fields the tools answer', async () => {
  const ports = await freeRange(3);
  const project = writeProject(join(suite.home, 'game'), { ports, launch: { cwd: '.' }, gameArgs: '--screenshot' });
  const h = await suite.open(project.cwd);
  // with the list read, the SDK client checks every answer against its tool's outputSchema
  await h.client.listTools();
  const keep = (tool: string, json: Json) => answers.set(tool, [...(answers.get(tool) ?? []), json]);

  const launched = await call(h, 'launch_instance', {}, 60000);
  expect(launched.isError).toBeFalsy();
  keep('launch_instance', launched.json);
  suite.trackGroup(launched.json.pid as number);
  const port = launched.json.port as number;

  keep('list_instances', (await call(h, 'list_instances')).json);
  keep('list_toolsets', (await call(h, 'list_toolsets', { port })).json);
  keep('describe_toolset', (await call(h, 'describe_toolset', { port, toolset: 'play' })).json);
  keep('describe_toolset', (await call(h, 'describe_toolset', { port, toolset: 'bridge' })).json);
  keep('call_tool', (await gameCall(h, port, 'start')).json);
  keep('call_tool', (await gameCall(h, port, 'drop', { x: 50 })).json);
  keep('get_state', (await gameCall(h, port, 'get_state')).json);
  keep('get_state', (await gameCall(h, port, 'get_state', { path: 'game.score' })).json);
  keep('wait_for', (await gameCall(h, port, 'wait_for', { path: 'ui.screen', equals: 'GameScreen' })).json);
  keep('health', (await gameCall(h, port, 'health')).json);
  keep('raw_command', (await gameCall(h, port, 'raw_command', { cmd: 'drop', args: { x: 40 } })).json);
  keep('hold', (await gameCall(h, port, 'hold', { input: 'right', ms: 5000 })).json);
  keep('release', (await gameCall(h, port, 'release', {})).json);
  keep('call_tool', (await gameCall(h, port, 'pause')).json); // Crate Stack's own pause (a game's tool name comes first)
  keep('step', (await gameCall(h, port, 'step', { frames: 2 })).json);
  keep(
    'step',
    (await gameCall(h, port, 'step', { frames: 50, until: { path: 'game.crates.1.settled', equals: true } })).json,
  );
  keep('press', (await gameCall(h, port, 'press', { input: 'left', frames: 2 })).json);
  keep('press', (await gameCall(h, port, 'press', { input: 'left', frames: 2, filmstrip: 2 })).json);
  keep('watch', (await gameCall(h, port, 'watch', { frames: 2 })).json);
  keep('pointer', (await gameCall(h, port, 'pointer', { action: 'click', x: 40, y: 40 })).json);
  keep(
    'pointer',
    (await gameCall(h, port, 'pointer', { action: 'drag', path: [[10, 10]], x: 30, y: 10, frames: 2 })).json,
  );
  keep('wheel', (await gameCall(h, port, 'wheel', { dy: 5 })).json);
  keep('set_axis', (await gameCall(h, port, 'set_axis', { input: 'steer', value: 0.5, frames: 2 })).json);
  keep('type', (await gameCall(h, port, 'type', { text: 'Ada' })).json);
  keep(
    'input_sequence',
    (
      await gameCall(h, port, 'input_sequence', {
        steps: [
          { frame: 0, tool: 'press', args: { input: 'left' } },
          { frame: 2, tool: 'type', args: { text: 'B' } },
        ],
      })
    ).json,
  );
  keep('call_tool', (await gameCall(h, port, 'resume')).json);
  keep('assert', (await gameCall(h, port, 'assert', { path: 'ui.screen', equals: 'GameScreen' })).json);
  const unmet = await gameCall(h, port, 'assert', { path: 'game.score', lt: 0 });
  expect(unmet.isError).toBe(true);
  keep('errors', unmet.json);
  // an error the kit caught, so get_errors lists one with every field
  expect((await gameCall(h, port, 'throw_error', { message: 'tools-doc' })).isError).toBe(true);
  keep('get_errors', (await gameCall(h, port, 'get_errors', {})).json);
  keep('save_test', (await gameCall(h, port, 'save_test', { name: 'tools-doc' })).json);
  keep('save_trace', (await gameCall(h, port, 'save_trace', { file: 'traces/tools-doc.trace.html' })).json);
  const ran = await gameCall(h, port, 'run_test', { name: 'tools-doc' }, 120000);
  expect(ran.isError).toBe(false);
  keep('run_test', ran.json);
  const skill = {
    name: 'tools-doc',
    description: 'Drop one crate at x.',
    args: [{ name: 'x', type: 'number', default: 30 }],
  };
  keep(
    'define_skill',
    (
      await gameCall(h, port, 'define_skill', {
        ...skill,
        steps: [{ do: 'call_tool', name: 'drop', arguments: { x: '${x}' } }],
      })
    ).json,
  );
  keep(
    'skill_from_session',
    (await gameCall(h, port, 'skill_from_session', { name: 'tools-doc-session', args: [{ name: 'x', value: 40 }] }))
      .json,
  );
  keep('delete_skill', (await gameCall(h, port, 'delete_skill', { name: 'tools-doc' })).json);
  keep('instance_log', (await call(h, 'instance_log', { port, lines: 5 })).json);
  // frame times, with one frame held long on purpose so the long frames have one
  await fetch(`http://127.0.0.1:${port}/command?cmd=frames.stall&ms=40`).then((r) => r.json());
  const frameNow = async () =>
    ((await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as Json).frame as number;
  const heldAt = await frameNow();
  await waitFor('two frames after the held one', async () => (await frameNow()) > heldAt + 2);
  keep('frame_stats', (await gameCall(h, port, 'frame_stats', {})).json);
  keep('frame_stats', (await gameCall(h, port, 'frame_stats', { frames: 30 })).json);
  const stopped = await call(h, 'stop_instance', { port }, 60000);
  keep('stop_instance', stopped.json);

  // a game's whole life: two at once, one killed, what every tool then says about it
  const two = await call(h, 'launch_instance', { count: 2 }, 60000);
  keep('launch_instance', two.json);
  const [a, b] = two.json.instances as Array<{ port: number; pid: number }>;
  for (const g of [a, b]) suite.trackGroup(g.pid);
  process.kill(a.pid, 'SIGKILL');
  const listed = await waitFor('the killed game under exited', async () => {
    const l = (await call(h, 'list_instances')).json;
    return (l.exited as Json[]).length ? l : undefined;
  });
  keep('list_instances', listed);
  const exited = await gameCall(h, a.port, 'get_state');
  expect(exited.isError).toBe(true);
  keep('errors', exited.json);
  keep('instance_log', (await call(h, 'instance_log', { port: a.port })).json);
  const again = await call(h, 'launch_instance', { restart: a.port, paused: true }, 60000);
  keep('launch_instance', again.json);
  suite.trackGroup(again.json.pid as number);
  keep('stop_instance', (await call(h, 'stop_instance', { port: b.port }, 60000)).json);

  // the UI and world tools, on a game that publishes both trees
  const trees = await startTreeGame(suite.reaper);
  const rev = (await gameCall(h, trees, 'snapshot')).json.snapshot.revision as number;
  keep('snapshot', (await gameCall(h, trees, 'snapshot', { includeHidden: true })).json);
  keep('snapshot', (await gameCall(h, trees, 'snapshot', { role: 'slider' })).json);
  keep('snapshot', (await gameCall(h, trees, 'snapshot', { tree: 'world' })).json);
  keep('snapshot', (await gameCall(h, trees, 'snapshot', { tree: 'both' })).json);
  keep('click', (await gameCall(h, trees, 'click', { ref: 'start' })).json);
  keep('snapshot', (await gameCall(h, trees, 'snapshot', { since: rev })).json);
  keep('set_value', (await gameCall(h, trees, 'set_value', { ref: 'vol', value: 0.5 })).json);
  keep('wait_for_node', (await gameCall(h, trees, 'wait_for_node', { ref: 'opts', state: 'present' })).json);
  keep('wait_for_node', (await gameCall(h, trees, 'wait_for_node', { ref: 'nothing', state: 'gone' })).json);
  keep('find_objects', (await gameCall(h, trees, 'find_objects', { near: { ref: 'hero', within: 50 } })).json);
  keep('find_objects', (await gameCall(h, trees, 'find_objects', { type: 'crate' })).json);
  keep('wait_for_object', (await gameCall(h, trees, 'wait_for_object', { tag: 'wood' })).json);
  keep('errors', (await gameCall(h, trees, 'click', { ref: 'strat' })).json);
  keep('errors', (await gameCall(h, trees, 'click', { ref: 'buy' })).json);

  const docs = documented();
  const undocumented: string[] = [];
  const neverSeen: string[] = [];
  for (const [tool, list] of answers) {
    const fields = docs.get(tool);
    if (!fields) {
      undocumented.push(`${tool} (no section)`);
      continue;
    }
    const seen = new Set(list.flatMap((a) => paths(a)));
    for (const p of seen) if (!covered(p, fields)) undocumented.push(`${tool}: ${p}`);
    for (const [p, conditional] of fields) {
      const base = p.endsWith('.…') ? p.slice(0, -2) : p;
      if (!conditional && !seen.has(base)) neverSeen.push(`${tool}: ${p}`);
    }
  }
  expect(undocumented).toEqual([]);
  expect(neverSeen).toEqual([]);
}, 120000);

test("every answer fits its tool's output schema", () => {
  expect(answers.size).toBeGreaterThan(30);
  const misfits: string[] = [];
  for (const [tool, list] of answers) {
    if (tool === 'errors') continue;
    const schema = (TOOLS_BY_NAME.get(tool) ?? bridgeToolNamed(tool))?.output;
    if (!schema) {
      misfits.push(`${tool}: no output schema`);
      continue;
    }
    for (const json of list) {
      const r = schema.safeParse(json);
      if (!r.success)
        misfits.push(`${tool}: ${r.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    }
  }
  expect(misfits).toEqual([]);
});
