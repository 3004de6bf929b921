/**
 * rewind: back to an earlier frame of this run, by the same relaunch and replay as
 * launch_instance {restart, to: "here"} (../moment.ts). The session's recording is cut there, so
 * what the agent does next is a new branch, and save_test saves that branch.
 */
import { usageError } from '../../../shared/errors.js';
import { rewindAnswer } from '../../../shared/answers/moment.js';
import { z } from '../../tool-framework/define.js';
import { flag, whole } from '../args.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';
import { backTo } from '../moment.js';

export const rewind = bridgeTool({
  name: 'rewind',
  output: rewindAnswer,
  title: 'Go back to an earlier frame',
  description:
    'Go back to an earlier frame of this run: the game this session launched is relaunched (its code as it is now) with the same seed, paused, ' +
    'and every call this session made since the launch is made again at its frame, up to `toFrame` (or `frames` before the frame it is on); it stays paused there. ' +
    "The session's recording is cut there: what follows is a new branch, and save_test saves it. Answers the frame reached, the state, and `parting`: where the new run first differs from the recording (null when it does not).",
  needs: 'clock',
  input: z.object({
    frames: whole(1, 1_000_000).optional().describe('How many frames back from the frame the game is on.'),
    toFrame: whole(0, 100_000_000).optional().describe('The simFrame to go back to.'),
    stopAtDivergence: flag()
      .optional()
      .describe('Stop the replay at the first parting from the recording. Default: false (it goes on to the frame).'),
  }),
  effect: { readOnly: false },
  player: false,
  recorded: false,
  async handler(args, ctx, call) {
    if ((args.frames === undefined) === (args.toFrame === undefined))
      throw usageError('rewind takes one of `frames` (how many back) or `toFrame` (which frame), e.g. {frames: 60}.');
    if (!call.call) throw usageError('rewind is reached through call_tool.');
    return {
      json: await backTo(ctx, {
        port: call.port,
        ...(args.toFrame !== undefined ? { toFrame: args.toFrame } : { back: args.frames }),
        stopAtDivergence: args.stopAtDivergence === true,
        call: call.call,
        extra: call,
        tool: 'rewind',
      }),
    };
  },
});

/** The family (index.ts): its one tool, and its clause of the description. */
export const rewindFamily: BridgeFamily = {
  name: 'rewind',
  clause: 'and, on games that declare the "clock" capability, go back to an earlier frame of this run (rewind)',
  tools: [rewind],
};
