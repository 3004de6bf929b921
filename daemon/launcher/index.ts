/** The launcher: gamebridge.json → a running, reachable, reapable game. */
export { Launcher } from './launcher.js';
export { findDeclaration, readDeclaration, withPort, DECLARATION_FILE, DEFAULT_READY_TIMEOUT_MS, DEFAULT_PORT_RANGE } from './declaration.js';
export type { LaunchDeclaration } from './declaration.js';
export type { LaunchedInstance, LaunchOptions, LaunchProgress, StopResult, StopHow, LogTail } from './types.js';
export { PortAllocator } from './ports.js';
export { MAX_LOG_LINES } from './logfile.js';
