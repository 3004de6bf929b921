/** The launcher: gamebridge.json → a running, reachable, reapable game, and the facts of its exit. */
export { Launcher } from './launcher.js';
export {
  findDeclaration,
  readDeclaration,
  parseDeclaration,
  withPort,
  DECLARATION_FILE,
  DEFAULT_READY_TIMEOUT_MS,
  DEFAULT_PORT_RANGE,
} from './declaration.js';
export type { LaunchDeclaration } from './declaration.js';
export { SCHEMA_FILE } from './declaration-schema.js';
export type {
  LaunchedInstance,
  LaunchOptions,
  LaunchProgress,
  StopResult,
  StopHow,
  LogTail,
  LastCommand,
} from './types.js';
export { groupOf } from './types.js';
export { PortAllocator } from './ports.js';
export { MAX_LOG_LINES } from './logfile.js';
export { exitedError, exitFacts, exitHow, exitShort, exitSummary, type ExitRecord } from './exit-records.js';
export { launchMany, MAX_COUNT } from './group-launch.js';
export { restartGame, type Restarted } from './restart.js';
export type { LaunchProfile } from './profiles.js';
export { explainExit } from './explain.js';
