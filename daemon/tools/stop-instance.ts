import { isBridgeError, isTimeout, nothingRunning, usageError } from '../../shared/errors.js';
import { defineTool, portArg, z } from '../tool-framework/define.js';
import { stopInstanceAnswer } from '../../shared/answers/mcp.js';

export const stopInstanceTool = defineTool({
  name: 'stop_instance',
  output: stopInstanceAnswer,
  title: 'Stop a launched game',
  description:
    'Stop a game this bridge launched: ask it to close, wait for its port to go quiet, and kill its process tree if it will not go. ' +
    'Returns {port, stopped, how: "closed cleanly" | "terminated" | "killed" | "had already exited (signal SIGKILL)"}. Games started some other way are refused (ask them to close with raw_command close).',
  input: z.object({
    port: portArg,
    force: z.boolean().optional().describe('Stop it even when another live session launched it. Default: false.'),
  }),
  // It ends a game (destructive), and stopping a stopped game changes nothing more (idempotent).
  effect: { readOnly: false, destructive: true, idempotent: true },
  async handler(args, ctx) {
    const port = ctx.resolvePort(args);
    const inst = ctx.launcher.get(port);
    // Not running: launcher.stop answers for a game that exited by itself, and refuses any other port.
    if (inst && ctx.owners.ownedByAnotherLiveSession(inst, ctx.sessionId) && args.force !== true) {
      throw usageError(
        `The game on port ${port} belongs to another live session. Pass force: true to stop it anyway, or leave it to that session.`,
      );
    }
    await ctx.held.releasePort(port, (p) => ctx.client(p));
    try {
      return { json: { ...(await ctx.launcher.stop(port)) } };
    } catch (e) {
      // Not launched here: a game someone else started, or nothing at all, which is worth saying.
      if (!isBridgeError(e) || e.kind !== 'NotLaunchedHere') throw e;
      const offline = await ctx
        .client(port)
        .health()
        .then(
          () => false,
          (h: unknown) => isBridgeError(h) && h.kind === 'GameOffline' && !isTimeout(h),
        );
      throw offline ? nothingRunning(port) : e;
    }
  },
});
