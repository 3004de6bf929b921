/**
 * The proxy's stdio side: newline-delimited JSON-RPC in, MCP frames out.
 * Only MCP frames ever reach stdout. The proxy exits when stdin ends or stdout breaks.
 */
import { MAX_FRAME_BYTES } from './frames.js';
import { rpcError, RpcCode } from './jsonrpc.js';

/** A client line longer than this is answered -32600 by us: the daemon's frame limit (64 MiB,
 *  shared/frames.ts) would otherwise close the link, and the re-sent line close it again. */
export const MAX_LINE_BYTES = MAX_FRAME_BYTES - 64 * 1024;
/** Bytes kept from each end of an oversized line, to find its id. */
const ID_WINDOW = 1024;

export interface StdioHandlers {
  line(line: string): void;
  /** a line of `bytes` or more bytes arrived (then skipped); `id` when its ends show one */
  tooLong?(bytes: number, id: string | number | null): void;
  /** stdin ended or stdout broke: time to go */
  end(why: string): void;
}

export class Stdio {
  /** the line being assembled, as received: joined once, when its newline comes (linear) */
  private parts: Buffer[] = [];
  private size = 0;
  /** set while skipping an oversized line: its first bytes, its last bytes, its length */
  private skipping?: { head: Buffer; tail: Buffer; bytes: number };
  private ended = false;

  constructor(
    private readonly on: StdioHandlers,
    private readonly input: NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean } = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  start(): void {
    const input = this.input;
    input.on('data', (chunk: Buffer | string) => this.feed(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
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

  /** Split on newlines, looking at each byte once (0x0a never occurs inside a UTF-8 sequence). */
  private feed(chunk: Buffer): void {
    let start = 0;
    while (!this.ended) {
      const nl = chunk.indexOf(0x0a, start);
      this.append(chunk.subarray(start, nl < 0 ? chunk.length : nl));
      if (nl < 0) return;
      this.lineDone();
      start = nl + 1;
    }
  }

  private append(piece: Buffer): void {
    if (!piece.length) return;
    if (this.skipping) return this.skip(piece);
    if (this.size + piece.length <= this.maxLineBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    const sofar = Buffer.concat(this.parts, this.size);
    this.skipping = { head: sofar.subarray(0, ID_WINDOW), tail: Buffer.alloc(0), bytes: 0 };
    this.parts = [];
    this.size = 0;
    this.skip(sofar);
    this.skip(piece);
  }

  private skip(piece: Buffer): void {
    const s = this.skipping!;
    s.bytes += piece.length;
    s.tail =
      piece.length >= ID_WINDOW
        ? Buffer.from(piece.subarray(piece.length - ID_WINDOW))
        : Buffer.concat([s.tail, piece]).subarray(-ID_WINDOW);
  }

  private lineDone(): void {
    const skipped = this.skipping;
    if (skipped) {
      this.skipping = undefined;
      this.on.tooLong?.(skipped.bytes, sniffId(skipped.head.toString('utf8'), skipped.tail.toString('utf8')));
      return;
    }
    const line = (this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.size))
      .toString('utf8')
      .replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (line.trim()) this.on.line(line);
  }

  private finish(why: string): void {
    if (this.ended) return;
    // a last line without its newline
    if (!why.startsWith('stdout') && (this.size || this.skipping)) this.lineDone();
    this.parts = [];
    this.ended = true;
    this.on.end(why);
  }
}

const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/;
const TAIL_ID = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})\s*\}\s*$/;

/**
 * The id of a message too long to parse, when one of its ends shows it at the top level:
 * `{"jsonrpc":"2.0","id":…` at the start, or `"id":…}` closing it (the SDK writes the id last).
 */
function sniffId(head: string, tail: string): string | number | null {
  const m = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  if (!m) return null;
  try {
    return JSON.parse(m[1]) as string | number;
  } catch {
    return null;
  }
}

/** The answer to a line that is not JSON (the SDK's framing has no other way to say it). */
export function parseErrorText(detail: string): string {
  return rpcError(null, RpcCode.ParseError, `Parse error: ${detail}`);
}

export function invalidRequestText(detail: string, id: string | number | null = null): string {
  return rpcError(id, RpcCode.InvalidRequest, `Invalid Request: ${detail}`);
}

/** The answer to a line over the limit (it was skipped, never parsed). */
export function tooLongText(bytes: number, id: string | number | null, limit = MAX_LINE_BYTES): string {
  return invalidRequestText(
    `the message is ${bytes} bytes or more, over the limit of ${limit} bytes; send less (a path rather than a file's contents)`,
    id,
  );
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
  if (Array.isArray(msg))
    return { kind: 'answer', answer: invalidRequestText('batches are not part of MCP; send one message per line') };
  if (!msg || typeof msg !== 'object')
    return { kind: 'answer', answer: invalidRequestText('a message is a JSON object') };
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
