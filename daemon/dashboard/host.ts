/**
 * What the daemon hands the dashboard when it is first asked for. The dashboard module is loaded
 * from disk on demand (never bundled into the daemon), so it imports nothing stateful from the
 * daemon: everything live comes through this object, typed by erased type-only imports.
 */
import type { DaemonState } from '../state/state.js';
import type { Skill } from '../skills/skill-file.js';
import type { CallToolResult } from '@modelcontextprotocol/server';

export interface DashboardHost {
  state: DaemonState;
  /** the daemon's HTTP port (the page's own origin) */
  port(): number;
  version: string;
  home: string;
  startedAt: string;
  log(line: string): void;
  /**
   * Run one of the MCP tools in-process as the dashboard's own session: it never adopts a
   * game, and it is shown in the call feed only when `record` is true (the form's calls).
   */
  call(name: string, args: Record<string, unknown>, record: boolean): Promise<CallToolResult>;
  /**
   * A session's recording on one game as a trace page (save_trace's file), with the game's
   * state and screenshot now; undefined when that session has recorded nothing on that port.
   */
  trace(session: string, port: number): Promise<string | undefined>;
  /**
   * One skill of the game on `port` as its file holds it (steps included), for the skills
   * panel's edit form; undefined when the game has no skill of that name.
   */
  skill(port: number, name: string): Promise<{ file: string; skill: Skill } | undefined>;
}
