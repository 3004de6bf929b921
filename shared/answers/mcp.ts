/** What the other MCP tools of tools/list answer (docs/TOOLS.md is written from these). */
import { listedElsewhere, syncAnswerShape, z } from './fields.js';
import { exitRecord } from './instances.js';

/** What list_toolsets answers. */
export const listToolsetsAnswer = z
  .object({
    port: z.number().describe("the game's port"),
    game: z.string().nullable().describe('its name, or null'),
    version: z.string().nullable().describe('its version, or null'),
    manifest: z.string().describe('`game`, `file` or `fallback` (see list_instances)'),
    notice: z
      .unknown()
      .optional()
      .describe(
        'why only the bridge toolset is listed, or, for a page without the kit, what the page offers instead *(when the game publishes no command list)*',
      ),
    toolsets: z
      .array(
        z
          .object({
            name: z.string().describe("the toolset's name (give it to describe_toolset)"),
            description: z.string().describe('what it is for'),
            tools: z.array(z.string()).describe("its tools' names"),
          })
          .loose(),
      )
      .optional()
      .describe('its toolsets, then `bridge`, then `composites` if the project has some'),
    passthrough: z
      .object({
        description: z.string().optional().describe('*(when the game says)*'),
        examples: z.array(z.string()).optional().describe('*(when the game says)*'),
      })
      .loose()
      .optional()
      .describe('how commands outside the manifest are handled *(when the game says)*'),
    next: z.string().describe('what to call next'),
    warnings: z
      .unknown()
      .optional()
      .describe("what went wrong reading the manifest or the project's composites module *(when something did)*"),
  })
  .loose();

/** What describe_toolset answers. */
export const describeToolsetAnswer = z
  .object({
    port: z.number().describe("the game's port"),
    toolset: z.string().describe("the toolset's name"),
    description: z.string().describe('what it is for'),
    tools: z
      .array(
        z
          .object({
            name: z.string().describe('the name to give call_tool'),
            description: z.string().describe('what it does'),
            readOnly: z.boolean().describe('true when it changes nothing in the game'),
            player: z
              .boolean()
              .optional()
              .describe(
                'true: the manifest marks it as something a player does; a player-view session may call only these *(when so)*',
              ),
            served: z
              .boolean()
              .optional()
              .describe(
                'false: a bridge tool this game cannot serve (it lacks what the tool needs, e.g. a UI tree for `snapshot`); calling it is refused naming what is missing *(when so)*',
              ),
            inputSchema: z
              .record(z.string(), z.unknown())
              .describe('its arguments as JSON Schema (defaults are written into the descriptions)'),
          })
          .loose(),
      )
      .describe('each tool of the toolset'),
  })
  .loose();

/**
 * What call_tool answers: a game command's sync answer, or what the bridge tool, composite, skill
 * or page tool it named answers (each of those is declared with its own tool).
 */
export const callToolAnswer = z
  .object({
    ...z.object(syncAnswerShape).partial().shape,
    port: z.number().optional().describe("the game's port"),
    tool: z.string().describe('the tool called'),
    via: z.string().describe('`manifest`, `passthrough`, `composite` or `bridge`'),
  })
  .loose();

/** What stop_instance answers. */
export const stopInstanceAnswer = z
  .object({
    port: z.number().describe('the port'),
    stopped: z.boolean().describe('true'),
    how: z.string().describe('`closed cleanly`, `terminated`, `killed`, or `had already exited (…)`'),
  })
  .loose();

/** What instance_log answers. */
export const instanceLogAnswer = z
  .object({
    port: z.number().describe('the port'),
    logFile: z.string().describe('the whole log'),
    lines: z.array(z.string()).describe('its last lines (at most `lines`, 200 by default)'),
    totalLines: z.number().describe('how many lines the log has'),
    running: z.boolean().describe('whether the game still runs'),
    exited: listedElsewhere(
      exitRecord.describe("the exit record, with the fields of `list_instances`'s `exited[]` *(when it exited)*"),
    ).optional(),
  })
  .loose();
