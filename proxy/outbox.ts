/**
 * The proxy's way to the daemon: every client message leaves as an `rpc` frame with the next
 * number of the proxy's own counter (the daemon acks by that number), and reading stdin stops
 * while the socket's buffer is high, so a client that writes faster than the daemon reads cannot
 * fill the proxy's memory.
 */
import { rpcFrame } from '../shared/frames.js';
import { rpcRequest } from '../shared/jsonrpc.js';
import type { Stdio } from '../shared/stdio-lines.js';
import type { Link } from './link.js';
import type { ClientRequest, HiddenKind, PendingTable, SessionMemory } from './replay.js';

const WS_HIGH_WATER = 1 << 20;
const WS_LOW_WATER = 1 << 18;

export class Outbox {
  /** the proxy's own frame counter: every rpc frame gets the next one */
  private seq = 0;
  private stdinPaused = false;

  constructor(
    private readonly link: Link,
    private readonly stdio: Stdio,
    private readonly pending: PendingTable,
    private readonly memory: SessionMemory,
    private readonly sessionId: string,
  ) {}

  /** A client request: it enters the pending table under its frame number. */
  request(req: ClientRequest): void {
    const s = ++this.seq;
    this.pending.add(req, s);
    this.frame(rpcFrame(s, req.line));
  }

  /** A notification or an answer to the daemon's own request. */
  other(line: string, method?: string): void {
    this.frame(rpcFrame(++this.seq, line));
    if (method === 'notifications/initialized') this.memory.initializedSent = true;
  }

  /** The proxy's own initialize / tools/list / resources/subscribe after a reconnect; their answers never reach the client. Answers the id's key. */
  hidden(kind: HiddenKind, params: unknown): string {
    const id = this.memory.hiddenId(kind, this.sessionId);
    this.frame(rpcFrame(++this.seq, rpcRequest(id, kind, params ?? {})));
    return JSON.stringify(id);
  }

  /** Backpressure: stop reading stdin while the socket's buffer is high. */
  private frame(text: string): void {
    this.link.send(text);
    if (this.stdinPaused || this.link.bufferedAmount <= WS_HIGH_WATER) return;
    this.stdinPaused = true;
    this.stdio.pause();
    const poll = setInterval(() => {
      if (this.link.bufferedAmount < WS_LOW_WATER || !this.link.isUp) {
        clearInterval(poll);
        this.stdinPaused = false;
        this.stdio.resume();
      }
    }, 10);
  }
}
