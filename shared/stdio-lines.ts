/**
 * The proxy's stdio side: newline-delimited JSON-RPC in, MCP frames out.
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

export type Json = Record<string, unknown>;

/** What one client line is, once checked (the SDK silently drops what it cannot parse). */
export type ClientLine =
  /** not a message we can pass on: write `answer` back to the client instead */
  | { kind: 'answer'; answer: string }
  | { kind: 'request'; msg: Json; method: string; id: string | number }
  /** the client's answer to a server request */
  | { kind: 'response'; msg: Json; id: unknown }
  | { kind: 'notification'; msg: Json; method?: string };

/**
 * Check one newline-delimited client message. Every malformed line gets a JSON-RPC error
 * (-32700 not JSON, -32600 not a single valid message), never silence: the SDK's own framing
 * would drop it without a word and leave the client waiting.
 */
export function classifyLine(line: string): ClientLine {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return { kind: 'answer', answer: parseErrorText((e as Error).message) };
  }
  if (Array.isArray(msg)) return { kind: 'answer', answer: invalidRequestText('batches are not part of MCP; send one message per line') };
  if (!msg || typeof msg !== 'object') return { kind: 'answer', answer: invalidRequestText('a message is a JSON object') };
  const m = msg as Json;
  const method = typeof m.method === 'string' ? m.method : undefined;
  const hasId = typeof m.id === 'string' || typeof m.id === 'number';
  if (method !== undefined && hasId) {
    const params = m.params;
    const bad =
      m.jsonrpc !== '2.0'
        ? 'jsonrpc must be "2.0"'
        : method === ''
          ? 'method must not be empty'
          : params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))
            ? 'params must be an object'
            : undefined;
    if (bad) return { kind: 'answer', answer: invalidRequestText(bad, m.id as string | number) };
    return { kind: 'request', msg: m, method, id: m.id as string | number };
  }
  if (method === undefined && m.id !== undefined) return { kind: 'response', msg: m, id: m.id };
  return { kind: 'notification', msg: m, method };
}
