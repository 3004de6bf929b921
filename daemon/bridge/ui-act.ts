/**
 * click (also activate) and set_value: the node checked against the latest UI snapshot before
 * anything is sent (refused naming similar nodes when it is missing, hidden or disabled, or a
 * value is out of its range), then a reserved `ui.*` command confirmed like any other, or, on a
 * page this daemon opened, real input through the browser.
 */
import type { Page } from 'playwright-core';
import { usageError } from '../../shared/errors.js';
import type { SyncResult } from '../sync/command.js';
import { actionable } from '../ui/refs.js';
import { findNode, idOf, type UiSnapshot, type Walked } from '../ui/tree.js';
import { clickNode, isPageRef, setNodeValue } from '../web/ax-tree.js';
import { clockNextFrame } from '../web/page-clock.js';
import type { ToolContext } from '../tool-framework/context.js';
import { errorMark, errorsSince } from '../tool-framework/game-errors.js';
import { shapeSync, syncCommand } from '../tool-framework/sync-answer.js';
import type { ToolAnswer, ToolCallExtra } from '../tool-framework/types.js';
import { z } from '../tool-framework/define.js';
import { readTree } from './trees.js';

/**
 * A page element acted on as a person would: a real click, a real fill or choice. Done once the
 * browser dispatched it and, on a running page the bridge clocks, once the page drew its next
 * frame, so the answer and the next snapshot see what a game defers to that frame. A paused
 * page is not stepped: its time is the agent's.
 */
async function browserAct(
  page: Page,
  ref: string,
  command: string,
  args: Record<string, unknown>,
): Promise<SyncResult> {
  try {
    if (command === 'ui.activate') await clickNode(page, ref);
    else await setNodeValue(page, ref, args.value as string | number | boolean);
  } catch (e) {
    throw usageError(`${command === 'ui.activate' ? 'click' : 'set_value'} [ref=${ref}]: ${(e as Error).message}.`);
  }
  await nextFrame(page);
  const via = command === 'ui.activate' ? 'browser.click' : 'browser.fill';
  return { command: via, applied: true, confirmation: 'browser', polls: 0, events: [] };
}

/** A page slowed down or too busy to draw is not waited on longer than this for its next frame. */
const NEXT_FRAME_WAIT_MS = 1000;

/**
 * The running page's next frame. A click that loads another page ends the one it was on, and
 * the wait with it: the click is done all the same, and the new page's frames are its own.
 */
async function nextFrame(page: Page): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([clockNextFrame(page), new Promise<void>((r) => (timer = setTimeout(r, NEXT_FRAME_WAIT_MS)))]);
  } catch (e) {
    if (!/Execution context was destroyed|navigat/i.test((e as Error).message)) throw e;
  } finally {
    clearTimeout(timer);
  }
}

export const clickInput = z.object({
  ref: z.string().min(1).max(200).describe("The node's ref, as snapshot shows it ([ref=start])."),
});

export const setValueInput = z.object({
  ref: z.string().min(1).max(200).describe("The node's ref, as snapshot shows it ([ref=vol])."),
  value: z
    .union([z.string().max(2000), z.number(), z.boolean()])
    .describe('Text for a text box, a number for a slider, true/false for a checkbox, an option name for a combobox.'),
});

async function act(
  ctx: ToolContext,
  port: number,
  tool: string,
  ref: string,
  command: string,
  cmdArgs: Record<string, unknown>,
  extra: ToolCallExtra,
  check?: (w: Walked, ui: UiSnapshot) => void,
): Promise<ToolAnswer> {
  const before = await readTree(ctx, port, 'ui', extra.signal);
  const w = actionable(tool, port, before, ref);
  check?.(w, before);
  const web = isPageRef(ref) ? ctx.launcher.webGame(port) : undefined;
  const mark = web ? errorMark(ctx, port) : 0;
  const r = web
    ? await browserAct(web.browser.page, ref, command, cmdArgs)
    : await syncCommand(ctx, port, command, cmdArgs, extra);
  if (web) {
    // what the page threw while the browser acted (syncCommand reads a command's own)
    const errors = await errorsSince(ctx, port, mark, null, false);
    if (errors.length) r.errors = errors;
  }
  const after = await readTree(ctx, port, 'ui', extra.signal);
  const node = findNode(after, ref)?.node;
  return {
    json: {
      view: ctx.config.view,
      ref,
      ...shapeSync(r),
      snapshot: idOf(after),
      checkedAt: idOf(before),
      // what a saved test re-binds this step by when a later build renames the ref
      target: { role: w.node.role, name: w.node.name },
      node: node ? { ...node, children: undefined } : null,
    },
  };
}

export function click(
  ctx: ToolContext,
  port: number,
  args: z.output<typeof clickInput>,
  extra: ToolCallExtra,
  tool = 'click',
): Promise<ToolAnswer> {
  return act(ctx, port, tool, args.ref, 'ui.activate', { id: args.ref }, extra);
}

export function setValue(
  ctx: ToolContext,
  port: number,
  args: z.output<typeof setValueInput>,
  extra: ToolCallExtra,
): Promise<ToolAnswer> {
  return act(ctx, port, 'set_value', args.ref, 'ui.setValue', { id: args.ref, value: args.value }, extra, (w, ui) => {
    const { min, max, name } = w.node;
    if (min === undefined && max === undefined) return;
    const v = typeof args.value === 'number' ? args.value : Number(args.value);
    if (!Number.isFinite(v) || (min !== undefined && v < min) || (max !== undefined && v > max))
      throw usageError(
        `set_value: ${JSON.stringify(name)} [ref=${w.node.id}] takes ${min ?? '-∞'} to ${max ?? '∞'} in the UI (revision ${ui.revision ?? '?'}); ` +
          `${JSON.stringify(args.value)} is out of range, so nothing was sent. Give a value in range.`,
        { port, ref: w.node.id, similar: [] },
      );
  });
}
