import { resolve } from 'node:path';
import { inside, projectRoot } from '../../shared/declaration-path.js';
import { usageError } from '../../shared/errors.js';
import { launchMany, MAX_COUNT, restartGame, type LaunchedInstance } from '../launcher/index.js';
import { backTo, recordLaunch } from '../bridge/moment.js';
import { callGameTool } from './call-tool.js';
import { defineTool, z } from '../tool-framework/define.js';
import { launchInstanceAnswer } from '../../shared/answers/instances.js';
import type { ToolContext } from '../tool-framework/context.js';

/** What launch_instance says of one started game. */
function launched(inst: LaunchedInstance): Record<string, unknown> {
  return {
    port: inst.port,
    pid: inst.pid,
    name: inst.name,
    version: inst.version,
    cwd: inst.cwd,
    readyInMs: inst.readyInMs,
    logFile: inst.logFile,
    ...(inst.profile !== undefined ? { profile: inst.profile } : {}),
    ...(inst.index !== undefined ? { index: inst.index } : {}),
    ...(inst.web?.seed !== undefined ? { seed: inst.web.seed } : {}),
    ...(inst.portsTaken ? { portsTaken: inst.portsTaken } : {}),
  };
}

/**
 * For a launch with `paused`: the clock as the game reports it once ready. A kit that honours
 * GAME_BRIDGE_START_PAUSED is paused at simFrame 0; any other game is running, and says so.
 */
async function pausedReport(ctx: ToolContext, port: number, signal: AbortSignal): Promise<Record<string, unknown>> {
  const s = (await ctx
    .client(port)
    .state(signal)
    .catch(() => null)) as {
    clock?: { paused?: unknown };
    simFrame?: unknown;
  } | null;
  const simFrame = typeof s?.simFrame === 'number' ? s.simFrame : undefined;
  if (s?.clock?.paused === true) return { paused: true, ...(simFrame !== undefined ? { simFrame } : {}) };
  return {
    paused: false,
    ...(simFrame !== undefined ? { simFrame } : {}),
    pausedNote: `this game did not start paused (its kit does not read GAME_BRIDGE_START_PAUSED, or it has no agent clock): call_tool {port: ${port}, name: "bridge.pause"} pauses it where it is`,
  };
}

const next = (port: number) =>
  `list_toolsets {port: ${port}} shows what the game can do; stop_instance {port: ${port}} stops it.`;

export const launchInstanceTool = defineTool({
  name: 'launch_instance',
  output: launchInstanceAnswer,
  title: 'Launch a game',
  description:
    "Start the game declared in gamebridge.json (looked up from the client's working directory, or --config) on a free port the bridge picks, " +
    "and return once it answers /health: {port, pid, name, version, cwd, readyInMs, logFile}; pid is the game's own process. No build command or port is ever typed by the caller. " +
    "A browser game (launch.web) is opened in headless Chromium and returns once its page joined; its pid is the browser's, and screenshot/press/hold then work through the browser. " +
    '{profile, count} starts count instances of a declared profile (e.g. a server and its clients) concurrently, all or none: {count, instances: [...]}. ' +
    '{restart: port} stops the game launched on that port if it still runs and starts the same declaration and profile on the same port. ' +
    '{paused: true} starts it with its clock paused at simFrame 0, so its first frame is one you step. ' +
    '{restart: port, to: "here"} relaunches it (its code as it is now) with the same seed, paused, and makes every call this session made to it again at its frame, up to the frame it was on: ' +
    'it answers the frame, the state and `parting`, where the new run first differs from the recording (rewind goes to an earlier frame). ' +
    'Next: list_toolsets {port}.',
  input: z.object({
    config: z
      .string()
      .optional()
      .describe(
        "Path to a gamebridge.json to launch from (relative to the client's working directory). Default: the nearest one above the working directory.",
      ),
    profile: z
      .string()
      .optional()
      .describe(
        'A profile of launch.profiles in gamebridge.json: its args are appended to the command, its env and readyTimeoutMs apply.',
      ),
    count: z
      .int()
      .min(1)
      .max(MAX_COUNT)
      .optional()
      .describe(
        'Start this many instances at once, each on its own port with {index} = 0, 1, 2…; if one fails, the others are stopped and the call fails.',
      ),
    restart: z
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe(
        'Port of a game launched here (running or exited): relaunch it there with the same declaration and profile.',
      ),
    seed: z
      .union([z.string().min(1).max(200), z.int()])
      .optional()
      .describe(
        "A browser game's seed for Math.random and crypto.getRandomValues, in place of launch.web.seed; without either the bridge picks one, and the answer says it. With restart, default the seed it ran with.",
      ),
    force: z
      .boolean()
      .optional()
      .describe('With restart: restart it even when another live session launched it. Default: false.'),
    to: z
      .literal('here')
      .optional()
      .describe(
        'With restart: relaunch, then replay every call this session made to the game since its launch, frame-exact, up to the frame it was on, and leave it paused there. Needs the "clock" capability.',
      ),
    stopAtDivergence: z
      .boolean()
      .optional()
      .describe(
        'With to: "here": stop the replay where the new run first parts from the recording. Default: false (it goes on).',
      ),
    paused: z
      .boolean()
      .optional()
      .describe(
        "Start the game with its clock paused at simFrame 0 (every kit reads GAME_BRIDGE_START_PAUSED=1; a page's clock starts paused), so its first frame is one you step. The answer says {paused, simFrame} as the game reports it. Default: false.",
      ),
  }),
  effect: { readOnly: false, destructive: false, idempotent: false },
  async handler(args, ctx, extra) {
    let configPath = ctx.config.configPath;
    if (args.config) {
      configPath = resolve(ctx.config.cwd, args.config);
      const root = projectRoot(ctx.config.cwd, ctx.config.env.HOME);
      if (!inside(root, configPath)) {
        throw usageError(
          `launch_instance {config}: ${configPath} is outside this session's project (${root}); nothing was read. Name a gamebridge.json inside the project, or start the client with --config.`,
          { config: configPath, project: root },
        );
      }
    }
    let ticks = 0;
    const common = {
      ...(args.seed !== undefined ? { seed: String(args.seed) } : {}),
      ...(args.paused ? { paused: true } : {}),
      env: ctx.config.env,
      owner: ctx.sessionId,
      signal: extra.signal,
      onProgress: (p: { message: string }) => void extra.progress(++ticks, undefined, p.message),
    };
    if ((args.to !== undefined || args.stopAtDivergence !== undefined) && args.restart === undefined)
      throw usageError('launch_instance: to: "here" goes with restart: the port of the game to take back there.');
    if (args.restart !== undefined) {
      if (args.count !== undefined || args.profile !== undefined || args.config !== undefined) {
        throw usageError(
          'launch_instance: restart relaunches what ran on that port (same declaration, same profile); give it alone, without config, profile or count.',
        );
      }
      const port = args.restart;
      const running = ctx.launcher.get(port);
      if (running && ctx.owners.ownedByAnotherLiveSession(running, ctx.sessionId) && args.force !== true) {
        throw usageError(
          `The game on port ${port} belongs to another live session. Pass force: true to restart it anyway, or leave it to that session.`,
          { port },
        );
      }
      if (args.to === 'here') {
        const call = async (name: string, a: Record<string, unknown>) =>
          (await callGameTool(ctx, port, name, a, extra)).json;
        const json = await backTo(ctx, {
          port,
          stopAtDivergence: args.stopAtDivergence === true,
          call,
          extra,
          tool: 'launch_instance {restart, to: "here"}',
        });
        return { json: { ...json, next: next(port) } };
      }
      const { inst, previous } = await restartGame(ctx.launcher, port, common);
      recordLaunch(ctx, inst);
      const clock = args.paused ? await pausedReport(ctx, inst.port, extra.signal) : {};
      return { json: { ...launched(inst), ...clock, previous, next: next(inst.port) } };
    }
    const opts = { ...common, cwd: ctx.config.cwd, configPath, profile: args.profile };
    if (args.count !== undefined) {
      const all = await launchMany(ctx.launcher, opts, args.count);
      for (const inst of all) recordLaunch(ctx, inst);
      const ports = all.map((i) => i.port).join(', ');
      return {
        json: {
          count: all.length,
          instances: await Promise.all(
            all.map(async (i) => ({
              ...launched(i),
              ...(args.paused ? await pausedReport(ctx, i.port, extra.signal) : {}),
            })),
          ),
          next: `call_tool {port, ...} drives each one (ports ${ports}); stop_instance {port} stops one.`,
        },
      };
    }
    const inst = await ctx.launcher.launch(opts);
    recordLaunch(ctx, inst);
    const clock = args.paused ? await pausedReport(ctx, inst.port, extra.signal) : {};
    return { json: { ...launched(inst), ...clock, next: next(inst.port) } };
  },
});
