/**
 * The bridge tools every conformant game has (docs/CONTRACT.md): read the state, wait for a
 * condition, send any command by name, check health, take a screenshot.
 */
import { usageError } from '../../../shared/errors.js';
import { getPath, hasPath, nearestKeys } from '../../sync/path.js';
import { frameOf } from '../../sync/summary.js';
import { conditionFrom, waitFor } from '../../sync/wait.js';
import { z } from '../../tool-framework/define.js';
import { syncAnswer } from '../../tool-framework/sync-answer.js';
import { inPlayerView, playerState } from '../../tool-framework/view.js';
import { conditionOperators, flag, whole } from '../args.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import {
  getStateAnswer,
  healthAnswer,
  rawCommandAnswer,
  screenshotAnswer,
  waitForAnswer,
} from '../../../shared/answers/core.js';
import { lacking } from '../needs.js';

export const getState = bridgeTool({
  name: 'get_state',
  output: getStateAnswer,
  title: "Read the game's state",
  description:
    "Read the game's current state snapshot (GET /state). Give `path` to read one part of it; a large snapshot is cut, so prefer a path.",
  input: z.object({
    path: z
      .string()
      .optional()
      .describe(
        "Dotted path into the snapshot, e.g. 'ui.screen' or 'game.score'; list items by index ('ui.elements.0'). Omit for the whole snapshot.",
      ),
  }),
  effect: { readOnly: true },
  player: true,
  recorded: false,
  async handler(args, ctx, { port, signal }) {
    const read = await ctx.client(port).state(signal);
    // a player sees ui and the game's player section, nothing more
    const state = inPlayerView(ctx) ? playerState(read) : read;
    const frame = frameOf(state);
    if (!args.path) return { json: { frame: frame ?? null, state } };
    if (!hasPath(state, args.path)) {
      const near = nearestKeys(state, args.path);
      throw usageError(
        `get_state: the state on port ${port} has no '${args.path}'. ` +
          `${near.prefix ? `'${near.prefix}'` : 'The top level'} has: ${near.keys.join(', ') || '(nothing)'}. Ask for one of those.`,
      );
    }
    return { json: { frame: frame ?? null, path: args.path, value: getPath(state, args.path) } };
  },
});

export const waitForTool = bridgeTool({
  name: 'wait_for',
  output: waitForAnswer,
  title: 'Wait for a condition',
  description:
    'Re-read fresh snapshots until the value at `path` meets one condition, then return {matched, value, elapsedMs, frame}. Fails on timeout or if the game restarts while waiting. Give exactly one condition.',
  input: z.object({
    path: z.string().describe("Dotted path into the state, e.g. 'ui.screen'."),
    ...conditionOperators(
      (what) => `Matches when the value${what}.`,
      'true: matches when the path is present; false: when it is absent.',
    ),
    timeoutMs: whole(0, 600000)
      .optional()
      .describe("Give up after this many milliseconds. Default: the bridge's --timeout (5000 unless set)."),
  }),
  effect: { readOnly: true },
  player: false,
  recorded: 'check',
  async handler(args, ctx, { port, signal }) {
    const r = await waitFor(ctx.client(port), conditionFrom(args), {
      timeoutMs: args.timeoutMs ?? ctx.config.timeoutMs,
      signal,
      generation: ctx.generation(port),
    });
    ctx.recordings.of(ctx.sessionId, port).last = r.state;
    return {
      json: {
        matched: r.matched,
        path: r.path,
        value: r.value,
        elapsedMs: r.elapsedMs,
        frame: r.frame ?? null,
      },
    };
  },
});

export const rawCommand = bridgeTool({
  name: 'raw_command',
  output: rawCommandAnswer,
  title: 'Send any command',
  description:
    'Send any command to the game by name (GET /command?cmd=...), including ones its manifest does not list, and wait until the game has applied it.',
  input: z.object({
    cmd: z.string().describe("The command's name, e.g. 'close' or 'set_seed'."),
    args: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The command\'s arguments as an object, e.g. {"seed": 42}; each becomes a query parameter.'),
    sync: flag()
      .prefault(true)
      .describe(
        'Wait until the game confirms it applied the command and return the state after it; false returns as soon as the command is queued.',
      ),
  }),
  effect: { readOnly: false },
  player: false,
  recorded: 'do',
  async handler(args, ctx, call) {
    const cmd = args.cmd.trim();
    if (!cmd) throw usageError("raw_command needs 'cmd', the command's name, e.g. {cmd: \"close\"}.");
    const r = await syncAnswer(ctx, call.port, cmd, args.args ?? {}, call, args.sync);
    return { json: r };
  },
});

export const health = bridgeTool({
  name: 'health',
  output: healthAnswer,
  title: 'Check the game answers',
  description: 'Check that the game answers (GET /health): returns {ok, frame}. Cheap; changes nothing.',
  input: z.object({}),
  effect: { readOnly: true },
  player: false,
  recorded: false,
  async handler(_args, ctx, { port }) {
    return { json: await ctx.client(port).health() };
  },
});

export const screenshot = bridgeTool({
  name: 'screenshot',
  output: screenshotAnswer,
  title: 'Take a screenshot',
  description: 'Capture the game window as a PNG image (GET /screenshot).',
  needs: 'screenshot',
  input: z.object({}),
  effect: { readOnly: true },
  player: true,
  recorded: false,
  async handler(_args, ctx, { port }) {
    // A page this daemon opened: the browser's picture, canvas and DOM together, at the frame it was taken.
    const web = ctx.launcher.webGame(port);
    if (web) {
      // The frame is asked while the browser captures (not before it): one round trip less.
      const [frame, shot] = await Promise.all([
        ctx
          .client(port)
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
          source: 'browser',
          mimeType: 'image/png',
          bytes: shot.length,
          ...size,
          ...(typeof frame === 'number' ? { frame } : {}),
        },
        images: [{ data: shot.toString('base64'), mimeType: 'image/png' }],
      };
    }
    const png = await ctx.client(port).screenshot();
    if (!png) throw await lacking(ctx, port, 'screenshot', 'screenshot');
    return {
      json: { mimeType: 'image/png', bytes: png.length },
      images: [{ data: png.toString('base64'), mimeType: 'image/png' }],
    };
  },
});

/** The family (index.ts): its tools in describe_toolset's order, and its clause of the description. */
export const coreFamily: BridgeFamily = {
  name: 'core',
  clause:
    'Contract-level tools that work on every game: read the state, wait for a condition, send any command by name, check health, take a screenshot',
  tools: [getState, waitForTool, rawCommand, health, screenshot],
};
