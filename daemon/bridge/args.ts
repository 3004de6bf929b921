/**
 * The argument shapes bridge tools share. Numbers and flags are taken as text too ("5",
 * "false"): an agent's client or a shell often sends them so, and the meaning is plain.
 */
import { z } from '../tools/define.js';

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
