/**
 * The project a session's bridge tools keep files in (saved tests, skills): the folder of the
 * gamebridge.json the session's game was launched from, else the session's own, else the one this
 * daemon launched the game from.
 */
import { locateDeclaration } from '../../shared/declaration-path.js';
import { usageError } from '../../shared/errors.js';
import type { ToolContext } from '../tool-framework/context.js';

/** The project's gamebridge.json; `tool` and `what` name the caller and what lives beside it in the error. */
export function projectConfig(
  ctx: ToolContext,
  port: number | undefined,
  tool: string,
  what = 'tests live in gamebridge-tests/ beside it',
): string {
  const launched = port === undefined ? undefined : ctx.recordings.peek(ctx.sessionId, port)?.launch?.config;
  if (launched) return launched;
  const found = locateDeclaration(ctx.config.cwd, ctx.config.configPath, ctx.config.env.HOME).file;
  if (found) return found;
  // a session with no project of its own (the dashboard's) keeps files in the launched game's
  const declared = port === undefined ? undefined : ctx.launcher.get(port)?.declaration;
  if (declared) return declared;
  throw usageError(
    `${tool}: no gamebridge.json for this session (none above ${ctx.config.cwd}); ${what}. Create one with \`game-bridge-mcp init\`, or start the client with --config.`,
    { looked: [ctx.config.cwd] },
  );
}
