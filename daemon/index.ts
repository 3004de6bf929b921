/**
 * The library (README.md, "As a library"), exported as `game-bridge-mcp`. The common case is one call:
 *
 *   import { parseSessionArgs, startStdioServer } from 'game-bridge-mcp';
 *   await startStdioServer(parseSessionArgs(process.argv.slice(2)), { composites: [myComposite] });
 *
 * The lower pieces are here for people who build their own server around the engine.
 */

// argv + environment → one session's settings (the CLI parser)
export { parseSessionArgs } from '../shared/session-args.js';
export {
  sessionConfigFrom,
  parsePortList,
  DEFAULT_PORT,
  DEFAULT_SCAN_RANGE,
  DEFAULT_TIMEOUT_MS,
} from '../shared/config.js';
export type { SessionConfig } from '../shared/config.js';

// project config (gamebridge.json)
export {
  findDeclaration,
  readDeclaration,
  DECLARATION_FILE,
  DEFAULT_PORT_RANGE,
  DEFAULT_READY_TIMEOUT_MS,
} from './launcher/index.js';
export type {
  LaunchDeclaration,
  LaunchedInstance,
  LaunchOptions,
  StopResult,
  StopHow,
  LogTail,
} from './launcher/index.js';

// the in-process engine over stdio
export { startStdioServer } from './stdio.js';
export type { StdioServerHandle } from './stdio.js';
export { createEngineSession, INSTRUCTIONS } from './sessions/session.js';
export type { EngineSession, EngineSessionOptions } from './sessions/session.js';

// the lower pieces
export { DaemonState } from './state.js';
export type { DaemonStateOptions, SessionInfo } from './state.js';
export { GameClient } from './game/client.js';
export type { Health, CommandAnswer, State, GameClientOptions } from './game/client.js';
export { Launcher } from './launcher/index.js';
export { readRegistry } from './discovery/registry.js';
export type { RegistryEntry, RegistryRead } from './discovery/registry.js';
export { BRIDGE_TOOLSET } from './game/manifest.js';
export { normaliseManifest } from './bridge/index.js';
export type { Manifest, Toolset, GameTool, ToolArg } from './game/manifest.js';
export { commandAndSync } from './sync/command.js';
export type { SyncResult } from './sync/command.js';

// composites
export type { Composite, CompositeArg, CompositeContext } from './composites/types.js';

// errors
export { BridgeError, isBridgeError } from '../shared/errors.js';
export type { ErrorClass, ErrorData, UsageFacts } from '../shared/errors.js';
