/**
 * Puts one call_tool call into the session's recording (recording/recordings.ts): a
 * game-affecting call as a `do` with the clocks it was applied at, a check as a `check` with its
 * condition and outcome; a bridge tool declared `recorded: false` (get_state, screenshot,
 * save_test, …) and read-only game tools are left out. It runs after the call, from what the
 * call already has in hand: it never asks the game.
 */
import { isBridgeError } from '../../shared/errors.js';
import { findTool } from '../game/manifest.js';
import type { Recorded } from '../bridge/declare.js';
import { bridgeToolNamed } from '../bridge/index.js';
import { pointerFamily } from '../bridge/families/pointer.js';
import type { Recording } from '../recording/recordings.js';
import type { ToolContext } from '../tool-framework/context.js';

/** What a saved test records of a bridge tool's call (its declaration says); undefined for any other name. */
const recordedAs = (name: string): Recorded | undefined => bridgeToolNamed(name)?.recorded;

/** The input tools: each answer's `frames` says how many frames it ran (stepped, on a paused clock). */
const GESTURES = new Set(pointerFamily.tools.map((t) => t.name));

const bare = (name: string) => (name.startsWith('bridge.') ? name.slice(7) : name);

/** A check's condition, as the call gave it: the path and its one operator (step's lives under `until`). */
function conditionOf(name: string, args: Record<string, unknown>): Record<string, unknown> {
  const src = name === 'step' ? ((args.until as Record<string, unknown>) ?? {}) : args;
  const { timeoutMs: _t, port: _p, ...cond } = src;
  return cond;
}

export function recordCall(
  ctx: ToolContext,
  port: number,
  name: string,
  args: Record<string, unknown>,
  answer: Record<string, unknown> | undefined,
  error?: unknown,
): void {
  const tool = bare(name);
  const recorded = recordedAs(tool);
  if (recorded === false) return;
  const via = answer?.via;
  const check = recorded === 'check' || (tool === 'step' && args.until !== undefined);
  if (!check && !answer) return; // a call that failed did not change the game the way a replay should
  if (!check && via !== 'bridge') {
    const known = ctx.knownManifest(port);
    const t = known && findTool(known, name);
    if (t && t.readOnly) return;
  } else if (!check && recorded !== 'do') return;
  const rec: Recording = ctx.recordings.of(ctx.sessionId, port);
  const clocks = rec.clocks();
  const at = Date.now();
  if (answer && (!check || tool === 'step')) {
    // The frame a call began at: a step, a press or a gesture ran its own frames before the state was read.
    const ran =
      tool === 'step'
        ? Number(answer.stepped)
        : tool === 'press'
          ? Number(args.frames ?? 1)
          : GESTURES.has(tool)
            ? Number(answer.frames ?? 0)
            : 0;
    // A skill's or a composite's steps each ran at their own frame, the last one's read after: its
    // replay starts it when the step before it is done, as the agent did, and its own waits pace it.
    const simFrame =
      via === 'skill' || via === 'composite'
        ? undefined
        : clocks.simFrame !== undefined && Number.isFinite(ran)
          ? Math.max(0, clocks.simFrame - ran)
          : clocks.simFrame;
    // A filmstrip is for the agent who asked; a replay makes the same moves without one.
    const { filmstrip: _film, ...kept } = args;
    rec.keep({
      kind: 'do',
      name,
      arguments: kept,
      at,
      answer,
      ...clocks,
      simFrame,
      endFrame: clocks.simFrame,
      state: rec.last,
    });
  }
  if (check)
    rec.keep({
      kind: 'check',
      tool,
      condition: conditionOf(tool, args),
      held: !error && answer?.matched !== false,
      ...(error
        ? { detail: (isBridgeError(error) ? error.text : String((error as Error).message ?? error)).slice(0, 500) }
        : {}),
      at,
      ...clocks,
      state: rec.last,
    });
}
