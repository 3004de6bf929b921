/**
 * `game-bridge-mcp logs <port> [-f]`: a launched game's log for people. The file is found the way
 * instance_log finds it (launched.json: a running game, then an exited one; else the newest
 * `logs/instance-<port>-*.log`), read straight from disk, so it works with no daemon running.
 * `-f` follows it like `tail -f`, says when the game exits, and moves on to the next log when
 * the game is relaunched on the same port.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { exitFacts, type ExitRecord } from '../daemon/launcher/exit-records.js';
import { tailFile } from '../daemon/launcher/logfile.js';
import { readLaunchedFile } from '../daemon/launcher/persist.js';
import type { LaunchedInstance } from '../daemon/launcher/types.js';
import { usageError } from '../shared/errors.js';
import { bridgeHome, homePaths, type HomePaths } from '../shared/paths.js';
import { selfCommand } from '../shared/self-command.js';
import { printable } from './printable.js';

const FOLLOW_POLL_MS = 250;

export interface LogsOptions {
  /** undefined: the person gave none (a usage error that lists the launched games) */
  port: number | undefined;
  lines: number;
  follow: boolean;
  out?: (text: string) => void;
  /** resolves when following should stop (default: SIGINT/SIGTERM) */
  until?: Promise<void>;
}

/** The log file of the game on `port`: the running game's, or its exit record's. */
export function findLog(
  paths: HomePaths,
  port: number,
): { logFile?: string; running?: LaunchedInstance; exited?: ExitRecord } {
  const file = readLaunchedFile(paths.launchedJson, paths.logsDir);
  const running = file.instances.find((i) => i.port === port);
  if (running) return { logFile: running.logFile, running };
  const exited = file.exited.find((r) => r.port === port);
  return { logFile: exited?.logFile ?? newestLog(paths.logsDir, port), exited };
}

/** logs/instance-<port>-<ms>.log with the largest <ms>. */
function newestLog(logsDir: string, port: number): string | undefined {
  let names: string[] = [];
  try {
    names = readdirSync(logsDir);
  } catch {
    return undefined;
  }
  const mine = names.map((n) => ({ n, m: new RegExp(`^instance-${port}-(\\d+)\\.log$`).exec(n) })).filter((x) => x.m);
  mine.sort((a, b) => Number(b.m![1]) - Number(a.m![1]));
  return mine.length ? join(logsDir, mine[0].n) : undefined;
}

/** Which game a log belongs to, whether it runs, and where the file is: printed (on stderr) before the log. */
function header(port: number, found: ReturnType<typeof findLog>, logFile: string): string {
  const g = found.running ?? found.exited;
  if (!g)
    return `[game-bridge] port ${port}: no launch record names the game; the newest log of that port: ${printable(logFile)}\n`;
  const profile = g.profile !== undefined ? `, profile ${printable(g.profile)} #${g.index ?? 0}` : '';
  const state = found.running ? `running since ${printable(found.running.startedAt)}` : 'exited';
  return `[game-bridge] ${printable(g.name || 'launched game')} on port ${port} (pid ${g.pid}${profile}), ${state}; log ${printable(logFile)}\n`;
}

/** The ports with a launch record (running first), for a `logs` without one. */
function launchedPorts(paths: HomePaths): string {
  const file = readLaunchedFile(paths.launchedJson, paths.logsDir);
  const seen = [
    ...file.instances.map((i) => `${i.port} (${printable(i.name)}, running)`),
    ...file.exited.map((e) => `${e.port} (${printable(e.name || 'launched game')}, exited)`),
  ];
  return seen.length
    ? `Launched from ${paths.home}: ${seen.join(', ')}.`
    : `No launched game is on record in ${paths.home}: ${selfCommand()} launch starts the one gamebridge.json declares.`;
}

export async function runLogs(opts: LogsOptions): Promise<number> {
  const out = opts.out ?? ((t: string) => void process.stdout.write(t));
  const paths = homePaths(bridgeHome());
  if (opts.port === undefined)
    throw usageError(
      `logs needs the port of a launched game, e.g. ${selfCommand()} logs 7820. ${launchedPorts(paths)}`,
    );
  const port = opts.port;
  const first = findLog(paths, port);
  const exited = first.exited;
  if (!first.logFile) {
    process.stderr.write(
      `game-bridge-mcp: no log for port ${port} under ${paths.logsDir}: only games started by launch_instance (or ${selfCommand()} launch) have one. ${launchedPorts(paths)}\n`,
    );
    return 1;
  }
  let logFile = first.logFile;
  process.stderr.write(header(port, first, logFile));
  const { lines } = tailFile(logFile, opts.lines);
  out(lines.map((l) => l + '\n').join(''));
  if (!opts.follow) {
    if (exited && exited.logFile === logFile) out(`[game-bridge] ${printable(exitFacts(exited))}\n`);
    return 0;
  }
  const until = opts.until ?? new Promise<void>((r) => (process.once('SIGINT', r), process.once('SIGTERM', r)));
  let stopped = false;
  void until.then(() => (stopped = true));
  let offset = size(logFile);
  let toldExit = exited?.logFile === logFile;
  if (toldExit) out(`[game-bridge] ${printable(exitFacts(exited!))}\n`);
  while (!stopped) {
    await Promise.race([until, new Promise((r) => setTimeout(r, FOLLOW_POLL_MS))]);
    const now = size(logFile);
    if (now < offset) offset = 0; // truncated
    if (now > offset) offset += copy(logFile, offset, now, out);
    const found = findLog(paths, port);
    if (found.logFile && found.logFile !== logFile) {
      out(`[game-bridge] relaunched on port ${port}: now following ${printable(found.logFile)}\n`);
      logFile = found.logFile;
      offset = 0;
      toldExit = false;
    } else if (!toldExit && found.exited && found.exited.logFile === logFile) {
      toldExit = true;
      out(`[game-bridge] ${printable(exitFacts(found.exited))}\n`);
    }
  }
  return 0;
}

const size = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** Write bytes [from, to) of `file` out; returns how many were read. */
function copy(file: string, from: number, to: number, out: (t: string) => void): number {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(to - from);
    const n = readSync(fd, buf, 0, buf.length, from);
    out(buf.subarray(0, n).toString('utf8'));
    return n;
  } finally {
    closeSync(fd);
  }
}
