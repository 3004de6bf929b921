/**
 * What a session's recording keeps of a call_tool call (daemon/tools/record-call.ts), as each
 * bridge tool's declaration says (`recorded`): a `do` step, a `check` step, or nothing; a game's
 * own tool by its manifest's readOnly.
 */
import { normaliseManifest } from '../../../../daemon/bridge/index.js';
import { Recordings } from '../../../../daemon/recording/recordings.js';
import { recordCall } from '../../../../daemon/tools/record-call.js';
import type { ToolContext } from '../../../../daemon/tool-framework/context.js';

const PORT = 7820;
const manifest = normaliseManifest({
  game: { name: 'Crate Stack' },
  toolsets: [{ name: 'play', tools: [{ name: 'drop' }, { name: 'peek', readOnly: true }] }],
});

/** A session with just what recordCall reads: its id, its recordings and the manifest it knows. */
function session(): { ctx: ToolContext; steps: () => { kind: string; name?: string; tool?: string }[] } {
  const recordings = new Recordings();
  const ctx = { sessionId: 's1', recordings, knownManifest: () => manifest } as unknown as ToolContext;
  return { ctx, steps: () => recordings.of('s1', PORT).steps.list() };
}

const bridgeAnswer = (tool: string) => ({ port: PORT, tool, via: 'bridge' });

test('a bridge tool declared as a do step is recorded as one', () => {
  const { ctx, steps } = session();
  recordCall(ctx, PORT, 'bridge.press', { input: 'left' }, bridgeAnswer('press'));
  expect(steps()).toMatchObject([{ kind: 'do', name: 'bridge.press' }]);
});

test('activate is recorded as a do step, as click is', () => {
  const { ctx, steps } = session();
  recordCall(ctx, PORT, 'bridge.activate', { ref: 'e3' }, bridgeAnswer('activate'));
  expect(steps()).toMatchObject([{ kind: 'do', name: 'bridge.activate' }]);
});

test('a bridge tool declared as a check is recorded as a check, even when it failed', () => {
  const { ctx, steps } = session();
  recordCall(ctx, PORT, 'wait_for', { path: 'score', equals: 3 }, undefined, new Error('timed out'));
  expect(steps()).toMatchObject([{ kind: 'check', tool: 'wait_for', held: false }]);
});

test('a bridge tool declared as recording nothing leaves the recording empty', () => {
  const { ctx, steps } = session();
  recordCall(ctx, PORT, 'get_state', {}, bridgeAnswer('get_state'));
  recordCall(ctx, PORT, 'snapshot', {}, bridgeAnswer('snapshot'));
  recordCall(ctx, PORT, 'save_test', { name: 't' }, bridgeAnswer('save_test'));
  expect(steps()).toEqual([]);
});

test('step with a condition is recorded as a do step and a check', () => {
  const { ctx, steps } = session();
  recordCall(
    ctx,
    PORT,
    'bridge.step',
    { frames: 5, until: { path: 'score', equals: 1 } },
    { ...bridgeAnswer('step'), stepped: 5 },
  );
  expect(steps().map((s) => s.kind)).toEqual(['do', 'check']);
});

test("a game's own tool is recorded unless its manifest marks it read-only", () => {
  const { ctx, steps } = session();
  recordCall(ctx, PORT, 'drop', { x: 1 }, { port: PORT, tool: 'drop', via: 'manifest' });
  recordCall(ctx, PORT, 'peek', {}, { port: PORT, tool: 'peek', via: 'manifest' });
  expect(steps()).toMatchObject([{ kind: 'do', name: 'drop' }]);
});
