/**
 * Proxy ⇄ daemon wire frames (docs/ARCHITECTURE.md), one JSON text per WebSocket message.
 *
 * Control frames carry a `t` field. MCP traffic from the daemon to the proxy is the bare
 * JSON-RPC text (no envelope), so the proxy forwards it to stdout without re-stringifying.
 * Client traffic to the daemon is wrapped in an `rpc` frame with a proxy-assigned `seq`,
 * built by string concatenation around the client's own line (see rpcFrame).
 */

export interface HelloFrame {
  t: 'hello';
  version: string;
  sessionId: string;
  pid: number;
  cwd: string;
  /** the proxy's argv after `node main.js` */
  argv: string[];
  /** the proxy's environment: games launched for this client get it (plus the declaration's env) */
  env: Record<string, string>;
}

export interface WelcomeFrame {
  t: 'welcome';
  version: string;
  pid: number;
  /** a problem with the client's argv (bad flag), if any: the proxy reports it on stderr */
  configError?: string;
}

/** client → daemon: one JSON-RPC message the client wrote (request, notification or response) */
export interface RpcFrame {
  t: 'rpc';
  seq: number;
  msg: unknown;
}

/** daemon → proxy: request `seq` was received; may it be re-sent after a restart? */
export interface AckFrame {
  t: 'ack';
  seq: number;
  replay: ReplayVerdict;
}

/** proxy → daemon on version mismatch: save launched games, exit without reaping them. */
export interface HandoverFrame {
  t: 'handover';
}

export type ReplayVerdict = 'safe' | 'unsafe';
export type ControlFrame = HelloFrame | WelcomeFrame | RpcFrame | AckFrame | HandoverFrame;

/** Wrap a client line without parsing and re-stringifying it. `line` must be one JSON value. */
export function rpcFrame(seq: number, line: string): string {
  return `{"t":"rpc","seq":${seq},"msg":${line}}`;
}

/** True when a daemon → proxy text is a control frame rather than a bare JSON-RPC message. */
export function isControlText(text: string): boolean {
  // Control frames are written by us with `t` first; JSON-RPC messages never start that way.
  return text.startsWith('{"t":');
}

export function encode(frame: ControlFrame): string {
  const { t, ...rest } = frame;
  return JSON.stringify({ t, ...rest });
}

/** Close codes the daemon uses, so a proxy can tell a handover from a crash. */
export const CLOSE_HANDOVER = 4001;
export const CLOSE_SHUTDOWN = 4002;
export const CLOSE_BAD_HELLO = 4003;
