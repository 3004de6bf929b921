/** The built-in `bridge` toolset every conformant game gets (README.md, "The seven tools"), reached via call_tool. */
import { usageError } from '../../shared/errors.js';
import { BRIDGE_TOOL_NAMES, type BridgeToolName } from '../game/manifest.js';
import { getPath, hasPath, nearestKeys } from '../sync/path.js';
import { conditionFrom, waitFor } from '../sync/wait.js';
import { frameOf } from '../sync/summary.js';
import type { ToolContext } from './context.js';
import { syncAnswer } from './sync-answer.js';
import { PLAY_TOOLS } from './play-tools.js';
import { TEST_TOOLS } from './test-tools.js';
import type { BridgeToolHandler, ToolAnswer, ToolCallExtra } from './types.js';

/** One handler per name of BRIDGE_TOOL_NAMES: the record's type makes a missing one a compile error. */
const BRIDGE_TOOLS: Record<BridgeToolName, BridgeToolHandler> = {
  async get_state(ctx, base, args, extra) {
    const { port } = base;
    const state = await ctx.client(port).state(extra.signal);
    const frame = frameOf(state);
    if (args.path === undefined || args.path === null || args.path === '')
      return { json: { ...base, frame: frame ?? null, state } };
    if (typeof args.path !== 'string') throw usageError("get_state: 'path' must be a string like 'game.score'.");
    if (!hasPath(state, args.path)) {
      const near = nearestKeys(state, args.path);
      throw usageError(
        `get_state: the state on port ${port} has no '${args.path}'. ` +
          `${near.prefix ? `'${near.prefix}'` : 'The top level'} has: ${near.keys.join(', ') || '(nothing)'}. Ask for one of those.`,
      );
    }
    return { json: { ...base, frame: frame ?? null, path: args.path, value: getPath(state, args.path) } };
  },

  async wait_for(ctx, base, args, extra) {
    const { port } = base;
    const cond = conditionFrom(args);
    const timeoutMs = args.timeoutMs === undefined ? ctx.config.timeoutMs : Number(args.timeoutMs);
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 600000)
      throw usageError('wait_for: timeoutMs must be 0-600000 milliseconds.');
    const r = await waitFor(ctx.client(port), cond, {
      timeoutMs,
      signal: extra.signal,
      generation: ctx.generation(port),
    });
    ctx.recordings.of(ctx.sessionId, port).last = r.state;
    return {
      json: {
        ...base,
        matched: r.matched,
        path: r.path,
        value: r.value,
        elapsedMs: r.elapsedMs,
        frame: r.frame ?? null,
      },
    };
  },

  async raw_command(ctx, base, args, extra) {
    const cmd = args.cmd;
    if (typeof cmd !== 'string' || !cmd.trim())
      throw usageError("raw_command needs 'cmd', the command's name, e.g. {cmd: \"close\"}.");
    const cmdArgs = args.args ?? {};
    if (typeof cmdArgs !== 'object' || cmdArgs === null || Array.isArray(cmdArgs))
      throw usageError('raw_command: \'args\' must be an object like {"seed": 42}.');
    const sync = !(args.sync === false || args.sync === 'false');
    const r = await syncAnswer(ctx, base.port, cmd.trim(), cmdArgs as Record<string, unknown>, extra, sync);
    return { json: { ...base, ...r } };
  },

  async health(ctx, base) {
    const h = await ctx.client(base.port).health();
    return { json: { ...base, ...h } };
  },

  async screenshot(ctx, base) {
    // A page this daemon opened: the browser's picture, canvas and DOM together, at the frame it was taken.
    const web = ctx.launcher.webGame(base.port);
    if (web) {
      // The frame is asked while the browser captures (not before it): one round trip less.
      const [frame, shot] = await Promise.all([
        ctx
          .client(base.port)
          .health()
          .then(
            (h) => h.frame,
            () => undefined,
          ),
        web.screenshot(),
      ]);
      const size = shot.length >= 24 ? { width: shot.readUInt32BE(16), height: shot.readUInt32BE(20) } : {};
      return {
        json: {
          ...base,
          source: 'browser',
          mimeType: 'image/png',
          bytes: shot.length,
          ...size,
          ...(typeof frame === 'number' ? { frame } : {}),
        },
        images: [{ data: shot.toString('base64'), mimeType: 'image/png' }],
      };
    }
    const png = await ctx.client(base.port).screenshot();
    if (!png) {
      throw usageError(
        `The game on port ${base.port} does not implement GET /screenshot (an optional extension). Use get_state to read what is on screen.`,
      );
    }
    return {
      json: { ...base, mimeType: 'image/png', bytes: png.length },
      images: [{ data: png.toString('base64'), mimeType: 'image/png' }],
    };
  },

  ...PLAY_TOOLS,
  ...TEST_TOOLS,
};

const isBridgeTool = (name: string): name is BridgeToolName => (BRIDGE_TOOL_NAMES as readonly string[]).includes(name);

export async function runBridgeTool(
  ctx: ToolContext,
  port: number,
  name: string,
  args: Record<string, unknown>,
  extra: ToolCallExtra,
): Promise<ToolAnswer> {
  if (!isBridgeTool(name))
    throw usageError(`Unknown bridge tool '${name}'. The bridge toolset has ${BRIDGE_TOOL_NAMES.join(', ')}.`);
  return BRIDGE_TOOLS[name](ctx, { port, tool: name, via: 'bridge' }, args, extra);
}
