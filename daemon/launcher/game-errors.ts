/**
 * Each game's errors, read when someone asks (a call ending, get_errors): the new part of its
 * log since the last read, through each engine's recogniser (error-lines.ts), and the kit's
 * `GET /errors?since=N` when the game serves it. Nothing watches the log in between: a game
 * nobody asks about costs nothing.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ErrorBook, type ErrorSighting, type ErrorSource, type GameError } from '../../shared/game-errors.js';
import type { GameClient } from '../game/client.js';
import { isNoPage } from '../game/wire.js';
import { ErrorLines } from './error-lines.js';

/** The most of a log read at once: a game that printed more since the last read has its newest part read. */
const MAX_READ_BYTES = 1 << 20;
const KIT_SOURCES: readonly ErrorSource[] = ['command', 'tick', 'page', 'console', 'output'];

interface GameLog {
  book: ErrorBook;
  file?: string;
  offset: number;
  partial: string;
  lines: ErrorLines;
  /** the kit's last /errors number read, and whether it serves /errors at all (false after a 404) */
  kitSeq: number;
  kitServes: boolean;
}

export class GameErrors {
  private readonly games = new Map<number, GameLog>();

  /** `logFile(port)`: the log of the game the launcher started there, if it did. */
  constructor(private readonly logFile: (port: number) => string | undefined) {}

  private game(port: number): GameLog {
    let g = this.games.get(port);
    if (!g) {
      g = { book: new ErrorBook(), offset: 0, partial: '', lines: new ErrorLines(), kitSeq: 0, kitServes: true };
      this.games.set(port, g);
    }
    return g;
  }

  /** The book of the game on `port`, as it stands (read nothing). */
  book(port: number): ErrorBook {
    return this.game(port).book;
  }

  /**
   * Reads what the game printed since the last read: each error found is noted at `frame` (the
   * frame the reader last saw: the error was raised at or before it). Answers the book.
   */
  readOutput(port: number, frame: number | null): ErrorBook {
    const g = this.game(port);
    const file = this.logFile(port);
    if (!file) return g.book;
    if (file !== g.file) Object.assign(g, { file, offset: 0, partial: '', lines: new ErrorLines() });
    const lines = (g.partial + readFrom(g, file)).split('\n');
    g.partial = lines.pop()!;
    for (const line of lines) for (const s of g.lines.feed(line)) g.book.add({ ...s, frame });
    if (g.partial === '') for (const s of g.lines.flush()) g.book.add({ ...s, frame });
    return g.book;
  }

  /** Reads the kit's /errors past the last number read; a kit without it is not asked again until it restarts. */
  async readKit(port: number, client: GameClient, signal?: AbortSignal, again = true): Promise<ErrorBook> {
    const g = this.game(port);
    if (!g.kitServes) return g.book;
    const ans = await client.get(`/errors?since=${g.kitSeq}`, undefined, signal).catch(() => null);
    if (!ans || isNoPage(ans)) return g.book;
    if (ans.status === 404) {
      g.kitServes = false;
      return g.book;
    }
    let body: unknown;
    try {
      body = JSON.parse(ans.body.toString('utf8'));
    } catch {
      return g.book;
    }
    const { errors, seq } = (body ?? {}) as { errors?: unknown; seq?: unknown };
    if (!Array.isArray(errors)) return g.book;
    if (typeof seq === 'number' && seq < g.kitSeq) {
      // another process, counting from the start again
      g.kitSeq = 0;
      return again ? this.readKit(port, client, signal, false) : g.book;
    }
    for (const e of errors) {
      const s = kitSighting(e);
      if (!s || s.seq <= g.kitSeq) continue;
      g.kitSeq = s.seq;
      g.book.add(s.sighting);
    }
    return g.book;
  }

  /** Everything in the book after `since`. */
  since(port: number, since = 0): GameError[] {
    return this.game(port).book.since(since);
  }
}

/** The new bytes of the log since the last read (the newest MAX_READ_BYTES when there are more). */
function readFrom(g: GameLog, file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    if (size < g.offset) Object.assign(g, { offset: 0, partial: '' }); // cut in place when it passed its bound
    if (size === g.offset) return '';
    const start = Math.max(g.offset, size - MAX_READ_BYTES);
    const buf = Buffer.alloc(size - start);
    const n = readSync(fd, buf, 0, buf.length, start);
    g.offset = start + n;
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** One entry of a kit's /errors, checked: its number and what it saw, or null. */
function kitSighting(e: unknown): { seq: number; sighting: ErrorSighting } | null {
  if (!e || typeof e !== 'object') return null;
  const { seq, frame, message, stack, source } = e as Record<string, unknown>;
  if (typeof seq !== 'number' || typeof message !== 'string') return null;
  return {
    seq,
    sighting: {
      frame: typeof frame === 'number' ? frame : null,
      message,
      ...(typeof stack === 'string' && stack ? { stack } : {}),
      source: KIT_SOURCES.includes(source as ErrorSource) ? (source as ErrorSource) : 'command',
    },
  };
}
