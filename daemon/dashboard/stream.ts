/**
 * The dashboard's live channel: Server-Sent Events to every open page. A page that stops
 * reading (its socket buffer grows past a megabyte) is dropped rather than buffered without
 * end; the page's reader (dashboard/auth.ts) reconnects and gets a fresh snapshot.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const HEARTBEAT_MS = 15000;
const MAX_BUFFERED = 1024 * 1024;

export class EventStream {
  private readonly pages = new Set<ServerResponse>();
  private heartbeat?: NodeJS.Timeout;

  /** `onOpen` greets a new page; `onCountChange` starts and stops the work only pages need. */
  constructor(
    private readonly onOpen: (send: (event: string, data: unknown) => void) => void,
    private readonly onCountChange: (count: number) => void,
  ) {}

  get count(): number {
    return this.pages.size;
  }

  /** Turn a request into an event stream. */
  open(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write('retry: 1000\n\n');
    res.socket?.setNoDelay(true);
    this.pages.add(res);
    const drop = () => this.drop(res);
    req.on('close', drop);
    res.on('error', drop);
    this.onOpen((event, data) => res.write(frame(event, data)));
    if (!this.heartbeat) {
      this.heartbeat = setInterval(() => this.writeAll(': keep-alive\n\n'), HEARTBEAT_MS);
      this.heartbeat.unref();
    }
    this.onCountChange(this.pages.size);
  }

  /** Send one event to every page. */
  send(event: string, data: unknown): void {
    if (this.pages.size) this.writeAll(frame(event, data));
  }

  closeAll(): void {
    for (const res of [...this.pages]) {
      res.end();
      this.drop(res);
    }
  }

  private writeAll(text: string): void {
    for (const res of this.pages) {
      if (res.writableLength > MAX_BUFFERED) {
        res.destroy();
        this.drop(res);
      } else res.write(text);
    }
  }

  private drop(res: ServerResponse): void {
    if (!this.pages.delete(res)) return;
    if (!this.pages.size && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
    this.onCountChange(this.pages.size);
  }
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
