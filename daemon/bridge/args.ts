/**
 * The argument shapes bridge tools share. Numbers and flags are taken as text too ("5",
 * "false"): an agent's client or a shell often sends them so, and the meaning is plain.
 */
import { z } from '../tool-framework/define.js';

/** A whole number from min to max, given as a number or its text. */
export const whole = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** A number, given as a number or its text. */
export const number = () => z.coerce.number();

/** true/false, given as a boolean or as text ("true", "false"). */
export const flag = () => z.union([z.boolean(), z.stringbool()]);

/** The name of an input the game declares (or, on a page this daemon opened, a browser input). */
export const inputName = () =>
  z.string().describe("The input's name as the game declares it (tools' game.inputs), e.g. 'left' or 'jump'.");

/** How long a wait on a tree (wait_for_node, wait_for_object) may take, in milliseconds. */
export const treeWaitTimeout = () =>
  z.int().min(0).max(600000).optional().describe("Give up after this long. Default: the bridge's --timeout.");

/**
 * The operators of a condition on the value at a path, as wait_for and assert take them (give
 * exactly one). `says` words an operator's description for its tool from what the value does
 * (" equals this"); `exists` is worded whole, being about the path rather than the value.
 */
export const conditionOperators = (says: (what: string) => string, exists: string) => ({
  equals: z.unknown().optional().describe(says(' equals this (deep equality for objects and lists)')),
  notEquals: z.unknown().optional().describe(says(' differs from this')),
  exists: flag().optional().describe(exists),
  gt: number().optional().describe(says(' is a number greater than this')),
  gte: number().optional().describe(says(' is a number greater than or equal to this')),
  lt: number().optional().describe(says(' is a number less than this')),
  lte: number().optional().describe(says(' is a number less than or equal to this')),
  contains: z.unknown().optional().describe(says(' (a string or a list) contains this')),
  matches: z.string().optional().describe(says(', as text, matches this regular expression')),
});
