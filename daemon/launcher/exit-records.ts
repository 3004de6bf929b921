/**
 * Exit records: what is known of a launched game that exited by itself (crashed, was killed,
 * quit). They outlive the game, and the daemon (they are saved in launched.json), until the
 * port is relaunched or the records are pruned, so every later call that addresses the game
 * can say what happened to it instead of a bare GameOffline.
 */
import { constants } from 'node:os';
import { gameExited, type BridgeError } from '../../shared/errors.js';
import { tailFile } from './logfile.js';
import type { LaunchedInstance } from './types.js';

/** Log lines kept with each record (the full log stays in its file). */
export const EXIT_TAIL_LINES = 20;
/** Records remembered at most; the oldest go first. */
const MAX_RECORDS = 50;

/** Where an exit status came from: the game's own process, the shell that wrapped it, or nowhere. */
export type StatusSource = 'game' | 'wrapper' | 'unknown';

/** What a launched game was (its launch record's facts, kept as they were), and how it ended. */
export interface ExitRecord extends Omit<LaunchedInstance, 'pidStart' | 'readyInMs' | 'starting' | 'web'> {
  /** when it exited; null when it died while no daemon was watching (then see aliveAt) */
  exitedAt: string | null;
  /** for an exit nobody saw: when a daemon last knew it running */
  aliveAt?: string;
  /** how long it ran (a lower bound when exitedAt is null) */
  uptimeMs: number;
  /** the game's own exit code or signal; both null when it could not be read (see wrapper) */
  exitCode: number | null;
  signal: string | null;
  statusFrom: StatusSource;
  /** when the game ran under a wrapper (make, npm, a shell running more after it): what that wrapper reported, which is not the game's */
  wrapper?: WrapperStatus;
  lastLines: string[];
  /** how it ended, when the bridge knows better than an exit status (a browser game that ended with its daemon) */
  reason?: string;
}

export interface WrapperStatus {
  pid: number;
  exitCode: number | null;
  signal: string | null;
}

export interface ExitStatus {
  code: number | null;
  signal: string | null;
  from: StatusSource;
}

/** A shell reports a child killed by signal N as exit code 128+N: name the signal instead. */
export function fromWrapper(code: number | null, signal: string | null): ExitStatus {
  if (code !== null && code > 128 && code < 128 + 65) {
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
    if (name) return { code: null, signal: name, from: 'wrapper' };
  }
  return { code, signal, from: 'wrapper' };
}

/** The record of `inst`, which exited now (or, with `aliveAt`, at some point after it). */
export function exitRecord(inst: LaunchedInstance, status: ExitStatus, now = new Date(), aliveAt?: string): ExitRecord {
  const { starting: _starting, readyInMs: _ready, ...facts } = inst;
  const started = Date.parse(inst.startedAt);
  const until = aliveAt ? Date.parse(aliveAt) : now.getTime();
  // A wrapper's status is its own (make says 2 whatever killed the game): kept apart, never presented as the game's.
  const fromWrapper = status.from === 'wrapper';
  return {
    ...facts,
    exitedAt: aliveAt ? null : now.toISOString(),
    ...(aliveAt ? { aliveAt } : {}),
    uptimeMs: Number.isFinite(started) && Number.isFinite(until) ? Math.max(0, until - started) : 0,
    exitCode: fromWrapper ? null : status.code,
    signal: fromWrapper ? null : status.signal,
    statusFrom: status.from,
    ...(fromWrapper ? { wrapper: { pid: inst.pgid ?? inst.pid, exitCode: status.code, signal: status.signal } } : {}),
    lastLines: tailFile(inst.logFile, EXIT_TAIL_LINES, { skipHeaders: true }).lines,
  };
}

/** "code 2", "signal SIGKILL": what a wrapper reported. */
const reported = (w: WrapperStatus) => (w.signal ? `signal ${w.signal}` : `code ${w.exitCode}`);

/** "signal SIGKILL", "code 3", or "exit status unknown": what stop_instance quotes. */
export function exitShort(rec: ExitRecord): string {
  if (rec.signal) return `signal ${rec.signal}`;
  if (rec.exitCode !== null) return `code ${rec.exitCode}`;
  if (rec.wrapper) return `exit status unknown; its launch wrapper reported ${reported(rec.wrapper)}`;
  return 'exit status unknown';
}

/** One sentence: what happened, when, after how long, the last command it applied. */
export function exitFacts(rec: ExitRecord): string {
  const who = `The game on port ${rec.port} (${rec.name || 'launched game'}${rec.profile ? `, profile ${rec.profile} #${rec.index ?? 0}` : ''}, pid ${rec.pid})`;
  const how = rec.reason
    ? rec.reason
    : rec.signal
      ? `was killed by signal ${rec.signal}`
      : rec.exitCode !== null
        ? `exited with code ${rec.exitCode}`
        : rec.wrapper
          ? `exited (its own exit status cannot be read under the wrapper that launched it, pid ${rec.wrapper.pid}, which reported ${reported(rec.wrapper)})`
          : rec.exitedAt
            ? 'exited (its exit status could not be read: it was re-adopted, or ran under a wrapper that outlived it)'
            : 'exited while no bridge daemon was watching it';
  const when = rec.exitedAt ? ` at ${rec.exitedAt}` : rec.aliveAt ? ` some time after ${rec.aliveAt}` : '';
  const ran = `${rec.exitedAt ? '' : 'at least '}${seconds(rec.uptimeMs)}`;
  const last = rec.lastCommand
    ? `the last command it confirmed was ${rec.lastCommand.id !== undefined ? `#${rec.lastCommand.id} ` : ''}'${rec.lastCommand.command}' (${rec.lastCommand.at})`
    : 'it confirmed no command through this bridge';
  return `${who} ${how}${when}, after running ${ran}; ${last}.`;
}

/** "was killed by signal SIGKILL", "exited with code 3", ...: the how of exitFacts, alone. */
export function exitHow(rec: ExitRecord): string {
  if (rec.reason) return rec.reason;
  if (rec.signal) return `killed by signal ${rec.signal}`;
  if (rec.exitCode !== null) return `exited with code ${rec.exitCode}`;
  if (rec.wrapper) return `exited (status unknown; its launch wrapper reported ${reported(rec.wrapper)})`;
  return rec.exitedAt ? 'exited (exit status unknown)' : 'exited while no daemon watched it';
}

/** What list_instances and instance_log show of an exit: the facts, the sentence, and the next step. */
export function exitSummary(rec: ExitRecord): Record<string, unknown> {
  return {
    port: rec.port,
    pid: rec.pid,
    game: rec.name,
    version: rec.version,
    ...(rec.profile !== undefined ? { profile: rec.profile, index: rec.index ?? 0 } : {}),
    how: exitHow(rec),
    exitCode: rec.exitCode,
    signal: rec.signal,
    ...(rec.wrapper ? { wrapper: rec.wrapper } : {}),
    exitedAt: rec.exitedAt,
    ...(rec.aliveAt ? { aliveAt: rec.aliveAt } : {}),
    uptimeMs: rec.uptimeMs,
    ...(rec.lastCommand ? { lastCommand: rec.lastCommand } : {}),
    lastLines: rec.lastLines,
    logFile: rec.logFile,
    facts: exitFacts(rec),
    next: `launch_instance {restart: ${rec.port}} starts it again on the same port; instance_log {port: ${rec.port}} reads its output.`,
  };
}

/** The GameExited error for a call that addressed this game. */
export function exitedError(rec: ExitRecord): BridgeError {
  const {
    port,
    pid,
    name,
    profile,
    index,
    exitCode,
    signal,
    wrapper,
    exitedAt,
    aliveAt,
    uptimeMs,
    lastCommand,
    lastLines,
    logFile,
  } = rec;
  const facts = { port, pid, name, exitCode, signal, exitedAt, uptimeMs, lastLines, logFile };
  const optional = {
    ...(profile !== undefined ? { profile, index: index ?? 0 } : {}),
    ...(wrapper ? { wrapper } : {}),
    ...(aliveAt ? { aliveAt } : {}),
    ...(lastCommand ? { lastCommand } : {}),
  };
  return gameExited({ ...facts, ...optional }, exitFacts(rec));
}

const seconds = (ms: number) => (ms < 10000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`);

/** The records by port, newest last, bounded. */
export class ExitBook {
  private readonly byPort = new Map<number, ExitRecord>();

  add(rec: ExitRecord): void {
    this.byPort.delete(rec.port);
    this.byPort.set(rec.port, rec);
    if (this.byPort.size > MAX_RECORDS) this.byPort.delete(this.byPort.keys().next().value as number);
  }

  get(port: number): ExitRecord | undefined {
    return this.byPort.get(port);
  }

  delete(port: number): boolean {
    return this.byPort.delete(port);
  }

  ports(): Set<number> {
    return new Set(this.byPort.keys());
  }

  list(): ExitRecord[] {
    return [...this.byPort.values()].sort((a, b) => a.port - b.port);
  }
}
