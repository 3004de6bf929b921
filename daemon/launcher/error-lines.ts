/**
 * The errors in a game's output, as each engine prints them: Python's tracebacks, Node's
 * uncaught errors, Godot's `SCRIPT ERROR:` and `ERROR:` with their `At:` line, LÖVE's error
 * handler with its `stack traceback:`, Mono's and .NET's unhandled exceptions, and what the
 * page carrier writes of a page (`uncaught …` with its stack, `console.error: …`). Fed one line
 * at a time, because a report spans lines and may arrive in two reads.
 */
import type { ErrorSighting, ErrorSource } from '../../shared/game-errors.js';
import { HEADER_PREFIX } from './logfile.js';

/** A report being read: its message so far, its stack lines, and which lines continue it. */
interface Pending {
  message: string;
  stack: string[];
  source: ErrorSource;
  /** does this line belong to the report? */
  continues: (line: string) => boolean;
  /** a report that needs a stack to be one (a bare "Error: x" line may be the game's own words) */
  needsStack?: boolean;
  /** Python: the message is the first line that is not indented, after the stack */
  messageLast?: boolean;
  /** Mono: the message is the next line, its stack after it */
  messageNext?: boolean;
  /** a repeat of the report before it (Mono prints an unhandled exception twice): dropped */
  repeat?: boolean;
}

const INDENTED = /^\s+\S/;
const JS_AT = /^\s+at /;
const JS_ERROR = /^(?:Uncaught )?((?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?(?::\s.*)?)$/;
const GODOT = /^(SCRIPT ERROR|ERROR|USER ERROR|USER SCRIPT ERROR): (.*)$/;
const GODOT_AT = /^\s+at: /i;
/** The browser's own report of a missing favicon is not the game's error. */
const NOT_THE_GAMES = /favicon\.ico/;

/** Reads one game's output line by line and answers the error reports it completes. */
export class ErrorLines {
  private pending: Pending | null = null;

  /** One line of output; answers the reports it completed (usually none). */
  feed(raw: string): ErrorSighting[] {
    const line = raw.replace(/\r$/, '');
    const out: ErrorSighting[] = [];
    const p = this.pending;
    if (p) {
      if (p.messageNext) {
        p.message = line.trim();
        p.messageNext = false;
        return out;
      }
      if (p.messageLast && !INDENTED.test(line) && line.trim() !== '') {
        p.message = line.trim();
        this.pending = null;
        this.emit(p, out);
        return out;
      }
      if (p.continues(line)) {
        p.stack.push(line.trim());
        return out;
      }
      if (p.needsStack && p.stack.length === 0 && line === 'stack traceback:') {
        // LÖVE's error handler: "Error: main.lua:143: …" then its Lua traceback, tab-indented
        p.needsStack = false;
        p.message = p.message.replace(/^Error: /, '');
        p.continues = (l) => l.startsWith('\t');
        return out;
      }
      this.pending = null;
      this.emit(p, out);
    }
    this.start(line, out);
    return out;
  }

  /**
   * The output paused at a line's end: a report read so far is complete as it is (a stack's
   * last line has no end mark), except one still waiting for its message.
   */
  flush(): ErrorSighting[] {
    const out: ErrorSighting[] = [];
    const p = this.pending;
    if (!p || p.messageLast || p.messageNext) return out;
    this.pending = null;
    this.emit(p, out);
    return out;
  }

  private emit(p: Pending, out: ErrorSighting[]): void {
    if (p.repeat || (p.needsStack && p.stack.length === 0) || NOT_THE_GAMES.test(p.message)) return;
    out.push({
      frame: null,
      message: p.message,
      ...(p.stack.length ? { stack: p.stack.join('\n') } : {}),
      source: p.source,
    });
  }

  private start(line: string, out: ErrorSighting[]): void {
    if (line.startsWith(HEADER_PREFIX)) return;
    const output: ErrorSource = 'output';
    if (line === 'Traceback (most recent call last):') {
      this.pending = { message: '', stack: [], source: output, continues: (l) => INDENTED.test(l), messageLast: true };
      return;
    }
    if (line.startsWith('console.error: ')) {
      this.emit({ message: line.slice(15), stack: [], source: 'console', continues: () => false }, out);
      return;
    }
    if (line.startsWith('uncaught ')) {
      this.pending = { message: line.slice(9), stack: [], source: 'page', continues: (l) => JS_AT.test(l) };
      return;
    }
    const godot = GODOT.exec(line);
    if (godot) {
      this.pending = { message: godot[2]!, stack: [], source: output, continues: (l) => GODOT_AT.test(l) };
      return;
    }
    if (line === 'Unhandled Exception:') {
      // Mono: the exception on the next line, then its stack
      this.pending = { message: '', stack: [], source: output, continues: (l) => JS_AT.test(l), messageNext: true };
      return;
    }
    const dotnet = /^Unhandled exception\. (.*)$/.exec(line);
    const fatal = /^\[ERROR\] FATAL UNHANDLED EXCEPTION: (.*)$/.exec(line);
    if (dotnet || fatal) {
      this.pending = { message: (dotnet ?? fatal)![1]!, stack: [], source: output, continues: (l) => JS_AT.test(l) };
      if (fatal) this.pending.repeat = true;
      return;
    }
    const js = JS_ERROR.exec(line);
    if (js) {
      // Node's uncaught error (a stack of "at" lines follows), or LÖVE's (a "stack traceback:")
      this.pending = {
        message: js[1]!,
        stack: [],
        source: output,
        continues: (l) => JS_AT.test(l),
        needsStack: true,
      };
    }
  }
}
