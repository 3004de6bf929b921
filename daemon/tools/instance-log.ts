import { usageError } from '../../shared/errors.js';
import { portProperty } from './list-toolsets.js';
import { defineTool } from './types.js';

export const instanceLogTool = defineTool({
  name: 'instance_log',
  title: "Read a launched game's output",
  description: "The last lines (up to 200) of a launched game's stdout and stderr, and the full log file's path.",
  inputSchema: {
    type: 'object',
    properties: {
      port: portProperty,
      lines: { type: 'integer', minimum: 1, maximum: 200, description: 'How many of the last lines to return. Default: 200.' },
    },
  },
  readOnly: true,
  async handler(args, ctx) {
    const port = ctx.resolvePort(args);
    const inst = ctx.bridge.launcher.get(port);
    if (!inst) {
      const launched = ctx.bridge.launcher.list().map((i) => i.port);
      throw usageError(
        `No game launched by this bridge runs on port ${port}, so there is no log to read. ` +
          (launched.length ? `Launched games: ports ${launched.join(', ')}.` : 'Launch one with launch_instance.'),
      );
    }
    ctx.touch(port);
    const tail = ctx.bridge.launcher.log(port, (args.lines as number | undefined) ?? 200);
    return { ...tail };
  },
});
