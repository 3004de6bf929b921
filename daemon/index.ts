/**
 * The library (docs/COMPOSITES.md, "As a library"), exported as `game-bridge-mcp`: the one-call API and
 * the types it is used with, nothing more. The common case:
 *
 *   import { parseSessionArgs, startStdioServer } from 'game-bridge-mcp';
 *   await startStdioServer(parseSessionArgs(process.argv.slice(2)), { composites: [myComposite] });
 *
 * Everything else (the daemon's state, the launcher, the game client, the sessions) is internal:
 * what is not exported here can change in any release without breaking anyone.
 */

// argv + environment → one session's settings (the CLI parser)
export { parseSessionArgs } from '../shared/session-args.js';
export type { SessionConfig } from '../shared/config.js';

// the in-process engine over stdio
export { startStdioServer } from './stdio.js';
export type { StdioServerHandle } from './stdio.js';

// composites given in code
export type { Composite, CompositeArg, CompositeContext } from './composites/types.js';

// errors
export { BridgeError, isBridgeError, ERROR_CLASSES } from '../shared/errors.js';
export type { ErrorClass, ErrorData, ExitFacts, LaunchFacts, UsageFacts } from '../shared/errors.js';
