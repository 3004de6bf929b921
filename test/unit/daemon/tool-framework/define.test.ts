/**
 * A tool's declaration (daemon/tool-framework/define.ts) → what an agent sees: the JSON Schema of its
 * arguments, its hints, whether it may be replayed, the rows describe_toolset lists, and the
 * sentence a bad argument gets. The check a game tool's arguments pass (daemon/tool-framework/game-args.ts) is the
 * same one, built from its manifest rows.
 */
import {
  annotationsOf,
  checkArguments,
  defineTool,
  portArg,
  replayOf,
  z,
} from '../../../../daemon/tool-framework/define.js';
import { checkGameToolArgs } from '../../../../daemon/tool-framework/game-args.js';
import type { GameTool } from '../../../../daemon/game/types.js';

const drop = defineTool({
  name: 'drop',
  title: 'Drop a crate',
  description: 'Drops a crate at x.',
  input: z.object({
    x: z.number().describe('Where, in pixels'),
    count: z.int().min(1).max(10).default(1).describe('How many'),
    settle: z.boolean().optional(),
    port: portArg,
  }),
  output: z.object({ dropped: z.number().describe('How many fell') }),
  effect: { readOnly: false, idempotent: false },
  handler: async () => ({ text: 'ok' }) as never,
});

/** The BridgeUsageError text of parsing `args` with `drop`. */
const refusal = (args: unknown) => {
  try {
    drop.parse(args);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the arguments were accepted');
};

describe('the declaration', () => {
  test("the advertised schema is the zod schema's input side, without what says nothing", () => {
    const schema = drop.advertised.inputSchema as Record<string, unknown>;
    expect(schema.$schema).toBeUndefined();
    expect(schema.additionalProperties).toBeUndefined();
    expect(schema.required).toEqual(['x']);
    expect((schema.properties as Record<string, unknown>).count).toMatchObject({ type: 'integer', default: 1 });
  });

  test('the rows describe_toolset lists come from the same schema', () => {
    expect(drop.args.map((a) => [a.name, a.type, a.required, a.default])).toEqual([
      ['x', 'number', true, undefined],
      ['count', 'integer', false, '1'],
      ['settle', 'boolean', false, undefined],
      ['port', 'integer', false, undefined],
    ]);
  });

  test('a row keeps the argument description', () => {
    expect(drop.args[0].description).toBe('Where, in pixels');
  });

  test('the MCP hints come from the effect, with the title', () => {
    expect(drop.advertised.annotations).toEqual({
      title: 'Drop a crate',
      readOnlyHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  test('a read-only tool carries no write hints', () => {
    expect(annotationsOf({ readOnly: true, destructive: true, idempotent: true })).toEqual({
      readOnlyHint: true,
      openWorldHint: false,
    });
  });

  test('only a read-only tool may be replayed after a daemon restart', () => {
    expect(replayOf({ readOnly: true })).toBe('safe');
    expect(replayOf({ readOnly: false, idempotent: true })).toBe('unsafe');
  });

  test("a declaration's own replay verdict wins over its effect's", () => {
    const t = defineTool({
      name: 't',
      title: 'T',
      description: '',
      input: z.object({ dry: z.boolean().optional() }),
      output: z.object({}),
      effect: { readOnly: false },
      replay: (args) => (args.dry ? 'safe' : 'unsafe'),
      handler: async () => ({}) as never,
    });
    expect(t.replay({ dry: true }, {} as never)).toBe('safe');
  });
});

describe('argument errors', () => {
  test('the parsed arguments have their defaults', () => {
    expect(drop.parse({ x: 3 })).toEqual({ x: 3, count: 1 });
  });

  test('a missing argument is named with what the tool takes', () => {
    expect(refusal({})).toBe(
      "drop: missing required argument 'x'. It takes: x (number), count (integer), settle (boolean), port (integer).",
    );
  });

  test('a wrong type names the argument, the type and the value given', () => {
    expect(refusal({ x: 'left' })).toBe('drop: argument \'x\' must be a number, got "left".');
  });

  test('a bound names the limit', () => {
    expect(refusal({ x: 1, count: 11 })).toBe("drop: argument 'count' must be at most 10.");
  });

  test('a lower bound names the limit', () => {
    expect(refusal({ x: 1, count: 0 })).toBe("drop: argument 'count' must be at least 1.");
  });

  test('arguments that are not an object are refused', () => {
    expect(refusal([1])).toBe('drop: arguments must be a JSON object.');
  });

  test('null is "not given" for an argument with a type', () => {
    expect(drop.parse({ x: 2, settle: null })).toEqual({ x: 2, count: 1 });
  });

  test('an extra key an MCP tool does not know is accepted', () => {
    expect(drop.parse({ x: 2, colour: 'red' })).toMatchObject({ x: 2 });
  });

  test('a value shown in an error is bounded', () => {
    expect(refusal({ x: 'y'.repeat(500) }).length).toBeLessThan(140);
  });

  test('checkArguments reports the first issue only', () => {
    expect(() => checkArguments('t', z.object({ a: z.string(), b: z.string() }), [], { a: 1, b: 2 })).toThrow(
      /^t: argument 'a' must be a string, got 1\.$/,
    );
  });
});

describe("a game tool's arguments", () => {
  const jump: GameTool = {
    name: 'jump',
    description: '',
    readOnly: false,
    toolset: 'play',
    args: [
      { name: 'height', type: 'number', description: '', required: true },
      { name: 'twice', type: 'boolean', description: '', required: false },
      { name: 'payload', type: 'any', description: '', required: false },
    ],
  };

  test('a number or a flag given as text passes', () => {
    expect(() => checkGameToolArgs(jump, { height: '2.5', twice: 'true' })).not.toThrow();
  });

  test('an argument the manifest does not declare is refused with what the tool takes', () => {
    expect(() => checkGameToolArgs(jump, { height: 1, speed: 2 })).toThrow(
      "jump: no argument 'speed'. It takes: height (number), twice (boolean), payload.",
    );
  });

  test('a misspelt argument is named with the one it is close to', () => {
    expect(() => checkGameToolArgs(jump, { heigth: 1 })).toThrow(
      /^jump: no argument 'heigth' \(did you mean 'height'\?\)/,
    );
  });

  test('null is a value for an argument of any type', () => {
    expect(() => checkGameToolArgs(jump, { height: 1, payload: null })).not.toThrow();
  });
});

describe('the answer a tool declares', () => {
  test("is advertised as its outputSchema, after the session's view", () => {
    const [answer] = (drop.advertised.outputSchema as { anyOf: Array<Record<string, unknown>> }).anyOf;
    expect(answer.properties).toEqual({
      view: { type: 'string', description: expect.stringContaining('`debug` or `player`') },
      dropped: { type: 'number', description: 'How many fell' },
    });
    expect(answer.required).toEqual(['view', 'dropped']);
  });

  test('admits a key it does not name', () => {
    expect(drop.output.safeParse({ view: 'debug', dropped: 1, later: true }).success).toBe(true);
  });
});
