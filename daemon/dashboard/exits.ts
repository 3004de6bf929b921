/**
 * The launched games that ended, for the dashboard: those that exited by themselves come from
 * the launcher's exit records (how, signal or code, when, how long, the last command: the same
 * facts GameExited carries, kept across daemon restarts until relaunched or pruned); those the
 * bridge stopped are remembered here while the dashboard is loaded, the newest MAX_STOPPED only.
 */
import type { ExitRecord, Launcher, LaunchedInstance } from '../launcher/index.js';
import type { ExitView } from './view.js';

const MAX_STOPPED = 20;

export interface EndedGame {
  inst: LaunchedInstance;
  exit: ExitView;
}

/** How it ended, in the launcher's words (daemon/launcher/exit-records.ts exitHow; this module may import only types). */
function howOf(rec: ExitRecord): string {
  if (rec.signal) return `killed by signal ${rec.signal}`;
  if (rec.exitCode !== null) return `exited with code ${rec.exitCode}`;
  if (rec.wrapper)
    return `exited (status unknown; its launch wrapper reported ${rec.wrapper.signal ? `signal ${rec.wrapper.signal}` : `code ${rec.wrapper.exitCode}`})`;
  return rec.exitedAt ? 'exited (exit status unknown)' : 'exited while no daemon watched it';
}

/** The dashboard's view of an exit record. */
function fromRecord(rec: ExitRecord): EndedGame {
  const { exitedAt, aliveAt, uptimeMs, exitCode, signal, lastCommand, ...inst } = rec;
  const view: ExitView = {
    at: exitedAt ?? aliveAt ?? rec.startedAt,
    how: howOf(rec),
    code: exitCode,
    signal,
    ranMs: uptimeMs,
    ...(lastCommand
      ? { lastCommand: `${lastCommand.id !== undefined ? `#${lastCommand.id} ` : ''}'${lastCommand.command}'` }
      : {}),
  };
  return { inst: { ...inst, readyInMs: 0 }, exit: view };
}

export class EndedGames {
  private known = new Map<number, LaunchedInstance>();
  private stopped = new Map<number, EndedGame>();

  constructor(private readonly launcher: Launcher) {
    for (const inst of launcher.list()) this.known.set(inst.port, inst);
    launcher.on('launched', (inst: LaunchedInstance) => {
      this.known.set(inst.port, inst);
      this.stopped.delete(inst.port);
    });
    // 'gone' comes for every way out; 'exit' follows at once for an exit by itself, whose facts the launcher keeps.
    launcher.on('gone', (port: number) => this.ended(port));
    launcher.on('exit', (inst: LaunchedInstance) => this.stopped.delete(inst.port));
  }

  /** Newest first: the exits the launcher keeps, and the stops this dashboard saw on other ports. */
  list(): EndedGame[] {
    const exited = this.launcher.exitedList().map(fromRecord);
    const ports = new Set(exited.map((e) => e.inst.port));
    const stopped = [...this.stopped.values()].filter((s) => !ports.has(s.inst.port));
    return [...exited, ...stopped].sort((a, b) => Date.parse(b.exit.at) - Date.parse(a.exit.at));
  }

  private ended(port: number): void {
    const inst = this.known.get(port);
    if (!inst) return;
    const at = new Date().toISOString();
    const started = Date.parse(inst.startedAt);
    this.stopped.delete(port);
    this.stopped.set(port, {
      inst,
      exit: {
        at,
        how: 'stopped by the bridge',
        code: null,
        signal: null,
        ranMs: Number.isFinite(started) ? Date.parse(at) - started : null,
      },
    });
    while (this.stopped.size > MAX_STOPPED) this.stopped.delete(this.stopped.keys().next().value as number);
  }
}
