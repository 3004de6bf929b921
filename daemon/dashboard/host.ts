/**
 * What the daemon hands the dashboard when it is first asked for. The dashboard module is loaded
 * from disk on demand (never bundled into the daemon), so it imports nothing stateful from the
 * daemon: everything live comes through this object, typed by erased type-only imports.
 */
import type { DaemonState } from '../state/state.js';
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
}
