/** What the tools of the core family: state, waits, raw commands, health, screenshots answer (docs/TOOLS.md is written from these). */
import { gameData, syncAnswerShape, z } from './fields.js';

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
export const rawCommandAnswer = z
  .object({
    ...syncAnswerShape,
    applied: z.boolean().describe('true once applied (false with `sync: false`)'),
    confirmation: z.string().describe('see call_tool'),
    events: z.array(z.string()).describe('its recent events'),
  })
  .loose();

/** What health answers. */
export const healthAnswer = z
  .object({
    ok: z.boolean().describe('true'),
    frame: z.number().optional().describe('its frame *(when it publishes one)*'),
    capabilities: z
      .array(z.string())
      .optional()
      .describe('`input`, `clock`: what the play tools may use *(when it declares some)*'),
    sessionEpoch: z.number().optional().describe('its run counter *(when it publishes one)*'),
  })
  .loose();

/** What screenshot answers. */
export const screenshotAnswer = z
  .object({
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
