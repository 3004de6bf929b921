/** What the tools of the core family: state, waits, raw commands, health, screenshots answer (docs/TOOLS.md is written from these). */
import { andMore, gameData, syncAnswerShape, z } from './fields.js';

/** What get_state answers. */
export const getStateAnswer = z
  .object({
    frame: z.number().nullable().describe("the game's frame, or null"),
    state: gameData(
      'the whole snapshot *(when no path; a snapshot over the size limit is cut, with a marker)*',
    ).optional(),
    path: z.string().optional().describe('the path asked for *(when path)*'),
    value: z.unknown().optional().describe('the value there *(when path)*'),
  })
  .loose();

/** What wait_for answers. */
export const waitForAnswer = z
  .object({
    matched: z.boolean().describe('true (a wait that does not match fails with CommandTimeout)'),
    path: z.string().describe('the path watched'),
    value: z.unknown().describe('its value when the condition held'),
    elapsedMs: z.number().describe('how long it took'),
    frame: z.number().nullable().describe('the frame it held at, or null'),
  })
  .loose();

/** What raw_command answers. */
export const rawCommandAnswer = z.object(syncAnswerShape).loose();

/** What health answers. */
export const healthAnswer = andMore(
  z
    .object({
      ok: z.boolean().describe('true'),
      frame: z.number().optional().describe('its frame *(when it publishes one)*'),
      capabilities: z
        .array(z.string())
        .optional()
        .describe('`input`, `clock`: what the play tools may use *(when it declares some)*'),
      sessionEpoch: z.number().optional().describe('its run counter *(when it publishes one)*'),
    })
    .loose(),
  'anything else the game puts in `/health` *(when it does)*',
);

/** What screenshot answers. */
export const screenshotAnswer = z
  .object({
    port: z.number().optional().describe("the game's port *(when the game serves /screenshot)*"),
    tool: z.string().optional().describe('`screenshot` *(when the game serves /screenshot)*'),
    via: z.unknown().optional().describe('`bridge` *(when the game serves /screenshot)*'),
    mimeType: z.unknown().optional().describe('`image/png` *(when the game serves /screenshot)*'),
    bytes: z
      .unknown()
      .optional()
      .describe(
        "the picture's size; the picture itself is the answer's image block *(when the game serves /screenshot)*",
      ),
  })
  .loose();
