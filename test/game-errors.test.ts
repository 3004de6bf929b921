/**
 * A game's errors through the real proxy and daemon: a command whose apply throws answers the
 * error with its frame and stack (the kit's /errors), get_errors lists it once with its count;
 * and Frog Hop (pygame) made to raise in its update on a frame the bridge steps to: the step
 * during which it raised names the traceback, with the last frame the bridge saw before it.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, cleanedAfterAll, gameCall, launchWebGame, type WebGameRun } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { freeRange } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { ROOT } from './helpers/procs.js';
import { describeIfRuntime } from './kits/kit-game.js';

const suite = pairSuite('gb-game-errors-');
/** The ref snapshot gives the node on the line that says `what`. */
const refOf = (text: string, what: string) =>
  /\[ref=(dom-\d+)\]/.exec(text.split('\n').find((l) => l.includes(what))!)![1];

test('a command whose apply throws answers the error, its frame and stack; get_errors counts repeats', async () => {
  const ports = await freeRange(2);
  const project = writeProject(join(suite.home, 'game'), { ports, launch: { cwd: '.' } });
  const h = await suite.open(project.cwd);
  const launched = await call(h, 'launch_instance', {}, 60000);
  suite.trackGroup(launched.json.pid as number);
  const port = launched.json.port as number;

  const threw = await gameCall(h, port, 'throw_error', { message: 'the crate fell through the floor' });
  expect(threw.isError).toBe(true);
  const [e, ...more] = threw.json.errors as any[];
  expect(more).toEqual([]);
  expect(e).toMatchObject({ message: 'Error: the crate fell through the floor', source: 'command', count: 1 });
  expect(e.frame).toEqual(expect.any(Number));
  expect(e.stack).toMatch(/^at /);
  expect(threw.text).toContain(`The game threw Error: the crate fell through the floor at frame ${e.frame}`);

  await gameCall(h, port, 'throw_error', { message: 'the crate fell through the floor' });
  const listed = await gameCall(h, port, 'get_errors', {});
  expect(listed.isError).toBe(false);
  expect(listed.json.errors).toEqual([expect.objectContaining({ message: e.message, count: 2, frame: e.frame })]);
  expect(listed.json.total).toBe(2);
  expect((await gameCall(h, port, 'get_errors', { since: listed.json.seq })).json.errors).toEqual([]);

  // a call that raised nothing answers no errors
  expect((await gameCall(h, port, 'get_state', {})).json.errors).toBeUndefined();
  await call(h, 'stop_instance', { port });
}, 120000);

describeIfRuntime('python', () => {
  test('Frog Hop raising in its update: the step it raised during names the traceback and a frame', async () => {
    const dir = join(suite.home, 'frog');
    cpSync(join(ROOT, 'examples', 'pygame-game'), dir, { recursive: true });
    const game = join(dir, 'game.py');
    const source = readFileSync(game, 'utf8')
      .replace('"..", "..", "kits"', JSON.stringify(join(ROOT, 'kits')))
      .replace(
        '        """One simulated frame, with held(input) telling which inputs are down."""\n',
        '        """One simulated frame, with held(input) telling which inputs are down."""\n' +
          '        self.__dict__["_n"] = self.__dict__.get("_n", 0) + 1\n' +
          '        if self._n == 5:\n' +
          '            self.x = self.x + None\n',
      );
    expect(source).toContain('self.x + None');
    writeFileSync(game, source);
    const h = await suite.open(dir);
    const launched = await call(h, 'launch_instance', { paused: true }, 90000);
    expect(launched.isError).toBe(false);
    suite.trackGroup(launched.json.pid as number);
    const port = launched.json.port as number;

    const step = await gameCall(h, port, 'step', { frames: 10 }, 60000);
    expect(step.isError).toBe(true);
    const thrown = "TypeError: unsupported operand type(s) for +: 'float' and 'NoneType'";
    expect(step.text).toContain(`The game threw ${thrown}`);
    expect(step.json.errors).toEqual([
      expect.objectContaining({ message: thrown, source: 'output', frame: expect.any(Number), count: 1 }),
    ]);
    expect(step.json.errors[0].stack).toContain('in step');
  }, 180000);
});

describe('a page that throws on a click', () => {
  const cleanup = cleanedAfterAll();
  let run: WebGameRun;
  beforeAll(async () => {
    run = await launchWebGame({
      prefix: 'gb-page-errors-',
      name: 'Breaks',
      web: { static: join(ROOT, 'test', 'fixtures', 'web-pages'), url: 'breaks.html', kit: false },
      cleanup,
    });
  }, 180000);

  test("the click answers the page's TypeError with its stack and its console.error; no favicon", async () => {
    const text = (await gameCall(run.h, run.port, 'snapshot')).text;
    const clicked = await gameCall(run.h, run.port, 'click', { ref: refOf(text, 'button "Break"') });
    expect(clicked.isError).toBe(false);
    const errors = clicked.json.errors as any[];
    expect(errors.map((e) => [e.source, e.message])).toEqual([
      ['console', 'the level failed to load'],
      ['page', "TypeError: Cannot read properties of null (reading 'tiles')"],
    ]);
    expect(errors[1].stack).toMatch(/^at HTMLButtonElement\.onBreak \(.*breaks\.html/);
    const listed = await gameCall(run.h, run.port, 'get_errors', {});
    expect(listed.json.errors.map((e: any) => e.message).join('\n')).not.toMatch(/favicon/);
    expect(listed.json.total).toBe(2);
  }, 120000);
});
