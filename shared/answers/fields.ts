/**
 * What the tools answer, as zod schemas: one per tool, each field with the sentence docs/TOOLS.md
 * shows for it. A tool's declaration names its schema (`output`); from it come the MCP
 * `outputSchema` a client checks answers against, the field tables of docs/TOOLS.md
 * (`npm run docs:tools`) and the types the CLI reads answers with. They live in shared/ because
 * the CLI reads them and may not reach into the daemon's tools.
 *
 * Every object is loose: a game, a kit or a newer daemon may add a field, and a client must not
 * reject the answer for it. What is the game's own (its state, its `game` section) is `unknown`.
 */
import { z } from 'zod/v4';

export { z };

const GAME_DATA = new WeakSet<z.ZodType>();
const ELSEWHERE = new WeakSet<z.ZodType>();
const MORE = new WeakMap<z.ZodType, string>();

/** A field whose content is the game's own (its state, its `game` section): any JSON, documented as `name.…`. */
export function gameData(what: string): z.ZodUnknown {
  const s = z.unknown().describe(what);
  GAME_DATA.add(s);
  return s;
}

/** Is this (unwrapped) schema the game's own data? */
export const isGameData = (s: z.ZodType): boolean => GAME_DATA.has(s);

/** A field whose parts are listed where it is the answer itself (a filmstrip, under watch): one row `name.…`. */
export function listedElsewhere<T extends z.ZodType>(s: T): T {
  ELSEWHERE.add(s);
  return s;
}

/** Is this (unwrapped) schema listed in full elsewhere? */
export const isListedElsewhere = (s: z.ZodType): boolean => ELSEWHERE.has(s);

/** An object whose other keys are someone else's (a game's health): `what` says so in the docs as `…`. */
export function andMore<T extends z.ZodType>(s: T, what: string): T {
  MORE.set(s, what);
  return s;
}

/** What `andMore` said of this object's other keys, if anything. */
export const moreOf = (s: z.ZodType): string | undefined => MORE.get(s);

/** An answer with `front`'s fields put before its own, and what `andMore` said of it kept. */
export function answerWith(front: z.ZodRawShape, answer: z.ZodObject): z.ZodObject {
  const out = z.object({ ...front, ...answer.shape }).loose();
  const more = moreOf(answer);
  return more === undefined ? out : andMore(out, more);
}

/** Added to every answer by the session: the view it sees with. */
export const viewShape = {
  view: z.string().describe('`debug` or `player`: what this session may see and do'),
};

/** Put in front of every bridge tool's answer by `bridgeTool`: where it ran and what it was. */
export const bridgeShape = {
  port: z.number().optional().describe("the game's port"),
  tool: z.string().describe('the tool called'),
  via: z.string().describe('`bridge`'),
};

/** One of a game's errors (shared/game-errors.ts), as answers and get_errors list them. */
export const gameErrorEntry = z
  .object({
    seq: z.number().describe("its number in the game's list: `get_errors {since}` lists those seen after it"),
    frame: z
      .number()
      .nullable()
      .describe(
        "the frame it was raised at; for the game's output, the nearest the bridge knows: the last frame it saw when it read the error; null when unknown",
      ),
    message: z.string().describe('what it said'),
    stack: z.string().optional().describe('its stack *(when known)*'),
    source: z
      .string()
      .describe(
        "where it was seen: `command` (a command's apply threw), `tick` (the game's frame threw, caught by its kit), `output` (the game printed it), `page` (a page's uncaught error), `console` (a page's console.error)",
      ),
    count: z.number().describe('how many times it was seen (repeats are counted, not listed)'),
    lastFrame: z
      .number()
      .nullable()
      .optional()
      .describe('the frame of its latest sighting *(when seen more than once)*'),
  })
  .loose();

/**
 * What every answer of a command through command sync carries: the command, how its
 * application was confirmed and a summary of the state after it, never the whole state.
 */
export const syncAnswerShape = {
  command: z.string().describe('the command sent'),
  applied: z.boolean().describe('true once the game confirmed it applied the command'),
  commandId: z.number().optional().describe("the game's id for the command *(when the game gives ids)*"),
  confirmation: z
    .string()
    .describe(
      'how it was confirmed: `completedCommandId`, `frames-advanced`, `port-closed` (`close`), `not-waited` (`sync: false`), `browser` (click or set_value on a page element: done once the browser dispatched it and, on a running page the bridge clocks, drew its next frame)',
    ),
  frame: z.number().optional().describe("the game's frame after the command *(when it publishes frames)*"),
  sessionEpoch: z.number().optional().describe("the game's run counter *(when it publishes one)*"),
  screen: z.unknown().optional().describe('`ui.screen` after the command *(when it publishes one)*'),
  game: gameData('the `game` part of its state after the command *(when it publishes one)*').optional(),
  player: gameData(
    "the game's `player` section, in place of `game` and `events` (which are then empty) *(when the player view)*",
  ).optional(),
  events: z.array(z.unknown()).describe('its recent events, as short strings'),
  errors: z
    .array(gameErrorEntry)
    .optional()
    .describe("the game's errors raised during the call (get_errors lists them all) *(when there were some)*"),
};

/** The sync answer's fields, each there only when `when` holds (its own condition, if it has one, stays). */
export function syncAnswerWhen(when: string): z.ZodRawShape {
  return Object.fromEntries(
    Object.entries(syncAnswerShape).map(([key, field]) => {
      const said = field.description ?? '';
      return [key, field.optional().describe(said.includes('*(when ') ? said : `${said} *(when ${when})*`.trim())];
    }),
  );
}

/** The answer of a command through command sync. */
export const syncAnswer = z.object(syncAnswerShape).loose();
export type SyncAnswer = z.output<typeof syncAnswer>;

/**
 * What a failure carries as structuredContent: the error's facts, starting with its class. The
 * protocol exempts failures from the outputSchema, but clients of the SDK's first major version
 * check them too, so the schema a tool advertises admits them.
 */
export const failureAnswer = z.object({ kind: z.string() }).loose();

/** What okResult gives instead of an answer over the size limit (tools/answer.ts): valid for every tool. */
export const truncatedAnswer = z
  .object({
    truncated: z.literal(true),
    note: z.string(),
    paths: z.array(z.string()),
    preview: z.string(),
  })
  .loose();
