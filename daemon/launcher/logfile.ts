/** Instance log files: where they live, the header line, and tailing. */
import {
  appendFileSync,
  closeSync,
  copyFileSync,
  fstatSync,
  openSync,
  readSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { usageError } from '../../shared/errors.js';
import { numberSetting, SETTINGS } from '../../shared/settings.js';
import type { LogTail } from './types.js';

/** Lines the bridge itself writes into a log start with this, so tails can skip them. */
export const HEADER_PREFIX = '[game-bridge]';
export const MAX_LOG_LINES = 200;
/** Enough bytes for 200 long lines; older output stays in the file. */
const TAIL_BYTES = 256 * 1024;

export function logFileName(logsDir: string, port: number, now = Date.now()): string {
  return join(logsDir, `instance-${port}-${now}.log`);
}

export function headerLine(command: string, cwd: string, port: number): string {
  return `${HEADER_PREFIX} ${new Date().toISOString()} launching on port ${port}: ${command} (cwd ${cwd})\n`;
}

/**
 * The last `lines` lines of a file (bounded read from the end). totalLines is given when the
 * whole file fit in the read. A missing file reads as empty.
 */
export function tailFile(
  file: string,
  lines: number,
  opts: { skipHeaders?: boolean } = {},
): { lines: string[]; totalLines?: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { lines: [], totalLines: 0 };
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    let read = 0;
    while (read < buf.length) {
      const n = readSync(fd, buf, read, buf.length - read, start + read);
      if (n <= 0) break;
      read += n;
    }
    let all = buf.subarray(0, read).toString('utf8').split(/\r?\n/);
    if (all.length && all[all.length - 1] === '') all.pop();
    if (start > 0) all.shift(); // the first line is cut in the middle
    if (opts.skipHeaders) all = all.filter((l) => !l.startsWith(HEADER_PREFIX));
    const n = Math.max(0, Math.min(lines, MAX_LOG_LINES));
    return { lines: n ? all.slice(-n) : [], totalLines: start === 0 ? all.length : undefined };
  } finally {
    closeSync(fd);
  }
}

/** Log files of recent launches by port, the oldest forgotten first beyond `max`. */
export class RecentLogs {
  private readonly byPort = new Map<number, string>();
  constructor(private readonly max: number) {}

  set(port: number, logFile: string): void {
    this.byPort.delete(port);
    this.byPort.set(port, logFile);
    if (this.byPort.size > this.max) this.byPort.delete(this.byPort.keys().next().value as number);
  }

  get(port: number): string | undefined {
    return this.byPort.get(port);
  }
}

/** instance_log's answer: the last `lines` (1..200) of the port's log, or why there is none. */
export function readLog(port: number, logFile: string | undefined, lines: number): LogTail {
  if (!logFile) {
    throw usageError(
      `No log for port ${port}: this bridge did not launch a game there. Only games started with launch_instance have a log; list_instances shows which ones.`,
      { port },
    );
  }
  const n = Number.isFinite(lines) ? Math.max(1, Math.min(MAX_LOG_LINES, Math.floor(lines))) : MAX_LOG_LINES;
  return { port, logFile, ...tailFile(logFile, n) };
}

/** One line at the end of a game's log; a log that cannot be written never breaks the game. */
export function appendLogLine(file: string, line: string): void {
  try {
    appendFileSync(file, `${line}\n`);
  } catch {
    /* the log is a witness, not a duty */
  }
}

/** How long a page's console lines wait to be written together. */
const FLUSH_MS = 100;
/** The most console lines kept waiting between two writes; more are dropped and counted. */
export const MAX_PENDING_LINES = 1000;
/** A longer console line is cut (and says how long it was). */
const MAX_LINE_CHARS = 2000;

/**
 * A page's console output into its game's log, bounded both ways: lines wait in memory only
 * until the next write (at most MAX_PENDING_LINES of them; beyond, each is dropped and the count
 * is said in the log), and the log is kept under GAME_BRIDGE_LOG_MAX_BYTES the way daemon.log is:
 * past it, the file is copied to `<log>.1` and cut to nothing in place, so a server command
 * writing to the same file (opened for appending) carries on at the new start.
 */
export class ConsoleLog {
  private pending: string[] = [];
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  /** A line's most characters: a few of them fill no more than a sixteenth of the bound. */
  private readonly lineChars: number;

  constructor(
    private readonly file: () => string,
    private readonly maxBytes = numberSetting(SETTINGS.logMaxBytes),
  ) {
    this.lineChars = Math.min(MAX_LINE_CHARS, Math.floor(maxBytes / 16));
  }

  /** One line of the page's; written within FLUSH_MS. */
  readonly line = (text: string): void => {
    if (this.pending.length >= MAX_PENDING_LINES) {
      this.dropped += 1;
      return;
    }
    this.pending.push(
      text.length > this.lineChars ? `${text.slice(0, this.lineChars)}… (${text.length} characters)` : text,
    );
    // An error is written as soon as its stack lines are in (they come in the same turn), so the
    // call that raised it reads it from the log when it ends.
    if (/^(uncaught |console\.error: )/.test(text)) queueMicrotask(() => this.flush());
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
  };

  /** Writes what waits, in one append; never throws (the log is a witness, not a duty). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const lines = this.pending;
    this.pending = [];
    // one write larger than half the bound keeps its newest lines
    let bytes = lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    while (lines.length > 1 && bytes > this.maxBytes / 2) {
      bytes -= Buffer.byteLength(lines.shift()!) + 1;
      this.dropped += 1;
    }
    if (this.dropped) {
      lines.push(
        `${HEADER_PREFIX} ${this.dropped} console lines dropped: the page wrote more than ${MAX_PENDING_LINES} in ${FLUSH_MS} ms, or more than the log holds`,
      );
      this.dropped = 0;
    }
    if (!lines.length) return;
    const file = this.file();
    let text = `${lines.join('\n')}\n`;
    try {
      if (statSync(file).size + Buffer.byteLength(text) > this.maxBytes) {
        copyFileSync(file, `${file}.1`);
        truncateSync(file, 0);
        text = `${HEADER_PREFIX} the log passed ${this.maxBytes} bytes: the part before is in ${basename(file)}.1 (any older part is gone)\n${text}`;
      }
      appendFileSync(file, text);
    } catch {
      /* the log is a witness, not a duty */
    }
  }
}
