/**
 * The library (docs/LIBRARY.md), exported as `game-bridge-mcp`: what a script, a test or an
 * MCP server of your own may build on, and the types it is used with. These names are the
 * package's stable surface; anything not exported here (the daemon's state, the launcher, the
 * sessions, the tools) is internal and may change in any release.
 */

// an MCP server in-process: argv + environment → one session's settings, then the engine over stdio
export { parseSessionArgs } from '../shared/session-args.js';
export type { SessionConfig } from '../shared/config.js';
export { startStdioServer } from './doors/stdio.js';
export type { StdioServerHandle } from './doors/stdio.js';

// a project's gamebridge.json
export { findDeclaration, parseDeclaration, readDeclaration, withPort } from './launcher/declaration.js';
export type { LaunchDeclaration } from './launcher/declaration.js';
export type { LaunchProfile } from './launcher/profiles.js';
export type { WebDeclaration } from './launcher/web-declaration.js';

// a running game, without an agent
export { SyncingGameClient as GameClient } from './sync/game-client.js';
export type { WaitCondition, WaitOptions } from './sync/game-client.js';
export type { CommandAnswer, Health, State } from './game/client.js';
export type { Confirmation, SyncResult } from './sync/command.js';
export type { WaitResult } from './sync/wait.js';
export { summarise } from './sync/summary.js';
export type { Summary } from './sync/summary.js';

// the games that registered themselves, and what they publish
export { readRegistry } from './discovery/registry.js';
export type { RegistryEntry, RegistryRead } from './discovery/registry.js';
export { registryDir } from '../shared/paths.js';
export { readManifest as normaliseManifest } from './game/manifest.js';
export type { ArgType, GameTool, Manifest, ToolArg, Toolset } from './game/manifest.js';

// composites given in code
export type { Composite, CompositeArg, CompositeContext } from './composites/types.js';

// errors
export { BridgeError, isBridgeError, ERROR_CLASSES } from '../shared/errors.js';
export type { ErrorClass, ErrorData, ExitFacts, LaunchFacts, UsageFacts } from '../shared/errors.js';
