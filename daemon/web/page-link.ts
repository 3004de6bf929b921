/**
 * One joined page, spoken to over its WebSocket (the page carrier's wire): the page says
 * `{"t":"hello","name","version"}` first; each relayed request goes out as
 * `{"t":"get","id","path"}` and comes back as `{"t":"reply","id","status","body"}`.
 * Anything else is garbage: the page is closed with a log line saying what it sent.
 */
import { EventEmitter } from 'node:events';
import type WebSocket from 'ws';

export interface PageInfo {
  name: string;
  version: string;
  /** The Origin the page joined from (null: none, or a file: page). */
  origin: string | null;
  joinedAt: string;
  /** 1 for the carrier's first page, 2 after a reload or a rejoin, ... */
  join: number;
}

export interface RelayReply {
  status: number;
  body: unknown;
}

/** Why a relayed request got no reply. */
export class RelayError extends Error {
  constructor(
    readonly kind: 'gone' | 'timeout',
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve: (r: RelayReply) => void;
  reject: (e: RelayError) => void;
  timer: NodeJS.Timeout;
}

const HELLO_TIMEOUT_MS = 10_000;

/** Events: 'hello' (PageInfo) once the page introduced itself; 'gone' (reason) when the link ended. */
export class PageLink extends EventEmitter {
  info: PageInfo | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private ended = false;
  private helloTimer: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket,
    private readonly meta: { origin: string | null; join: number; log: (line: string) => void },
  ) {
    super();
    this.helloTimer = setTimeout(() => this.garbage('no hello within 10 s of connecting'), HELLO_TIMEOUT_MS);
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', (code) => this.end(`the page disconnected (code ${code})`));
    ws.on('error', (e) => this.end(`the page's socket failed: ${e.message}`));
  }

  /** Relays one contract request; rejects when the page goes away or does not answer in time. */
  relay(path: string, timeoutMs: number): Promise<RelayReply> {
    if (this.ended || !this.info) return Promise.reject(new RelayError('gone', 'the page is not joined'));
    const id = this.nextId++;
    return new Promise<RelayReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new RelayError(
            'timeout',
            `the page did not answer ${path.split('?')[0]} within ${timeoutMs} ms (is its main thread blocked?)`,
          ),
        );
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ t: 'get', id, path }));
    });
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
    this.end(reason);
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (isBinary) return this.garbage('a binary frame');
    const text = data.toString();
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(text);
    } catch {
      return this.garbage(`text that is not JSON: ${clip(text)}`);
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
      return this.garbage(`JSON that is not an object: ${clip(text)}`);
    if (!this.info) {
      if (msg.t !== 'hello' || typeof msg.name !== 'string' || typeof msg.version !== 'string') {
        return this.garbage(`a first message that is not {"t":"hello","name","version"}: ${clip(text)}`);
      }
      clearTimeout(this.helloTimer);
      this.info = {
        name: msg.name,
        version: msg.version,
        origin: this.meta.origin,
        joinedAt: new Date().toISOString(),
        join: this.meta.join,
      };
      this.emit('hello', this.info);
      return;
    }
    if (msg.t !== 'reply') return this.garbage(`an unexpected message (t=${JSON.stringify(msg.t)}): ${clip(text)}`);
    const { id, status } = msg;
    if (
      typeof id !== 'number' ||
      !Number.isInteger(status) ||
      (status as number) < 100 ||
      (status as number) > 599 ||
      !('body' in msg)
    ) {
      return this.garbage(`a reply without a numeric id, an HTTP status and a body: ${clip(text)}`);
    }
    if (id >= this.nextId || id < 1) return this.garbage(`a reply to request ${id}, which was never sent`);
    const p = this.pending.get(id);
    if (!p) return; // late: its request timed out already
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.resolve({ status: status as number, body: msg.body });
  }

  private garbage(what: string): void {
    if (this.ended) return;
    this.meta.log(`closing the page: it sent garbage (${what})`);
    this.ws.close(1008, 'protocol error: see the bridge log');
    // A page that ignores the close handshake is cut off.
    setTimeout(() => this.ws.terminate(), 1000).unref();
    this.end('it sent garbage');
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.helloTimer);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new RelayError('gone', `the page went away before answering (${reason})`));
    }
    this.pending.clear();
    this.emit('gone', reason);
  }
}

function clip(s: string): string {
  return s.length > 80 ? `${JSON.stringify(s.slice(0, 80))}…` : JSON.stringify(s);
}
