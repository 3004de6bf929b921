import { usageError } from '../../shared/errors.js';
import { portProperty } from './list-toolsets.js';
import { defineTool } from './types.js';

export const stopInstanceTool = defineTool({
  name: 'stop_instance',
  title: 'Stop a launched game',
  description:
    "Stop a game this bridge launched: ask it to close, wait for its port to go quiet, and kill its process tree if it will not go. " +
    'Returns {port, stopped, how: "closed cleanly" | "terminated" | "killed" | "had already exited (signal SIGKILL)"}. Games started some other way are refused (ask them to close with raw_command close).',
  inputSchema: {
    type: 'object',
    properties: {
      port: portProperty,
      force: { type: 'boolean', description: 'Stop it even when another live session launched it. Default: false.' },
    },
  },
  readOnly: false,
  idempotent: true,
  async handler(args, ctx) {
    const port = ctx.resolvePort(args);
    const launcher = ctx.launcher;
    const inst = launcher.get(port);
    // Not running: launcher.stop answers for a game that exited by itself, and refuses any other port.
    if (inst && ctx.owners.ownedByAnotherLiveSession(inst, ctx.sessionId) && args.force !== true) {
      throw usageError(`The game on port ${port} belongs to another live session. Pass force: true to stop it anyway, or leave it to that session.`);
    }
    return { ...(await launcher.stop(port)) };
  },
});
