/** The built-in `bridge` toolset every conformant game gets (SPEC §5), reached via call_tool. */
import { usageError } from '../../shared/errors.js';
import { getPath, hasPath, nearestKeys } from '../sync/path.js';
import { conditionFrom, waitFor } from '../sync/wait.js';
import { frameOf } from '../sync/summary.js';
import type { ToolContext } from './context.js';
import { syncAnswer } from './sync-answer.js';
import type { ToolAnswer, ToolCallExtra } from './types.js';

export async function runBridgeTool(ctx: ToolContext, port: number, name: string, args: Record<string, unknown>, extra: ToolCallExtra): Promise<ToolAnswer> {
  const client = ctx.client(port);
  const base = { port, tool: name, via: 'bridge' };
  switch (name) {
    case 'get_state': {
      const state = await client.state(extra.signal);
      const frame = frameOf(state);
      if (frame !== undefined) ctx.noteFrame(port, frame);
      if (args.path === undefined || args.path === null || args.path === '') return { json: { ...base, frame: frame ?? null, state } };
      if (typeof args.path !== 'string') throw usageError("get_state: 'path' must be a string like 'game.score'.");
      if (!hasPath(state, args.path)) {
        const near = nearestKeys(state, args.path);
        throw usageError(
          `get_state: the state on port ${port} has no '${args.path}'. ` +
            `${near.prefix ? `'${near.prefix}'` : 'The top level'} has: ${near.keys.join(', ') || '(nothing)'}. Ask for one of those.`,
        );
      }
      return { json: { ...base, frame: frame ?? null, path: args.path, value: getPath(state, args.path) } };
    }
    case 'wait_for': {
      const cond = conditionFrom(args);
      const timeoutMs = args.timeoutMs === undefined ? ctx.config.timeoutMs : Number(args.timeoutMs);
      if (!Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 600000) throw usageError('wait_for: timeoutMs must be 0-600000 milliseconds.');
      const r = await waitFor(client, cond, { timeoutMs, signal: extra.signal, onFrame: (frame) => ctx.noteFrame(port, frame), epoch: () => ctx.cache.epoch(port) });
      return { json: { ...base, matched: r.matched, path: r.path, value: r.value, elapsedMs: r.elapsedMs, frame: r.frame ?? null } };
    }
    case 'raw_command': {
      const cmd = args.cmd;
      if (typeof cmd !== 'string' || !cmd.trim()) throw usageError("raw_command needs 'cmd', the command's name, e.g. {cmd: \"close\"}.");
      const cmdArgs = args.args ?? {};
      if (typeof cmdArgs !== 'object' || cmdArgs === null || Array.isArray(cmdArgs)) throw usageError("raw_command: 'args' must be an object like {\"seed\": 42}.");
      const sync = !(args.sync === false || args.sync === 'false');
      const r = await syncAnswer(ctx, port, cmd.trim(), cmdArgs as Record<string, unknown>, extra, sync);
      return { json: { ...base, ...r } };
    }
    case 'health': {
      const h = await client.health();
      if (typeof h.frame === 'number') ctx.noteFrame(port, h.frame);
      return { json: { ...base, ...h } };
    }
    case 'screenshot': {
      const png = await client.screenshot();
      if (!png) {
        throw usageError(`The game on port ${port} does not implement GET /screenshot (an optional extension). Use get_state to read what is on screen.`);
      }
      return { json: { ...base, mimeType: 'image/png', bytes: png.length }, images: [{ data: png.toString('base64'), mimeType: 'image/png' }] };
    }
    default:
      throw usageError(`Unknown bridge tool '${name}'. The bridge toolset has get_state, wait_for, raw_command, health, screenshot.`);
  }
}
