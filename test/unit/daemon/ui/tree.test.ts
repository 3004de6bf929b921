/** The UI tree model (daemon/ui/tree.ts, refs.ts) and the world's look (world.ts): pure logic. */
import { filterTree, nearMisses, readUi, renderUi, walk } from '../../../../daemon/ui/tree.js';
import { actionable } from '../../../../daemon/ui/refs.js';
import { look, readWorld } from '../../../../daemon/ui/world.js';

const ui = readUi(1, {
  sessionEpoch: 2,
  frameSequence: 3456,
  revision: 12,
  screen: 'MenuScreen',
  nodes: [
    {
      id: 'menu',
      role: 'group',
      name: 'Main menu',
      children: [
        { id: 'start', role: 'button', name: 'Start', rect: [540, 300, 200, 48] },
        { id: 'opts', role: 'button', name: 'Options', enabled: false },
        { id: 'vol', role: 'slider', name: 'Volume', value: 0.8, min: 0, max: 1 },
      ],
    },
    {
      id: 'secret',
      role: 'group',
      name: 'Secret',
      visible: false,
      children: [{ id: 'inner', role: 'button', name: 'Inner' }],
    },
    { role: 'button', name: 'no id: cannot be referred to' },
    'garbage',
  ],
});

test('the text rendering is the one the docs show, hidden nodes left out', () => {
  expect(renderUi(ui, filterTree(ui.nodes, {}))).toBe(
    [
      'MenuScreen · ui revision 12 · snapshot 3456 · epoch 2',
      '- group "Main menu" [ref=menu]',
      '  - button "Start" [ref=start]',
      '  - button "Options" [ref=opts] disabled',
      '  - slider "Volume" [ref=vol] value=0.8',
    ].join('\n'),
  );
  expect(renderUi(ui, filterTree(ui.nodes, { includeHidden: true }))).toContain('  - button "Inner" [ref=inner]');
});

test("a canvas's line gives its box, which no other node's line does", () => {
  const page = readUi(1, {
    nodes: [
      { id: 'dom-7', role: 'canvas', name: '', rect: [37, 53, 300, 150] },
      { id: 'dom-8', role: 'button', name: 'Roll', rect: [0, 0, 40, 20] },
    ],
  });
  expect(renderUi(page, page.nodes).split('\n').slice(1)).toEqual([
    '- canvas [ref=dom-7] box=[37,53,300,150]',
    '- button "Roll" [ref=dom-8]',
  ]);
});

test('a node inside a hidden one is hidden too', () => {
  expect(walk(ui.nodes).find((w) => w.node.id === 'inner')?.hidden).toBe(true);
});

test('a hidden or disabled node is refused as such', () => {
  expect(() => actionable('click', 1, ui, 'inner')).toThrow(/button "Inner" \[ref=inner\] is hidden/);
  expect(() => actionable('click', 1, ui, 'opts')).toThrow(/is disabled/);
  expect(actionable('click', 1, ui, 'start').node.name).toBe('Start');
});

test('near misses by id or name, closest first', () => {
  expect(nearMisses(ui, 'strat')[0]).toBe('button "Start" [ref=start]');
  expect(nearMisses(ui, 'volume')[0]).toBe('slider "Volume" [ref=vol] value=0.8');
  expect(nearMisses(ui, 'zzzzzzzz')).toEqual([]);
});

test('a malformed snapshot is refused, naming what is wrong', () => {
  expect(() => readUi(1, { nodes: 'no' })).toThrow(/GET \/ui is not a UI snapshot \(nodes/);
});

test('near resolves the reference and the candidates in the one snapshot given, closest first', () => {
  const w = readWorld(1, {
    revision: 3,
    objects: [
      { id: 'hero', type: 'player', pos: [100, 0] },
      { id: 'a', type: 'crate', pos: [103, 4] },
      { id: 'b', type: 'crate', pos: [101, 0], tags: ['x'] },
      { id: 'far', type: 'crate', pos: [900, 0] },
    ],
  });
  const l = look(w, { near: { ref: 'hero', within: 10 } });
  expect(l.matches.map((m) => [m.id, m.distance])).toEqual([
    ['b', 1],
    ['a', 5],
  ]);
  expect(look(w, { tag: 'x' }).matches.map((m) => m.id)).toEqual(['b']);
  expect(() => look(w, { near: { ref: 'nobody', within: 1 } })).toThrow(
    /has no object 'nobody'\. Objects: hero, a, b, far/,
  );
});
