/**
 * The proxy's stdio side: newline-delimited JSON-RPC in, MCP frames out (SPEC §6.3).
 * Only MCP frames ever reach stdout. The proxy exits when stdin ends or stdout breaks.
 */
import { StringDecoder } from 'node:string_decoder';

export interface StdioHandlers {
  line(line: string): void;
  /** stdin ended or stdout broke: time to go */
  end(why: string): void;
}

export class Stdio {
  private buf = '';
  private readonly decoder = new StringDecoder('utf8');
  private ended = false;

  constructor(
    private readonly on: StdioHandlers,
    private readonly input: NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean } = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {}

  start(): void {
    const input = this.input;
    input.on('data', (chunk: Buffer) => this.feed(this.decoder.write(chunk)));
    input.on('end', () => this.finish('stdin ended'));
    input.on('close', () => this.finish('stdin closed'));
    input.on('error', () => this.finish('stdin failed'));
    this.output.on('error', () => this.finish('stdout broke'));
    if (input.readableEnded || input.destroyed) this.finish('stdin had already ended');
  }

  /** Write one frame; false means stdout is full (wait for onDrain). */
  write(text: string): boolean {
    if (this.ended) return true;
    try {
      return this.output.write(text + '\n');
    } catch {
      this.finish('stdout broke');
      return true;
    }
  }

  onDrain(fn: () => void): void {
    this.output.once('drain', fn);
  }

  pause(): void {
    this.input.pause();
  }

  resume(): void {
    if (!this.ended) this.input.resume();
  }

  private feed(text: string): void {
    this.buf += text;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl).replace(/\r$/, '');
      this.buf = this.buf.slice(nl + 1);
      if (line.trim()) this.on.line(line);
      if (this.ended) return;
    }
  }

  private finish(why: string): void {
    if (this.ended) return;
    const rest = (this.buf + this.decoder.end()).trim();
    this.buf = '';
    if (rest && !why.startsWith('stdout')) this.on.line(rest); // a last line without its newline
    this.ended = true;
    this.on.end(why);
  }
}

/** The answer to a line that is not JSON (the SDK's framing has no other way to say it). */
export function parseErrorText(detail: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${detail}` } });
}

export function invalidRequestText(detail: string, id: string | number | null = null): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${detail}` } });
}
