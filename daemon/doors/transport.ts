/**
 * The SDK Transport over one proxy's WebSocket.
 *
 * Incoming `rpc` frames carry the client's JSON-RPC message; a request is acknowledged with
 * its replay verdict and dispatched only once that ack has left this process (the socket
 * write callback), so the proxy knows whether it may re-send it after a daemon restart. An ack
 * still queued here (the proxy stopped reading: its client stopped reading stdout) dies with
 * the daemon, and so does the request it stood for: the proxy re-sends it, and it runs once.
 * Messages are dispatched in the order they came (a cancellation never overtakes its request).
 * Outgoing messages go out bare (no envelope).
 */
import type { WebSocket } from 'ws';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { encode, type ReplayVerdict, type RpcFrame } from '../../shared/frames.js';

export class WsTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  sessionId?: string;

  private started = false;
  private closed = false;
  /** frames that arrived before the server called start() */
  private early: JSONRPCMessage[] = [];
  /** received, in order; a request is ready once its ack has been written */
  private inbox: Array<{ msg: JSONRPCMessage; ready: boolean }> = [];

  constructor(
    private readonly ws: WebSocket,
    private readonly verdict: (msg: unknown) => ReplayVerdict,
    sessionId?: string,
  ) {
    this.sessionId = sessionId;
    ws.on('close', () => this.closedByPeer());
    ws.on('error', (e) => this.onerror?.(e));
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('WsTransport already started');
    this.started = true;
    const early = this.early;
    this.early = [];
    for (const m of early) this.onmessage?.(m);
  }

  /** One `rpc` frame from the proxy (already parsed by the server). */
  receive(frame: RpcFrame): void {
    // Closing (handover, stop): an ack could no longer reach the proxy, which will then re-send
    // the request to the next daemon. Running it here as well would apply an unsafe call twice.
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    const msg = frame.msg as Record<string, unknown> | null;
    if (!msg || typeof msg !== 'object' || Array.isArray(msg) || msg.jsonrpc !== '2.0') {
      this.onerror?.(new Error(`ignoring a frame that is not one JSON-RPC message (seq ${frame.seq})`));
      return;
    }
    const isRequest = typeof msg.method === 'string' && 'id' in msg && msg.id !== undefined;
    const item = { msg: msg as unknown as JSONRPCMessage, ready: !isRequest };
    this.inbox.push(item);
    if (!isRequest) return this.dispatch();
    let replay: ReplayVerdict = 'unsafe';
    try {
      replay = this.verdict(msg);
    } catch {
      /* unknown → unsafe: never re-send what we cannot vouch for */
    }
    this.ws.send(encode({ t: 'ack', seq: frame.seq, replay }), (err) => {
      if (err) return; // the connection is gone: nothing in it runs (see dispatch)
      item.ready = true;
      this.dispatch();
    });
  }

  /** Hand the messages whose turn has come to the server, in arrival order. */
  private dispatch(): void {
    while (this.inbox.length && this.inbox[0].ready) {
      // Closing (handover, stop, dropped): the proxy re-sends or answers what is left.
      if (this.closed || this.ws.readyState !== this.ws.OPEN) {
        this.inbox = [];
        return;
      }
      const { msg } = this.inbox.shift()!;
      if (this.started) this.onmessage?.(msg);
      else this.early.push(msg);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return; // the proxy replays on reconnect
    await new Promise<void>((resolve) => this.ws.send(JSON.stringify(message), () => resolve()));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.ws.close();
    this.closedByPeer();
  }

  private closedByPeer(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
