/**
 * call_tool's name resolution (daemon/tools/game-tool.ts resolveGameTool), from what is known
 * of a game (its manifest as an agent is shown it, the bridge toolset merged in): the one answer both the replay verdict and the dispatch use, so what a name is and
 * whether it may be re-sent after a daemon restart are decided once.
 */
import { normaliseManifest } from '../../../../daemon/bridge/index.js';
import { resolveGameTool } from '../../../../daemon/tools/game-tool.js';
import type { Composite } from '../../../../daemon/composites/types.js';

const manifest = normaliseManifest({
  game: { name: 'Crate Stack' },
  toolsets: [
    {
      name: 'play',
      tools: [
        { name: 'drop', args: [{ name: 'x', type: 'number' }] },
        { name: 'peek', readOnly: true },
        { name: 'health', description: "the game's own health, not the bridge's" },
      ],
    },
  ],
});

const composite = (readOnly?: boolean): Composite => ({
  name: 'drop',
  description: 'drops twice',
  ...(readOnly !== undefined ? { readOnly } : {}),
  run: () => undefined,
});

test("a tool of the game's manifest is a manifest tool", () => {
  expect(resolveGameTool('drop', manifest)).toMatchObject({
    kind: 'manifest',
    readOnly: false,
    tool: { name: 'drop' },
  });
});

test('a manifest tool marked read-only may be replayed', () => {
  expect(resolveGameTool('peek', manifest).readOnly).toBe(true);
});

test('a name the game does not list is a passthrough that is never replayed', () => {
  expect(resolveGameTool('explode', manifest)).toEqual({ kind: 'passthrough', readOnly: false });
});

test('a bridge tool is a bridge tool with its declared effect', () => {
  expect(resolveGameTool('get_state', manifest)).toMatchObject({ kind: 'bridge', readOnly: true });
});

test("a game's own tool of a bridge tool's name wins over the bridge's", () => {
  expect(resolveGameTool('health', manifest)).toMatchObject({ kind: 'manifest', tool: { toolset: 'play' } });
});

test("'bridge.' picks the built-in tool over the game's of the same name", () => {
  expect(resolveGameTool('bridge.health', manifest)).toMatchObject({ kind: 'bridge' });
});

test('before any manifest is known, the bridge toolset still answers for its tools', () => {
  expect(resolveGameTool('wait_for', undefined)).toMatchObject({ kind: 'bridge', readOnly: true });
});

test('before any manifest is known, any other name is a passthrough', () => {
  expect(resolveGameTool('drop', undefined).kind).toBe('passthrough');
});

test('a composite shadows the game command of its name', () => {
  expect(resolveGameTool('drop', manifest, composite())).toMatchObject({ kind: 'composite', readOnly: false });
});

test('a composite is read-only only when it says so', () => {
  expect(resolveGameTool('drop', manifest, composite(true)).readOnly).toBe(true);
});

test("a bridge tool that acts on no game (run_test) is the bridge's whatever the game lists", () => {
  const shadowing = normaliseManifest({ toolsets: [{ name: 'play', tools: [{ name: 'run_test', readOnly: true }] }] });
  expect(resolveGameTool('run_test', shadowing, composite(true))).toMatchObject({ kind: 'bridge', readOnly: false });
});
