import { resolve } from 'node:path';
import { defineTool, z } from './define.js';

export const launchInstanceTool = defineTool({
  name: 'launch_instance',
  title: 'Launch a game',
  description:
    "Start the game declared in gamebridge.json (looked up from the client's working directory, or --config) on a free port the bridge picks, " +
    'and return once it answers /health: {port, pid, name, version, cwd, readyInMs, logFile}. No build command or port is ever typed by the caller. ' +
    'Next: list_toolsets {port}.',
  input: z.object({
    config: z
      .string()
      .optional()
      .describe("Path to a gamebridge.json to launch from (relative to the client's working directory). Default: the nearest one above the working directory."),
  }),
  effect: { readOnly: false, destructive: false, idempotent: false },
  async handler(args, ctx, extra) {
    const configPath = args.config ? resolve(ctx.config.cwd, args.config) : ctx.config.configPath;
    let ticks = 0;
    const inst = await ctx.launcher.launch({
      cwd: ctx.config.cwd,
      configPath,
      env: ctx.config.env,
      owner: ctx.sessionId,
      signal: extra.signal,
      onProgress: (p) => void extra.progress(++ticks, undefined, p.message),
    });
    return {
      json: {
        port: inst.port,
        pid: inst.pid,
        name: inst.name,
        version: inst.version,
        cwd: inst.cwd,
        readyInMs: inst.readyInMs,
        logFile: inst.logFile,
        next: `list_toolsets {port: ${inst.port}} shows what the game can do; stop_instance {port: ${inst.port}} stops it.`,
      },
    };
  },
});
