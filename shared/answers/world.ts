/** What the tools of the world tree answer (docs/TOOLS.md is written from these). */
import { z } from './fields.js';
import { publication, worldMatch } from './trees.js';

/** What find_objects answers. */
export const findObjectsAnswer = z
  .object({
    snapshot: publication,
    total: z.number().describe('how many matched (before `limit`)'),
    matches: z.array(worldMatch).describe('the matches, closest first with `near`'),
  })
  .loose();

/** What wait_for_object answers. */
export const waitForObjectAnswer = z
  .object({
    matched: z.boolean().describe('true (no match in time fails with CommandTimeout)'),
    elapsedMs: z.number().describe('how long it took'),
    snapshot: publication,
    total: z.number().describe('how many matched'),
    matches: z.array(worldMatch).describe('as find_objects'),
  })
  .loose();
