/** The call feed's records as the dashboard page sees them (types only: the page's script imports them). */
/** One call as the feed lists it (no JSON bodies: those are fetched on demand). */
export interface CallSummary {
  id: number;
  /** ISO time the call started */
  at: string;
  session: string;
  /** the session's MCP client name (from its initialize), when it gave one */
  client?: string;
  tool: string;
  /** call_tool's game tool (its `name` argument) */
  gameTool?: string;
  port?: number;
  ms: number;
  ok: boolean;
  /** the error's class (GameOffline, CommandRejected...) when it failed */
  errorClass?: string;
}
