/**
 * The playing-in-time bridge tools (docs/KITS.md): press, hold, release, pause, resume, step.
 * Each is an ordinary reserved `/command` (input.*, clock.*) through command sync; the owner
 * of a held input is this MCP session, and the daemon remembers what it holds (play/held.ts).
 */
import { commandRejected, usageError } from '../../shared/errors.js';
import type { State } from '../game/client.js';
import { EpochWatch } from '../sync/epoch.js';
import { getPath } from '../sync/path.js';
import { conditionFrom, test } from '../sync/wait.js';
import { waitFor } from '../sync/wait.js';
import type { ToolContext } from './context.js';
import { browserFor, browserHold, browserPress, browserRelease } from './browser-play.js';
import { shapeSync, syncCommand } from './sync-answer.js';
import type { BridgeToolHandler } from './types.js';

/** A press holds its input at most this long on the game's side, whatever happens to us meanwhile. */
const PRESS_LEASE_MS = 60000;

const WHY: Record<string, string> = { input: 'held inputs', clock: 'an agent-controlled clock' };

async function hasCapability(ctx: ToolContext, port: number, cap: 'input' | 'clock'): Promise<boolean> {
  const h = await ctx.client(port).health();
  return Array.isArray(h.capabilities) && h.capabilities.map(String).includes(cap);
}

/** Fail clearly, before sending anything, when the game does not declare the capability a tool needs. */
async function requireCapability(ctx: ToolContext, port: number, cap: 'input' | 'clock', tool: string): Promise<void> {
  const h = await ctx.client(port).health();
  const caps = Array.isArray(h.capabilities) ? h.capabilities.map(String) : [];
  if (caps.includes(cap)) return;
  throw commandRejected(
    tool,
    port,
    `missing capability "${cap}"`,
    [],
    `The game on port ${port} does not support ${WHY[cap]} (capability "${cap}"; it declares ${caps.length ? caps.map((c) => `"${c}"`).join(', ') : 'none'}). ` +
      (cap === 'input'
        ? "Drive it with its own commands (list_toolsets), or give the game a kit's held inputs (docs/KITS.md)."
        : "Use wait_for to let time pass, or give the game a kit's clock (docs/KITS.md)."),
  );
}

function intArg(
  tool: string,
  args: Record<string, unknown>,
  key: string,
  min: number,
  max: number,
  def?: number,
): number {
  const raw = args[key] ?? def;
  if (raw === undefined) throw usageError(`${tool}: missing required argument '${key}' (an integer ${min}-${max}).`);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw usageError(`${tool}: '${key}' must be an integer ${min}-${max}, got ${JSON.stringify(raw)}.`);
  return n;
}

function inputArg(tool: string, args: Record<string, unknown>): string {
  if (typeof args.input !== 'string' || !args.input.trim())
    throw usageError(
      `${tool} needs 'input', the input's name as the game declares it (describe_toolset shows game.inputs), e.g. {input: "left"}.`,
    );
  return args.input.trim();
}

/** The simulation's frame count: simFrame when the game publishes one, else frame. */
const simFrameOf = (s: State | undefined): number | undefined =>
  typeof s?.simFrame === 'number' ? s.simFrame : typeof s?.frame === 'number' ? s.frame : undefined;

export const PLAY_TOOLS: Record<'press' | 'hold' | 'release' | 'pause' | 'resume' | 'step', BridgeToolHandler> = {
  async press(ctx, base, args, extra) {
    const { port } = base;
    const input = inputArg('press', args);
    const frames = intArg('press', args, 'frames', 1, 600, 1);
    const web = await browserFor(ctx, port, input);
    if (web) return browserPress(ctx, web, base, input, frames, PRESS_LEASE_MS, extra);
    await requireCapability(ctx, port, 'input', 'press');
    const owner = ctx.sessionId;
    const paused = getPath(await ctx.client(port).state(extra.signal), 'clock.paused') === true;
    ctx.held.hold(port, owner, input, PRESS_LEASE_MS);
    try {
      const held = await syncCommand(
        ctx,
        port,
        'input.hold',
        { input, owner, leaseMs: PRESS_LEASE_MS },
        extra,
        !paused,
      );
      if (paused) {
        // A step holds back the commands after it, so hold, step N, release hold it for exactly N frames.
        await syncCommand(ctx, port, 'clock.step', { frames }, extra, false);
      } else {
        const from = simFrameOf(held.state) ?? 0;
        const path = typeof held.state?.simFrame === 'number' ? 'simFrame' : 'frame';
        await waitFor(
          ctx.client(port),
          { path, op: 'gte', operand: from + frames },
          { timeoutMs: ctx.config.timeoutMs, signal: extra.signal, generation: ctx.generation(port) },
        );
      }
    } finally {
      ctx.held.released(port, owner, input);
    }
    const r = await syncCommand(ctx, port, 'input.release', { input, owner }, extra);
    return { json: { ...base, input, frames, ...shapeSync(r) } };
  },

  async hold(ctx, base, args, extra) {
    const input = inputArg('hold', args);
    const ms = intArg('hold', args, 'ms', 1, 3600000);
    const web = await browserFor(ctx, base.port, input);
    if (web) return browserHold(ctx, web, base, input, ms, extra);
    await requireCapability(ctx, base.port, 'input', 'hold');
    ctx.held.hold(base.port, ctx.sessionId, input, ms);
    const r = await syncCommand(ctx, base.port, 'input.hold', { input, owner: ctx.sessionId, leaseMs: ms }, extra);
    return { json: { ...base, input, ms, ...shapeSync(r) } };
  },

  async release(ctx, base, args, extra) {
    const input =
      args.input === undefined || args.input === null || args.input === '' ? undefined : inputArg('release', args);
    const web = await browserFor(ctx, base.port, input);
    // Everything this session holds on a page: its browser inputs, then its kit inputs when the game has them.
    if (web && (input !== undefined || !(await hasCapability(ctx, base.port, 'input'))))
      return browserRelease(ctx, web, base, input, extra);
    if (web) await web.hands.release(ctx.sessionId);
    await requireCapability(ctx, base.port, 'input', 'release');
    const owner = ctx.sessionId;
    const r =
      input === undefined
        ? await syncCommand(ctx, base.port, 'input.releaseAll', { owner }, extra)
        : await syncCommand(ctx, base.port, 'input.release', { input, owner }, extra);
    ctx.held.released(base.port, owner, input);
    return { json: { ...base, released: input ?? 'everything this session holds', ...shapeSync(r) } };
  },

  async pause(ctx, base, _args, extra) {
    await requireCapability(ctx, base.port, 'clock', 'pause');
    return { json: { ...base, ...shapeSync(await syncCommand(ctx, base.port, 'clock.pause', {}, extra)) } };
  },

  async resume(ctx, base, _args, extra) {
    await requireCapability(ctx, base.port, 'clock', 'resume');
    return { json: { ...base, ...shapeSync(await syncCommand(ctx, base.port, 'clock.resume', {}, extra)) } };
  },

  async step(ctx, base, args, extra) {
    const { port } = base;
    const frames = intArg('step', args, 'frames', 1, 10000);
    if (
      args.until !== undefined &&
      (typeof args.until !== 'object' || args.until === null || Array.isArray(args.until))
    ) {
      throw usageError('step: \'until\' must be a wait_for condition object, e.g. {"path": "game.x", "gte": 30}.');
    }
    const cond = args.until ? conditionFrom(args.until as Record<string, unknown>) : undefined;
    await requireCapability(ctx, port, 'clock', 'step');
    if (!cond) {
      const r = await syncCommand(ctx, port, 'clock.step', { frames }, extra);
      return { json: { ...base, stepped: frames, ...shapeSync(r) } };
    }
    // One frame at a time, so it stops on the very frame the condition first holds; a new run on the way fails it.
    const runs = cond.path === 'sessionEpoch' ? undefined : new EpochWatch(port, `step until ${cond.path}`);
    for (let stepped = 1; ; stepped++) {
      const r = await syncCommand(ctx, port, 'clock.step', { frames: 1 }, extra);
      if (r.state) runs?.check(r.state);
      const t = r.state ? test(r.state, cond) : { ok: false, value: undefined };
      if (t.ok || stepped >= frames) {
        return { json: { ...base, matched: t.ok, stepped, path: cond.path, value: t.value ?? null, ...shapeSync(r) } };
      }
    }
  },
};
