/** The saved-test format (docs/TESTS.md): what parses, and what is refused with its file and line. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatTest, parseTestText } from '../../../shared/test-file.js';

const HEAD =
  '{"gamebridgeTest": 1, "name": "t", "game": {"name": "Crate Stack"}, "launch": {"config": "../gamebridge.json"}, "timing": "frame-exact"}';
const refused = (text: string) => {
  try {
    parseTestText(text, '/p/gamebridge-tests/t.jsonl');
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('parsed');
};

test("the docs' hand-written example parses: header, do steps, expects, a screenshot", () => {
  const docs = readFileSync(join(process.cwd(), 'docs', 'TESTS.md'), 'utf8');
  const block = /```jsonl\n([\s\S]*?)```/.exec(docs)![1];
  const t = parseTestText(block, '/p/gamebridge-tests/first-drop.jsonl');
  expect(t.header).toMatchObject({ name: 'first-drop', timing: 'frame-exact', ignore: ['game.startedAt'] });
  expect(t.steps.map((s) => s.kind)).toEqual(['do', 'expect', 'do', 'expect', 'do', 'do', 'expect', 'expect']);
  expect(t.steps[0]).toMatchObject({ name: 'start', arguments: {}, line: 2 });
  expect(t.steps[2]).toMatchObject({ name: 'bridge.press', atSimFrame: 0 });
  expect(t.steps[7]).toMatchObject({ expect: { screenshot: 'first-drop.png', maxDiffRatio: 0.01 } });
  expect(t.dir).toBe('/p/gamebridge-tests');
  // what save_test and --update write reads back the same
  const again = parseTestText(formatTest(t.header, t.steps), t.file);
  expect(again.steps.map(({ line: _l, ...s }) => s)).toEqual(t.steps.map(({ line: _l, ...s }) => s));
});

test('refused, naming the line: garbage, unknown fields, two operators, a newer version, no header', () => {
  expect(refused(`${HEAD}\n{"do": "call_tool", "name": "start"}\nnot json`)).toMatch(
    /^t\.jsonl|\/p\/gamebridge-tests\/t\.jsonl:3: not a JSON object/,
  );
  expect(refused(`${HEAD}\n{"expect": {"path": "game.score", "equal": 3}}`)).toMatch(
    /t\.jsonl:2: unknown field 'expect.equal'/,
  );
  expect(refused(`${HEAD}\n{"expect": {"path": "a", "gt": 1, "lt": 3}}`)).toMatch(
    /:2: 'expect': an expect names exactly one operator.*this one has gt, lt/,
  );
  expect(refused(`${HEAD}\n{"do": "call_tool", "name": "x", "when": 3}`)).toMatch(/:2: unknown field 'when'/);
  expect(refused(`${HEAD}\n{"wait": 3}`)).toMatch(/:2: a step is \{"do"/);
  expect(refused(HEAD.replace('"gamebridgeTest": 1', '"gamebridgeTest": 2'))).toMatch(
    /:1: this test is format version 2; this game-bridge-mcp reads version 1\. Update game-bridge-mcp/,
  );
  expect(refused(HEAD.replace('"timing": "frame-exact"', '"timing": "fast"'))).toMatch(/:1: header: 'timing'/);
  expect(refused(HEAD.replace('"launch": {"config": "../gamebridge.json"}, ', ''))).toMatch(/:1: header: 'launch'/);
  expect(refused('{"do": "call_tool", "name": "x"}')).toMatch(/:1: the first line is the header/);
  expect(refused('\n\n')).toMatch(/:1: the file is empty/);
  expect(refused(`${HEAD}\n{"expect": {"screenshot": "a.png", "maxDiffRatio": 2}}`)).toMatch(/:2: /);
  expect(refused(`${HEAD}\n${HEAD}`)).toMatch(/:2: a second header/);
  expect(refused('x')).toMatch(/^BridgeUsageError|\/p\/gamebridge-tests\/t\.jsonl:1/);
});

const withoutGame = () =>
  parseTestText(
    `${HEAD.replace('"game": {"name": "Crate Stack"}, ', '')}\n{"do": "call_tool", "name": "start"}`,
    '/p/gamebridge-tests/t.jsonl',
  );

test("a hand-written header without the informative 'game' parses", () => {
  expect(withoutGame().header.game).toBeUndefined();
});

test("a header without 'game' is written back without one", () => {
  const t = withoutGame();
  expect(formatTest(t.header, t.steps).split('\n')[0]).not.toContain('"game"');
});
