/**
 * The manifest normaliser's exact words and edges: each warning a game author reads when a
 * manifest is off (docs/CONTRACT.md), the names it trims, the aliases it accepts, the `game` and
 * `passthrough` blocks in their short forms, and how a repeated toolset is merged.
 */
import type { Manifest } from '../../../../daemon/game/manifest.js';
import { BRIDGE_TOOL_NAMES, normaliseManifest } from '../../../../daemon/bridge/index.js';

const one = (tools: unknown, name = 'play') => normaliseManifest({ toolsets: [{ name, tools }] });
const set = (m: Manifest, name: string) => m.toolsets.find((t) => t.name === name);
const toolNames = (m: Manifest, name: string) => set(m, name)?.tools.map((t) => t.name);

describe('a tool that cannot be read', () => {
  test.each([
    [[null], "Dropped a tool in toolset 'play': it is null, not an object."],
    [[7], "Dropped a tool in toolset 'play': it is number, not an object."],
    [{ jump: null }, "Dropped a tool in toolset 'play' ('jump'): it is null, not an object."],
    [{ jump: 'up' }, "Dropped a tool in toolset 'play' ('jump'): it is string, not an object."],
    [[{ description: 'x' }], "Dropped a tool in toolset 'play': it has no name."],
    [[{ name: 5 }], "Dropped a tool in toolset 'play': it has no name (name is 5)."],
    [[{ name: '  ' }], 'Dropped a tool in toolset \'play\': it has no name (name is "  ").'],
    [
      [{ name: 'drop', args: 7 }],
      "Dropped tool 'drop' in toolset 'play': its arguments are a number, not a list or a map.",
    ],
  ])('%j warns: %s', (tools, warning) => {
    const m = one(tools);
    expect(m.warnings).toEqual([warning]);
    expect(toolNames(m, 'play')).toEqual([]);
  });

  test('a second tool of a name is dropped by name and the first one kept', () => {
    const m = one([
      { name: 'drop', description: 'first' },
      { name: ' drop ', description: 'second' },
    ]);
    expect(m.warnings).toEqual(["Dropped the second tool named 'drop' in toolset 'play'."]);
    expect(set(m, 'play')!.tools).toMatchObject([{ name: 'drop', description: 'first' }]);
  });
});

describe('a tool that can be read', () => {
  test('a tool is read leniently: trimmed names, `desc` for `description`, empty text for none', () => {
    const m = normaliseManifest({
      toolsets: [{ name: ' play ', tools: [{ name: ' drop ', desc: 'Drop a crate' }, { name: 'wait' }] }],
    });
    expect(m.warnings).toEqual([]);
    expect(set(m, 'play')!.tools).toMatchObject([
      { name: 'drop', description: 'Drop a crate', toolset: 'play' },
      { name: 'wait', description: '', toolset: 'play' },
    ]);
  });

  test('a map of tools names each by its key unless it names itself', () => {
    const m = one({ drop: {}, k: { name: 'wait' } });
    expect(toolNames(m, 'play')).toEqual(['drop', 'wait']);
  });
});

describe('a toolset', () => {
  test.each([
    [[null], 'Dropped toolset: it is null, not an object.'],
    [[3], 'Dropped toolset: it is number, not an object.'],
    [{ play: null }, "Dropped toolset 'play': it is null, not an object."],
    [{ play: true }, "Dropped toolset 'play': it is boolean, not an object."],
    [[{ tools: [] }], 'Dropped a toolset: it has no name.'],
    [[{ name: ' ', tools: [] }], 'Dropped a toolset: it has no name.'],
  ])('%j warns: %s', (toolsets, warning) => {
    const m = normaliseManifest({ toolsets });
    expect(m.warnings).toEqual([warning]);
    expect(m.toolsets.map((t) => t.name)).toEqual(['bridge']);
  });

  test.each([
    ['a string', 'drop', "Toolset 'play' has tools of type string, not a list or a map; it is empty."],
    ['a number', 4, "Toolset 'play' has tools of type number, not a list or a map; it is empty."],
  ])('tools given as %s: an empty toolset and a warning', (_what, tools, warning) => {
    const m = one(tools);
    expect(m.warnings).toEqual([warning]);
    expect(toolNames(m, 'play')).toEqual([]);
  });

  test.each([
    ['null', null],
    ['missing', undefined],
  ])('tools %s: an empty toolset and no warning', (_what, tools) => {
    const m = normaliseManifest({ toolsets: [{ name: 'play', description: 'Play', tools }] });
    expect(m.warnings).toEqual([]);
    expect(set(m, 'play')).toEqual({ name: 'play', description: 'Play', tools: [] });
  });

  test('a toolset is read leniently: `commands` for `tools`, empty text for no description', () => {
    const m = normaliseManifest({ toolsets: [{ name: 'play', commands: [{ name: 'drop' }] }] });
    expect(m.warnings).toEqual([]);
    expect(set(m, 'play')).toMatchObject({ description: '', tools: [{ name: 'drop' }] });
  });

  test('two toolsets of one name are merged: new tools appended, a repeated name dropped with a warning', () => {
    const m = normaliseManifest({
      toolsets: [
        { name: 'play', tools: [{ name: 'drop', description: 'first' }] },
        { name: 'play', tools: [{ name: 'drop', description: 'second' }, { name: 'wait' }] },
      ],
    });
    expect(m.warnings).toEqual(["Dropped the second tool named 'drop' in toolset 'play'."]);
    expect(m.toolsets.map((t) => t.name)).toEqual(['play', 'bridge']);
    expect(set(m, 'play')!.tools).toMatchObject([{ name: 'drop', description: 'first' }, { name: 'wait' }]);
  });
});

describe('the manifest as a whole', () => {
  test.each([
    [null, 'The manifest is null, not a JSON object; it lists no tools.'],
    [[], 'The manifest is an array, not a JSON object; it lists no tools.'],
    ['x', 'The manifest is string, not a JSON object; it lists no tools.'],
    [7, 'The manifest is number, not a JSON object; it lists no tools.'],
  ])('%j warns: %s', (raw, warning) => {
    expect(normaliseManifest(raw).warnings).toEqual([warning]);
  });

  test.each([
    [null, "The manifest's toolsets are a null, not a list or a map; it lists no tools."],
    ['play', "The manifest's toolsets are a string, not a list or a map; it lists no tools."],
    [1, "The manifest's toolsets are a number, not a list or a map; it lists no tools."],
  ])('toolsets %j warn: %s', (toolsets, warning) => {
    const m = normaliseManifest({ toolsets });
    expect(m.warnings).toEqual([warning]);
    expect(m.toolsets.map((t) => t.name)).toEqual(['bridge']);
  });

  test('top-level `tools` become the toolset `game` only in a manifest without toolsets', () => {
    expect(toolNames(normaliseManifest({ tools: [{ name: 'drop' }] }), 'game')).toEqual(['drop']);
    const both = normaliseManifest({ tools: [{ name: 'drop' }], toolsets: [{ name: 'play', tools: [] }] });
    expect(both.toolsets.map((t) => t.name)).toEqual(['play', 'bridge']);
    const neither = normaliseManifest({ game: 'G' });
    expect(neither.warnings).toEqual([]);
    expect(neither.toolsets.map((t) => t.name)).toEqual(['bridge']);
  });

  test('a game `bridge` toolset: its new tools join the built-in ones, a shadowed one is named', () => {
    const m = normaliseManifest({ toolsets: [{ name: 'bridge', tools: [{ name: 'get_state' }, { name: 'extra' }] }] });
    expect(m.warnings).toEqual([
      "The game's tool 'get_state' in toolset 'bridge' is shadowed by the built-in bridge tool of that name; put it in another toolset to reach it.",
    ]);
    expect(toolNames(m, 'bridge')).toEqual([...BRIDGE_TOOL_NAMES, 'extra']);
    expect(normaliseManifest({ toolsets: [{ name: 'play', tools: [] }] }).warnings).toEqual([]);
  });
});

describe('the game block', () => {
  test.each([
    ['a string is the name', 'Crate Stack', { name: 'Crate Stack' }],
    ['a number is nothing', 5, {}],
    ['null is nothing', null, {}],
    ['name and version', { name: 'G', version: '1.0' }, { name: 'G', version: '1.0' }],
    ['a numeric protocol', { protocol: 2 }, { protocol: 2 }],
    ['a protocol as text', { protocol: ' 3 ' }, { protocol: 3 }],
    ['a blank protocol is none', { protocol: '  ' }, {}],
    ['a protocol that is not a number is none', { protocol: 'two' }, {}],
    ['a protocol of another type is none', { protocol: true }, {}],
    ['inputs keep their text entries', { inputs: ['left', 3, 'right'] }, { inputs: ['left', 'right'] }],
    ['no inputs when the list is empty', { inputs: [] }, {}],
    ['no inputs when they are not a list', { inputs: 'left' }, {}],
  ])('%s', (_what, game, expected) => {
    expect(normaliseManifest({ game }).game).toEqual(expected);
  });
});

describe('the passthrough block', () => {
  test.each([
    ['a string is the description', 'anything else', { description: 'anything else' }],
    ['a number is none', 4, undefined],
    ['null is none', null, undefined],
    [
      'only text examples are kept',
      { description: 'd', examples: ['a', 1, 'b'] },
      { description: 'd', examples: ['a', 'b'] },
    ],
    ['a description that is not text is left out', { description: 5, examples: 'a' }, {}],
  ])('%s', (_what, passthrough, expected) => {
    expect(normaliseManifest({ passthrough }).passthrough).toEqual(expected);
  });

  test('no passthrough key, no passthrough', () => {
    expect('passthrough' in normaliseManifest({ toolsets: [] })).toBe(false);
  });
});
