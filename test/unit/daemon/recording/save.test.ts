/** A recording's calls as a saved test's steps (daemon/recording/save.ts testSteps): how each step is named. */
import { Recording } from '../../../../daemon/recording/recordings.js';
import { testSteps } from '../../../../daemon/recording/save.js';
import { parseTestText } from '../../../../shared/test-file.js';

function recorded(calls: Array<[name: string, via: string]>) {
  const rec = new Recording();
  for (const [name, via] of calls)
    rec.keep({ kind: 'do', name, arguments: {}, at: Date.now(), answer: { tool: name, via }, simFrame: 0 });
  return testSteps(rec, true).steps.map((s) => ('do' in s ? s.name : 'expect'));
}

test('a bridge tool is saved as bridge.<tool> whichever way it reached the game (the kit, the browser)', () => {
  expect(
    recorded([
      ['press', 'bridge'],
      ['press', 'browser'],
      ['pointer', 'game'],
      ['bridge.step', 'bridge'],
    ]),
  ).toEqual(['bridge.press', 'bridge.press', 'bridge.pointer', 'bridge.step']);
});

test("the game's own tools, skills and composites keep their names", () => {
  expect(
    recorded([
      ['pause', 'manifest'],
      ['jump', 'passthrough'],
      ['combo', 'composite'],
      ['route', 'skill'],
      ['buy', 'webmcp'],
    ]),
  ).toEqual(['pause', 'jump', 'combo', 'route', 'buy']);
});

test('a test saved with a bare bridge tool name still loads', () => {
  const head = JSON.stringify({
    gamebridgeTest: 1,
    name: 'old',
    launch: { config: '../gamebridge.json' },
    timing: 'frame-exact',
  });
  const t = parseTestText(
    `${head}\n${JSON.stringify({ do: 'call_tool', name: 'press', arguments: { input: 'right' } })}\n`,
    'old.jsonl',
  );
  expect(t.steps[0]).toMatchObject({ name: 'press' });
});
