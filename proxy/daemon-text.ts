/**
 * What the proxy lets through from the daemon to the client's stdout: one JSON-RPC message per
 * line, nothing else, whatever the daemon (or something posing as one) sends.
 */
import type { Json } from '../shared/stdio-lines.js';

/** The message in a daemon text and the one line to write for it, or undefined for garbage. */
export function daemonMessage(text: string): { msg: Json; text: string } | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg) || (msg as Json).jsonrpc !== '2.0') return undefined;
  // JSON may hold raw line breaks between tokens; a line-delimited stdout may not.
  return { msg: msg as Json, text: /[\r\n]/.test(text) ? JSON.stringify(msg) : text };
}
