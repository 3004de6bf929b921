/**
 * The errors family: what the game threw, from every place the bridge can see it (its output,
 * its kit's /errors, its page), each once with its count and the frame it was raised at.
 */
import { getErrorsAnswer } from '../../../shared/answers/errors.js';
import { z } from '../../tool-framework/define.js';
import { whole } from '../args.js';
import { bridgeTool, type BridgeFamily } from '../declare.js';

export const getErrors = bridgeTool({
  name: 'get_errors',
  output: getErrorsAnswer,
  title: "List the game's errors",
  description:
    "The game's errors: what its output printed (a traceback, Godot's SCRIPT ERROR, LÖVE's error handler, an unhandled exception), what its kit caught in a command, " +
    "and a page's uncaught errors and console.error, each once with how many times it was seen, the frame it was raised at and its stack. `since`: only those seen after that number (the last answer's `seq`). " +
    'A call that raised errors also answers them in its `errors`.',
  input: z.object({
    since: whole(0, Number.MAX_SAFE_INTEGER)
      .optional()
      .describe("Only errors seen after this number (a previous answer's `seq`). Default: 0, all of them."),
  }),
  effect: { readOnly: true },
  player: false,
  recorded: false,
  async handler(args, ctx, { port, signal }) {
    const client = ctx.client(port);
    const frame = await client.health().then(
      (h) => h.frame ?? null,
      () => null, // a game that died still has the errors it printed
    );
    const errors = ctx.launcher.errors;
    errors.readOutput(port, frame);
    if (frame !== null) await errors.readKit(port, client, signal);
    const book = errors.book(port);
    return { json: { errors: book.since(args.since ?? 0), seq: book.seq, total: book.total, frame } };
  },
});

/** The family (index.ts): its one tool, and its clause of the description. */
export const errorsFamily: BridgeFamily = {
  name: 'errors',
  clause: 'and list what the game threw, from its output, its kit or its page (get_errors)',
  tools: [getErrors],
};
