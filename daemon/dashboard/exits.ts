/**
 * The launched games that ended while the dashboard was loaded: how (exit code, or stopped and
 * how), when, and how long they ran. Kept until the port is launched again; the newest
 * MAX_EXITS only.
 */
import type { Launcher, LaunchedInstance } from '../launcher/index.js';
import type { ExitView } from './view.js';

const MAX_EXITS = 20;

export interface ExitRecord {
  inst: LaunchedInstance;
  exit: ExitView;
}

export class ExitBook {
  private known = new Map<number, LaunchedInstance>();
  private exits = new Map<number, ExitRecord>();

  constructor(launcher: Launcher) {
    for (const inst of launcher.list()) this.known.set(inst.port, inst);
    launcher.on('launched', (inst: LaunchedInstance) => {
      this.known.set(inst.port, inst);
      this.exits.delete(inst.port);
    });
    // 'gone' comes for every way out; an exit on its own follows it at once with the code.
    launcher.on('gone', (port: number) => this.ended(port, 'stopped by the bridge', null));
    launcher.on('exit', (inst: LaunchedInstance, code: number | null) => {
      this.ended(inst.port, code === null ? 'exited on its own' : `exited with code ${code}`, code);
    });
  }

  /** Newest first. */
  list(): ExitRecord[] {
    return [...this.exits.values()].reverse();
  }

  private ended(port: number, how: string, code: number | null): void {
    const inst = this.known.get(port);
    if (!inst) return;
    const prior = this.exits.get(port);
    const at = prior?.exit.at ?? new Date().toISOString();
    const started = Date.parse(inst.startedAt);
    const exit: ExitView = { at, how, code, signal: null, ranMs: Number.isFinite(started) ? Date.parse(at) - started : null };
    this.exits.delete(port);
    this.exits.set(port, { inst, exit });
    while (this.exits.size > MAX_EXITS) this.exits.delete(this.exits.keys().next().value as number);
  }
}
