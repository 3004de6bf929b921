/**
 * Who the MCP server says it is, in one place for both processes: the daemon's SDK server is
 * built from these, and the proxy answers `server/discover` from them while the daemon is down
 * (docs/DECISIONS.md, "Protocol versions and HTTP"). Node builtins only: the proxy loads this.
 */
import { BRIDGE_FAMILY_TOOLS as B } from './bridge-names.js';
import { VERSION } from './version.js';

const names = (...families: readonly (readonly string[])[]) => families.flat().join(', ');

export const SERVER_INFO = { name: 'game-bridge-mcp', title: 'Game Bridge', version: VERSION };

export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
};

/** The `_meta` key by which a 2026-era request names its protocol version. */
export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** The 2026-era revisions we serve; the SDK's list, checked against it by test/protocol-eras.test.ts. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'];

export const INSTRUCTIONS = [
  'game-bridge drives running games (any engine) through a small HTTP contract.',
  'The path: list_instances (find running games) or launch_instance (start the one declared in gamebridge.json)',
  '→ list_toolsets {port} → describe_toolset {port, toolset} → call_tool {port, name, arguments}.',
  "A game's own tools are NOT separate MCP tools: they are reached through call_tool, so a game tool missing from the tool list still exists.",
  // the names come from the families (shared/bridge-names.ts, written by `npm run generate`)
  `Every game also has the \`bridge\` toolset (${names(B.core)}; ${names(B.input, B.clock)} on games that declare inputs or a clock; ${names(B.watch)} to see frames pass as one labelled contact sheet, and \`filmstrip: N\` on press, step and the pointer tools for N frames of the action; ${names(B.pointer)} for a pointer, touch, sticks and text; ${names(B.ui, B.world)} on games that publish a UI or world tree; ${names(B['saved-tests'])} to keep what was found as a test, or what was done as a page a person steps through (save_trace); ${names(B.rewind)} to go back to an earlier frame of the run; ${names(B.errors)} for what the game threw (a call that raised errors also answers them in \`errors\`); ${names(B.frames)} for how long its frames take, the slow ones by frame; ${names(B.skills)} to keep a sequence as a skill): get_state {path} reads one part of the state, wait_for {path, equals|gt|...} waits for a condition.`,
  'call_tool returns the state after the game applied the command. Errors start with their class (GameOffline, CommandRejected, ...) and say what to do next.',
  'stop_instance stops a game launched here; instance_log reads its output.',
  'Resources: gamebridge://instances and gamebridge://game/{port}/state|manifest|log|ui|screenshot (subscribe to state or ui to hear of changes). Prompts: playtest, reproduce_bug, compare_builds, write_regression_test.',
].join(' ');

/** The `server/discover` result, as the SDK's server builds it from the same facts. */
export function discoverResult(): Record<string, unknown> {
  return {
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    capabilities: SERVER_CAPABILITIES,
    instructions: INSTRUCTIONS,
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
  };
}
