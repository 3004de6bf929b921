/**
 * What the proxy remembers so a daemon restart looks like latency: the pending table
 * of client requests (unacked / acked-safe / acked-unsafe), the client's initialize, and the
 * last tool list it saw.
 */
import { callInterrupted } from '../shared/errors.js';

export type PendingState = 'unacked' | 'safe' | 'unsafe';

/** The table key of a JSON-RPC id: 1 and "1" are different requests. */
export const requestKey = (id: unknown): string => JSON.stringify(id);

export interface ClientRequest {
  /** the JSON-RPC id as the client wrote it */
  id: string | number;
  /** requestKey(id) */
  key: string;
  method: string;
  /** the client's line, forwarded verbatim */
  line: string;
  /** for tools/call: the tool name, to say what was interrupted */
  tool?: string;
  /** a 2026-era request (its `_meta` names its protocol version): results carry `resultType` */
  modern?: boolean;
}

export interface Pending extends ClientRequest {
  seq: number;
  state: PendingState;
}

export class PendingTable {
  private bySeq = new Map<number, Pending>();
  private byKey = new Map<string, Pending>();

  get size(): number {
    return this.bySeq.size;
  }

  add(req: ClientRequest, seq: number): void {
    const p: Pending = { ...req, seq, state: 'unacked' };
    this.bySeq.set(seq, p);
    this.byKey.set(req.key, p);
  }

  ack(seq: number, verdict: 'safe' | 'unsafe'): void {
    const p = this.bySeq.get(seq);
    if (p) p.state = verdict === 'safe' ? 'safe' : 'unsafe';
  }

  hasKey(key: string): boolean {
    return this.byKey.has(key);
  }

  /** A response for `key` arrived: the request is done. */
  settle(key: string): Pending | undefined {
    const p = this.byKey.get(key);
    if (!p) return undefined;
    this.byKey.delete(key);
    this.bySeq.delete(p.seq);
    return p;
  }

  /** Remove and return the entries `pick` selects, oldest first. */
  take(pick: (p: Pending) => boolean): Pending[] {
    const out = [...this.bySeq.values()].filter(pick).sort((a, b) => a.seq - b.seq);
    for (const p of out) this.settle(p.key);
    return out;
  }

  /** Empty the table, oldest first (for replay or for failing everything). */
  drain(): Pending[] {
    const all = [...this.bySeq.values()].sort((a, b) => a.seq - b.seq);
    this.bySeq.clear();
    this.byKey.clear();
    return all;
  }
}

/** After a reconnect: which pending requests go out again, and which the proxy must answer itself. */
export function planReplay(pending: Pending[]): { resend: Pending[]; interrupted: Pending[] } {
  return {
    resend: pending.filter((p) => p.state !== 'unsafe'),
    interrupted: pending.filter((p) => p.state === 'unsafe'),
  };
}

/** What the client is told about a request that cannot be completed: a tool result for tools/call. */
export function failureAnswer(req: ClientRequest, text: string): string {
  if (req.method === 'tools/call') {
    const result = { content: [{ type: 'text', text }], isError: true, ...(req.modern ? { resultType: 'complete' } : {}) };
    return JSON.stringify({ jsonrpc: '2.0', id: req.id, result });
  }
  return JSON.stringify({ jsonrpc: '2.0', id: req.id, error: { code: -32000, message: text } });
}

export function interruptedAnswer(req: ClientRequest): string {
  const what = req.tool ? `The call to '${req.tool}'` : `The '${req.method}' request`;
  return failureAnswer(req, callInterrupted(what).text);
}

export function unavailableAnswer(req: ClientRequest, detail: string): string {
  const what = req.tool ? `The call to '${req.tool}'` : `The '${req.method}' request`;
  return failureAnswer(req, callInterrupted(what, detail).text);
}

/** The session facts a new daemon must be told again (initialize) and what the client last saw. */
export class SessionMemory {
  /** the client's initialize request (parsed), replayed under a private id after a reconnect */
  initialize?: { params: unknown; key: string };
  /** initialize was answered on some connection: a new daemon needs the hidden replay */
  initializeAnswered = false;
  initializedSent = false;
  /** ids of client tools/list requests without a cursor, to capture the list the client saw */
  toolsListKeys = new Set<string>();
  toolsSeen?: string;
  /** the daemon's last `server/discover` result: the proxy's answer while the daemon is down */
  discover?: unknown;
}
