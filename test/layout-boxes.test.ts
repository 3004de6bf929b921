/**
 * The page's boxes read from one layout snapshot (daemon/web/layout-boxes.ts): an element's box
 * in viewport pixels rounded as getBoxModel's was, none for an element not laid out, and the
 * boxes the snapshot cannot give exactly (text, transformed or SVG content, nodes it does not
 * hold) left to getBoxModel. The snapshots here are written by hand in CDP's shape.
 */
import { readLayout, type LayoutSnapshot } from '../daemon/web/layout-boxes.js';

const NONE = 0; // strings[0]
const strings = ['none', 'Page title', 'rotate(7deg)', '#document', 'HTML', 'BODY', 'DIV', 'BUTTON', '#text', 'svg'];
const S = (s: string) => strings.indexOf(s);

/** One document: nodes as [parent, nodeType, nodeName, backendNodeId], layout as [node, bounds, moves]. */
function snapshot(
  nodes: Array<[number, number, string, number]>,
  layout: Array<[number, number[], boolean?]>,
  scroll = { x: 0, y: 0 },
): LayoutSnapshot {
  return {
    strings,
    documents: [
      {
        title: S('Page title'),
        scrollOffsetX: scroll.x,
        scrollOffsetY: scroll.y,
        nodes: {
          parentIndex: nodes.map((n) => n[0]),
          nodeType: nodes.map((n) => n[1]),
          nodeName: nodes.map((n) => S(n[2])),
          backendNodeId: nodes.map((n) => n[3]),
        },
        layout: {
          nodeIndex: layout.map((l) => l[0]),
          bounds: layout.map((l) => l[1]),
          styles: layout.map((l) => [l[2] ? S('rotate(7deg)') : NONE, NONE, NONE, NONE, NONE]),
        },
      },
    ],
  };
}

const PAGE: Array<[number, number, string, number]> = [
  [-1, 9, '#document', 1],
  [0, 1, 'HTML', 2],
  [1, 1, 'BODY', 3],
  [2, 1, 'BUTTON', 4],
  [3, 3, '#text', 5],
  [2, 1, 'DIV', 6],
  [5, 1, 'BUTTON', 7],
  [2, 1, 'svg', 8],
  [7, 1, 'DIV', 9],
  [2, 1, 'BUTTON', 10],
];

describe('layout boxes', () => {
  test("an element's box is its bounds less the scroll, rounded from its corners", () => {
    const layout = readLayout(snapshot(PAGE, [[3, [10.4, 1758.40625, 20.3, 21]]], { x: 0, y: 334 }));
    expect(layout.boxOf(4)).toEqual([10, 1424, 20, 21]);
  });

  test('the title is the document title', () => {
    expect(readLayout(snapshot(PAGE, [])).title).toBe('Page title');
  });

  test('an element the snapshot holds but did not lay out has no box', () => {
    expect(readLayout(snapshot(PAGE, [])).boxOf(10)).toBeNull();
  });

  test('a text run, an element under a transform, SVG content and an unknown node are left to getBoxModel', () => {
    const layout = readLayout(
      snapshot(PAGE, [
        [4, [0, 0, 5, 5]],
        [5, [0, 0, 50, 50], true],
        [6, [1, 1, 10, 10]],
        [7, [0, 0, 30, 30]],
        [8, [2, 2, 3, 3]],
      ]),
    );
    expect([5, 6, 7, 9, 99].map((id) => layout.boxOf(id))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(layout.boxOf(8)).toEqual([0, 0, 30, 30]);
  });

  test('an element slotted into a shadow tree that moves anything is left to getBoxModel', () => {
    const nodes: Array<[number, number, string, number]> = [
      [-1, 9, '#document', 1],
      [0, 1, 'DIV', 2], // the host
      [1, 11, '#document', 3], // its shadow root
      [2, 1, 'DIV', 4], // a transformed wrapper around the slot
      [1, 1, 'BUTTON', 5], // the slotted light child
    ];
    const layout = readLayout(
      snapshot(nodes, [
        [1, [0, 0, 100, 100]],
        [3, [0, 0, 100, 100], true],
        [4, [5, 5, 10, 10]],
      ]),
    );
    expect(layout.boxOf(5)).toBeUndefined();
    expect(layout.boxOf(2)).toEqual([0, 0, 100, 100]);
  });
});
