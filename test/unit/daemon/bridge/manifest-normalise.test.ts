/** Manifest normalisation (docs/CONTRACT.md, GET /tools): every spelling a game's serializer may produce, as pure functions. */
import { findTool, toolInputSchema, type Manifest } from '../../../../daemon/game/manifest.js';
import {
  BRIDGE_TOOL_NAMES,
  bridgeToolset,
  fallbackManifest,
  normaliseManifest,
} from '../../../../daemon/bridge/index.js';

const toolsetNames = (m: Manifest) => m.toolsets.map((t) => t.name);
const play = (m: Manifest) => m.toolsets.find((t) => t.name === 'play')!;

describe('normaliseManifest', () => {
  const specExample = {
    game: { name: 'Orbital Freight', version: '0.9.2', protocol: 1 },
    toolsets: [
      {
        name: 'play',
        description: 'Play the game',
        tools: [
          {
            name: 'drop',
            description: 'Drop a crate',
            args: [
              { name: 'x', type: 'number', description: 'World x', required: true, default: null },
              { name: 'settle', type: 'boolean', default: 'true' },
            ],
          },
        ],
      },
    ],
    passthrough: { description: 'anything else', examples: ['set_seed { seed }'] },
  };

  test('the contract example: game info, toolsets, args, passthrough, plus the bridge toolset', () => {
    const m = normaliseManifest(specExample, 'game');
    expect(m.source).toBe('game');
    expect(m.warnings).toEqual([]);
    expect(m.game).toEqual({ name: 'Orbital Freight', version: '0.9.2', protocol: 1 });
    expect(toolsetNames(m)).toEqual(['play', 'bridge']);
    const drop = findTool(m, 'drop')!;
    expect(drop.toolset).toBe('play');
    expect(drop.readOnly).toBe(false);
    expect(drop.args).toEqual([
      { name: 'x', type: 'number', description: 'World x', required: true },
      { name: 'settle', type: 'boolean', description: '', required: false, default: 'true' },
    ]);
    expect(m.passthrough).toEqual({ description: 'anything else', examples: ['set_seed { seed }'] });
  });

  test('toolsets as a map whose values are toolsets or lists of tools', () => {
    const m = normaliseManifest({
      toolsets: {
        play: { description: 'P', tools: [{ name: 'drop' }] },
        debug: [{ name: 'spawn' }, { name: 'kill_all' }],
      },
    });
    expect(toolsetNames(m)).toEqual(['play', 'debug', 'bridge']);
    expect(play(m).description).toBe('P');
    expect(findTool(m, 'kill_all')!.toolset).toBe('debug');
  });

  test('tools as a map name → tool', () => {
    const m = normaliseManifest({ toolsets: [{ name: 'play', tools: { drop: { description: 'D' }, undo: {} } }] });
    expect(play(m).tools.map((t) => t.name)).toEqual(['drop', 'undo']);
    expect(findTool(m, 'drop')!.description).toBe('D');
  });

  test.each(['args', 'arguments', 'params'])('arguments under `%s`', (key) => {
    const m = normaliseManifest({
      toolsets: [{ name: 'play', tools: [{ name: 'drop', [key]: [{ name: 'x', type: 'number' }] }] }],
    });
    expect(findTool(m, 'drop')!.args).toEqual([{ name: 'x', type: 'number', description: '', required: false }]);
    expect(m.warnings).toEqual([]);
  });

  test('arguments as bare names and as a map name → {type, description}', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [
            { name: 'bare', args: ['x', 'y'] },
            {
              name: 'mapped',
              args: { x: { type: 'float', description: 'World x', required: 'true' }, n: 'int', tag: null },
            },
          ],
        },
      ],
    });
    expect(findTool(m, 'bare')!.args).toEqual([
      { name: 'x', type: 'any', description: '', required: false },
      { name: 'y', type: 'any', description: '', required: false },
    ]);
    expect(findTool(m, 'mapped')!.args).toEqual([
      { name: 'x', type: 'number', description: 'World x', required: true },
      { name: 'n', type: 'integer', description: '', required: false },
      { name: 'tag', type: 'any', description: '', required: false },
    ]);
  });

  test('defaults are kept as text (null as none) and unknown types become any', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [
            {
              name: 't',
              args: [
                { name: 'a', type: 'number', default: '0.05' },
                { name: 'b', type: 'number', default: 0.05 },
                { name: 'c', type: 'boolean', default: false },
                { name: 'd', type: 'string', default: null },
                { name: 'e', type: 'Vector3' },
              ],
            },
          ],
        },
      ],
    });
    const args = findTool(m, 't')!.args;
    expect(args.map((a) => a.default)).toEqual(['0.05', '0.05', 'false', undefined, undefined]);
    expect('default' in args[3]).toBe(false);
    expect(args[4].type).toBe('any');
  });

  test('readOnly is honoured in its spellings', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [
            { name: 'a', readOnly: true },
            { name: 'b', readonly: true },
            { name: 'c', read_only: 'true' },
            { name: 'd', readOnly: false },
            { name: 'e' },
          ],
        },
      ],
    });
    expect(play(m).tools.map((t) => [t.name, t.readOnly])).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
      ['d', false],
      ['e', false],
    ]);
  });

  test('malformed tools are dropped with warnings and the rest survive', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [
            { description: 'no name' },
            { name: 42 },
            'just a string',
            null,
            { name: 'bad_args', args: 7 },
            { name: 'nameless_arg', args: [{ type: 'number' }] },
            { name: 'dup_arg', args: ['x', 'x'] },
            { name: 'good', args: ['x'] },
            { name: 'good' },
          ],
        },
        { description: 'a toolset with no name', tools: [{ name: 'lost' }] },
      ],
    });
    expect(play(m).tools.map((t) => t.name)).toEqual(['good']);
    expect(m.warnings.length).toBe(9);
    expect(m.warnings.join('\n')).toMatch(/bad_args/);
    expect(m.warnings.join('\n')).toMatch(/nameless_arg/);
    expect(m.warnings.join('\n')).toMatch(/second tool named 'good'/);
    expect(toolsetNames(m)).toEqual(['play', 'bridge']);
  });

  test.each([null, 'hello', 42, [1, 2]])(
    'a manifest that is not an object (%p) lists only the bridge toolset, with a warning',
    (raw) => {
      const m = normaliseManifest(raw, 'file');
      expect(m.source).toBe('file');
      expect(toolsetNames(m)).toEqual(['bridge']);
      expect(m.warnings.length).toBe(1);
    },
  );

  test('toolsets of the wrong type give an empty list with a warning', () => {
    const m = normaliseManifest({ game: { name: 'G' }, toolsets: 'play' });
    expect(toolsetNames(m)).toEqual(['bridge']);
    expect(m.warnings[0]).toMatch(/toolsets/);
    expect(m.game.name).toBe('G');
  });

  test("a game's tools and `bridge` toolset named like the bridge's are kept beside them", () => {
    const m = normaliseManifest({
      toolsets: [
        { name: 'play', tools: [{ name: 'health', description: 'the player health', readOnly: true }] },
        { name: 'bridge', tools: [{ name: 'get_state', description: 'game copy' }, { name: 'extra' }] },
      ],
    });
    expect(toolsetNames(m)).toEqual(['play', 'bridge']);
    expect(findTool(m, 'health')!.toolset).toBe('play');
    expect(findTool(m, 'health', 'bridge')!.description).toMatch(/GET \/health/);
    expect(findTool(m, 'bridge.health')!.toolset).toBe('bridge');
    const bridge = m.toolsets.find((t) => t.name === 'bridge')!;
    expect(bridge.tools.map((t) => t.name)).toEqual([...BRIDGE_TOOL_NAMES, 'extra']);
    expect(findTool(m, 'get_state')!.description).not.toBe('game copy');
    expect(m.warnings.join('\n')).toMatch(/get_state/);
  });
});

describe('bridge toolset, fallback and schemas', () => {
  test('bridge tools and their read-only flags', () => {
    const b = bridgeToolset();
    expect(b.tools.map((t) => [t.name, t.readOnly])).toEqual([
      ['get_state', true],
      ['wait_for', true],
      ['raw_command', false],
      ['health', true],
      ['screenshot', true],
      ['press', false],
      ['hold', false],
      ['release', false],
      ['pointer', false],
      ['wheel', false],
      ['tap', false],
      ['swipe', false],
      ['pinch', false],
      ['set_axis', false],
      ['type', false],
      ['input_sequence', false],
      ['pause', false],
      ['resume', false],
      ['step', false],
      ['watch', false],
      ['snapshot', true],
      ['click', false],
      ['activate', false],
      ['set_value', false],
      ['wait_for_node', true],
      ['find_objects', true],
      ['wait_for_object', true],
      ['assert', true],
      ['save_test', false],
      ['run_test', false],
      ['save_trace', false],
      ['rewind', false],
      ['get_errors', true],
      ['frame_stats', true],
      ['define_skill', false],
      ['skill_from_session', false],
      ['delete_skill', false],
    ]);
    const waitFor = b.tools.find((t) => t.name === 'wait_for')!;
    expect(waitFor.args.map((a) => a.name)).toEqual([
      'path',
      'equals',
      'notEquals',
      'exists',
      'gt',
      'gte',
      'lt',
      'lte',
      'contains',
      'matches',
      'timeoutMs',
    ]);
    for (const t of b.tools) expect(t.description.length).toBeGreaterThan(20);
  });

  test('fallbackManifest has only the bridge toolset', () => {
    const m = fallbackManifest();
    expect(m.source).toBe('fallback');
    expect(toolsetNames(m)).toEqual(['bridge']);
  });

  test('toolInputSchema folds defaults into the description and never emits `default`', () => {
    const m = normaliseManifest({
      toolsets: [
        {
          name: 'play',
          tools: [
            {
              name: 'drop',
              args: [
                { name: 'x', type: 'number', description: 'World x', required: true },
                { name: 'settle', type: 'boolean', description: 'Wait for physics', default: 'true' },
                { name: 'speed', type: 'number', default: 0.05 },
                { name: 'anything', type: 'who-knows' },
              ],
            },
          ],
        },
      ],
    });
    const schema = toolInputSchema(findTool(m, 'drop')!);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        x: { type: 'number', description: 'World x' },
        settle: { type: 'boolean', description: 'Wait for physics. Default: true.' },
        speed: { type: 'number', description: 'Default: 0.05.' },
        anything: {},
      },
      required: ['x'],
    });
    expect(JSON.stringify(schema)).not.toMatch(/"default"/);
    const rawCmd = toolInputSchema(findTool(fallbackManifest(), 'raw_command')!);
    expect(rawCmd.required).toEqual(['cmd']);
    expect(JSON.stringify(rawCmd)).not.toMatch(/"default"/);
    expect(toolInputSchema(findTool(fallbackManifest(), 'health')!)).toEqual({ type: 'object', properties: {} });
  });
});

test('the held inputs a game declares (game.inputs) are kept: the bridge routes press/hold by them', () => {
  expect(normaliseManifest({ game: { name: 'G', inputs: ['left', 'jump', 3] }, toolsets: [] }).game).toEqual({
    name: 'G',
    inputs: ['left', 'jump'],
  });
});
