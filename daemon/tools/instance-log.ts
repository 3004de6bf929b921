import { exitSummary } from '../launcher/index.js';
import { defineTool, portArg, z } from '../tool-framework/define.js';
import { instanceLogAnswer } from '../../shared/answers/mcp.js';
import { inPlayerView } from '../tool-framework/view.js';
import { notForPlayers } from './player-calls.js';

export const instanceLogTool = defineTool({
  name: 'instance_log',
  output: instanceLogAnswer,
  title: "Read a launched game's output",
  description:
    "The last lines (up to 200) of a launched game's stdout and stderr, and the full log file's path. " +
    'Still readable after the game exited or crashed, which is when it matters most; then `exited` says how, when and after how long.',
  input: z.object({
    port: portArg,
    lines: z.int().min(1).max(200).optional().describe('How many of the last lines to return. Default: 200.'),
  }),
  effect: { readOnly: true },
  async handler(args, ctx) {
    // a game's own output is the developer's, not what a player sees
    if (inPlayerView(ctx)) throw notForPlayers('instance_log');
    const port = ctx.resolvePort(args);
    const launcher = ctx.launcher;
    if (launcher.get(port)) ctx.adoptIfDetached(port);
    const tail = launcher.log(port, args.lines ?? 200);
    const running = launcher.get(port) !== undefined;
    const exited = running ? undefined : await launcher.exitOf(port);
    return { json: { ...tail, running, ...(exited ? { exited: exitSummary(exited) } : {}) } };
  },
});
