/**
 * One joined page, spoken to over its WebSocket (the page carrier's wire): the page says
 * `{"t":"hello","name","version"}` first; each relayed request goes out as
 * `{"t":"get","id","path"}` and comes back as `{"t":"reply","id","status","body"}`.
 * Anything else is garbage: the page is closed with a log line saying what it sent.
 */
import { EventEmitter } from 'node:events';
import type WebSocket from 'ws';
import { z } from 'zod/v4';

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

/** A page's name and version are shown in logs and answers: a name, not a payload. */
const MAX_NAME_CHARS = 1000;
const helloSchema = z.object({
  t: z.literal('hello'),
  name: z.string().max(MAX_NAME_CHARS),
  version: z.string().max(MAX_NAME_CHARS),
});
/** A reply's body is the game's answer, whatever it is; the carrier bounds the frame's size. */
const replySchema = z.object({
  t: z.literal('reply'),
  id: z.number().int(),
  status: z.number().int().min(100).max(599),
  body: z.unknown(),
});

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
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return this.garbage(`text that is not JSON: ${clip(text)}`);
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
      return this.garbage(`JSON that is not an object: ${clip(text)}`);
    if (!this.info) {
      const hello = helloSchema.safeParse(msg);
      if (!hello.success)
        return this.garbage(
          `a first message that is not {"t":"hello","name","version"} (names up to ${MAX_NAME_CHARS} characters): ${clip(text)}`,
        );
      clearTimeout(this.helloTimer);
      this.info = {
        name: hello.data.name,
        version: hello.data.version,
        origin: this.meta.origin,
        joinedAt: new Date().toISOString(),
        join: this.meta.join,
      };
      this.emit('hello', this.info);
      return;
    }
    const t = (msg as { t?: unknown }).t;
    if (t !== 'reply') return this.garbage(`an unexpected message (t=${JSON.stringify(t)}): ${clip(text)}`);
    const reply = replySchema.safeParse(msg);
    if (!reply.success) return this.garbage(`a reply without a numeric id, an HTTP status and a body: ${clip(text)}`);
    const { id, status, body } = reply.data;
    if (id >= this.nextId || id < 1) return this.garbage(`a reply to request ${id}, which was never sent`);
    const p = this.pending.get(id);
    if (!p) return; // late: its request timed out already
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.resolve({ status, body });
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
