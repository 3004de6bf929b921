/**
 * What the proxy remembers so a daemon restart looks like latency: the pending table
 * of client requests (unacked / acked-safe / acked-unsafe), the client's initialize, and the
 * last tool list it saw.
 */
import { callInterrupted, usageError } from '../shared/errors.js';
import { rpcError, rpcResult, RpcCode } from '../shared/jsonrpc.js';

export type PendingState = 'unacked' | 'safe' | 'unsafe';

/** The table key of a JSON-RPC id: 1 and "1" are different requests. */
export const requestKey = (id: unknown): string => JSON.stringify(id);

/**
 * How many times one request goes to a daemon. A request the daemon cannot survive would
 * otherwise take down every daemon that comes after it.
 */
export const MAX_SENDS = 8;

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
  /** how many times it was sent to a daemon, this time included */
  sends: number;
}

export class PendingTable {
  private bySeq = new Map<number, Pending>();
  /** a client may (wrongly) reuse an id while the first is in flight: answers settle them oldest first */
  private byKey = new Map<string, Pending[]>();

  get size(): number {
    return this.bySeq.size;
  }

  add(req: ClientRequest, seq: number): void {
    const sends = ((req as Partial<Pending>).sends ?? 0) + 1;
    const p: Pending = {
      id: req.id,
      key: req.key,
      method: req.method,
      line: req.line,
      tool: req.tool,
      modern: req.modern,
      seq,
      state: 'unacked',
      sends,
    };
    this.bySeq.set(seq, p);
    const same = this.byKey.get(req.key);
    if (same) same.push(p);
    else this.byKey.set(req.key, [p]);
  }

  ack(seq: number, verdict: 'safe' | 'unsafe'): void {
    const p = this.bySeq.get(seq);
    if (p) p.state = verdict === 'safe' ? 'safe' : 'unsafe';
  }

  hasKey(key: string): boolean {
    return this.byKey.has(key);
  }

  /** A response for `key` arrived: the oldest request with that id is done. */
  settle(key: string): Pending | undefined {
    const same = this.byKey.get(key);
    const p = same?.shift();
    if (!p) return undefined;
    if (!same!.length) this.byKey.delete(key);
    this.bySeq.delete(p.seq);
    return p;
  }

  /** Remove and return the entries `pick` selects, oldest first. */
  take(pick: (p: Pending) => boolean): Pending[] {
    const out = [...this.bySeq.values()].filter(pick).sort((a, b) => a.seq - b.seq);
    for (const p of out) this.remove(p);
    return out;
  }

  /** Empty the table, oldest first (for replay or for failing everything). */
  drain(): Pending[] {
    const all = [...this.bySeq.values()].sort((a, b) => a.seq - b.seq);
    this.bySeq.clear();
    this.byKey.clear();
    return all;
  }

  private remove(p: Pending): void {
    this.bySeq.delete(p.seq);
    const same = this.byKey.get(p.key)?.filter((q) => q !== p);
    if (same?.length) this.byKey.set(p.key, same);
    else this.byKey.delete(p.key);
  }
}

/** After a reconnect: which pending requests go out again, and which the proxy must answer itself. */
export function planReplay(pending: Pending[]): { resend: Pending[]; interrupted: Pending[]; exhausted: Pending[] } {
  const again = pending.filter((p) => p.state !== 'unsafe');
  return {
    resend: again.filter((p) => p.sends < MAX_SENDS),
    interrupted: pending.filter((p) => p.state === 'unsafe'),
    exhausted: again.filter((p) => p.sends >= MAX_SENDS),
  };
}

/** What the client is told about a request that cannot be completed: a tool result for tools/call. */
export function failureAnswer(req: ClientRequest, text: string): string {
  if (req.method === 'tools/call') {
    const result = {
      content: [{ type: 'text', text }],
      isError: true,
      ...(req.modern ? { resultType: 'complete' } : {}),
    };
    return rpcResult(req.id, result);
  }
  return rpcError(req.id, RpcCode.ServerError, text);
}

export function interruptedAnswer(req: ClientRequest): string {
  const what = req.tool ? `The call to '${req.tool}'` : `The '${req.method}' request`;
  return failureAnswer(req, callInterrupted(what).text);
}

export function unavailableAnswer(req: ClientRequest, detail: string): string {
  const what = req.tool ? `The call to '${req.tool}'` : `The '${req.method}' request`;
  return failureAnswer(req, callInterrupted(what, detail).text);
}

/** The home is refused: the client's setup must change, so a usage error that says how. */
export function refusedAnswer(req: ClientRequest, why: string): string {
  return failureAnswer(req, usageError(why).text);
}

/** The proxy's own requests to a new daemon, whose answers the client never sees. */
export type HiddenKind = 'initialize' | 'tools/list' | 'resources/subscribe';

/**
 * The session facts a new daemon must be told again (initialize), what the client last saw
 * (the tool list), and the proxy's own hidden requests in flight (whose answers the client
 * never sees).
 */
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

  private hidden = new Map<string, HiddenKind>();
  private hiddenCounter = 0;

  /** A client request on its way: remember initialize and the first page of tools/list. */
  noteRequest(req: ClientRequest, params: unknown): void {
    if (req.method === 'initialize') {
      this.initialize = { params, key: req.key };
      this.initializeAnswered = false;
      this.initializedSent = false;
    }
    if (req.method === 'tools/list' && (params as { cursor?: unknown } | undefined)?.cursor === undefined)
      this.toolsListKeys.add(req.key);
  }

  /** The daemon answered a client request. */
  noteAnswer(req: ClientRequest, msg: Record<string, unknown>): void {
    if (req.method === 'initialize' && msg.result) this.initializeAnswered = true;
    if (req.method === 'server/discover' && msg.result) this.discover = msg.result;
    if (this.toolsListKeys.delete(req.key)) {
      const tools = (msg.result as { tools?: unknown } | undefined)?.tools;
      if (tools) this.toolsSeen = JSON.stringify(tools);
    }
  }

  /** A fresh id for a hidden request: one the client could never use. */
  hiddenId(kind: HiddenKind, sessionId: string): string {
    const tag = kind === 'initialize' ? 'init' : kind === 'tools/list' ? 'tools' : 'sub';
    const id = `gbp-${tag}-${++this.hiddenCounter}-${sessionId.slice(0, 8)}`;
    this.hidden.set(requestKey(id), kind);
    return id;
  }

  isHidden(key: string): boolean {
    return this.hidden.has(key);
  }

  takeHidden(key: string): HiddenKind | undefined {
    const kind = this.hidden.get(key);
    this.hidden.delete(key);
    return kind;
  }

  clearHidden(): void {
    this.hidden.clear();
  }

  /** A new daemon's tool list: true when it differs from the one the client saw (then it is the one seen). */
  toolsChanged(result: unknown): boolean {
    const tools = (result as { tools?: unknown } | undefined)?.tools;
    if (!tools) return false;
    const now = JSON.stringify(tools);
    const changed = this.toolsSeen !== undefined && this.toolsSeen !== now;
    this.toolsSeen = now;
    return changed;
  }
}
