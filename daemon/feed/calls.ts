/**
 * The call feed: the last tool calls of every session, kept for the dashboard. One small event
 * emitter in the daemon's state. Bounded in count and in size: a record keeps its arguments and
 * answer as text cut to a few kilobytes, so 200 records stay well under a few megabytes.
 */
import { EventEmitter } from 'node:events';
import type { CallSummary } from './types.js';

export type { CallSummary };

export const FEED_SIZE = 200;
const ARGS_CAP = 4096;
const ANSWER_CAP = 16384;
/** A summary's strings (session, client, tool and game tool names) come from clients: each is cut here. */
const NAME_CAP = 200;

export interface CallRecord extends CallSummary {
  /** the arguments as JSON text, cut at ARGS_CAP */
  args: string;
  /** the answer's text block, cut at ANSWER_CAP */
  answer: string;
  /** how many image blocks the answer had (screenshots) */
  images: number;
}

export interface CallDone {
  at: number;
  session: string;
  client?: string;
  tool: string;
  args: Record<string, unknown>;
  port?: number;
  ms: number;
  isError: boolean;
  text: string;
  images: number;
}

const cut = (s: string, max: number) =>
  s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`;

/** Emits 'call' with a CallSummary for every recorded call. */
export class CallFeed extends EventEmitter {
  private ring: CallRecord[] = [];
  private nextId = 1;

  /** Keep one finished call (and drop the oldest past FEED_SIZE). */
  record(done: CallDone): CallSummary {
    const errorClass = done.isError ? (/^([A-Z][A-Za-z]{0,63}):/.exec(done.text)?.[1] ?? 'Error') : undefined;
    const gameTool =
      done.tool === 'call_tool' && typeof done.args.name === 'string' ? cut(done.args.name, NAME_CAP) : undefined;
    const rec: CallRecord = {
      id: this.nextId++,
      at: new Date(done.at).toISOString(),
      session: cut(done.session, NAME_CAP),
      ...(done.client ? { client: cut(done.client, NAME_CAP) } : {}),
      tool: cut(done.tool, NAME_CAP),
      ...(gameTool ? { gameTool } : {}),
      ...(done.port !== undefined ? { port: done.port } : {}),
      ms: Math.round(done.ms * 10) / 10,
      ok: !done.isError,
      ...(errorClass ? { errorClass } : {}),
      args: cut(safeJson(done.args), ARGS_CAP),
      answer: cut(done.text, ANSWER_CAP),
      images: done.images,
    };
    this.ring.push(rec);
    if (this.ring.length > FEED_SIZE) this.ring.shift();
    const summary = summaryOf(rec);
    if (this.listenerCount('call') > 0) this.emit('call', summary);
    return summary;
  }

  /** The kept calls, oldest first. */
  recent(): CallSummary[] {
    return this.ring.map(summaryOf);
  }

  get(id: number): CallRecord | undefined {
    return this.ring.find((r) => r.id === id);
  }
}

function summaryOf(r: CallRecord): CallSummary {
  const { args: _a, answer: _b, images: _c, ...summary } = r;
  return summary;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return '"(arguments that are not JSON)"';
  }
}
