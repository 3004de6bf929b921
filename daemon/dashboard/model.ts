/**
 * The dashboard's picture of the daemon: instances (launched, discovered, stale, exited) and
 * sessions, refreshed once a second while at least one page is open and not at all otherwise.
 * Frame rates come from successive /health frames; discovery (registry + scan) runs every few
 * seconds, and at once when this daemon launches or loses a game.
 */
import type { LaunchedInstance } from '../launcher/index.js';
import type { ListResult, LiveInstance } from '../discovery/list.js';
import type { DashboardHost } from './host.js';
import type { DashboardState, ExitView, InstanceView, SessionView } from './view.js';
import { EndedGames } from './exits.js';

const TICK_MS = 1000;
const DISCOVER_EVERY_MS = 3000;
const HEALTH_TIMEOUT_MS = 800;
const LOG_LINES = 12;

interface FrameMark {
  frame: number;
  t: number;
  fps: number | null;
  /** /health's capabilities (a game with 'input' reports held inputs in /state, one with 'clock' whether it is paused) */
  caps: string[];
}

/** What /state says that /health does not: inputs held, and a paused clock. */
interface StateMark {
  held: unknown[] | null;
  paused: boolean | null;
}

export class DashboardModel {
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private again = false;
  private discovered?: ListResult;
  private discoveredAt = 0;
  private frames = new Map<number, FrameMark>();
  private read = new Map<number, StateMark>();
  private readonly exits: EndedGames;
  private last?: DashboardState;
  private lastJson = '';

  constructor(
    private readonly host: DashboardHost,
    private readonly onChange: (state: DashboardState) => void,
  ) {
    this.exits = new EndedGames(host.state.launcher);
    // A launch or an exit shows at once, not at the next tick.
    host.state.onInstancesChanged(() => {
      this.discoveredAt = 0;
      if (this.timer) void this.tick();
    });
  }

  /** Pages are open: refresh every second. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
    void this.tick();
  }

  /** No page is open: no work at all. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.frames.clear();
  }

  /** The latest picture (computed now when none is kept yet). */
  async state(): Promise<DashboardState> {
    if (!this.last) await this.tick();
    return this.last ?? this.compose([]);
  }

  /** Refresh, and tell the pages when anything changed. */
  async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    try {
      const discovering = Date.now() - this.discoveredAt >= DISCOVER_EVERY_MS;
      if (discovering) await this.discover();
      const ports = this.livePorts();
      await Promise.all(ports.map((p) => this.measure(p)));
      // A clock that stopped is read at once: a paused game says so within a second.
      await Promise.all(
        ports.filter((p) => discovering || this.frames.get(p)?.fps === 0).map((p) => this.readState(p)),
      );
      const state = this.compose(ports);
      const json = JSON.stringify({ i: state.instances, s: state.sessions });
      this.last = state;
      if (json !== this.lastJson) {
        this.lastJson = json;
        this.onChange(state);
      }
    } catch (e) {
      this.host.log(`dashboard refresh failed: ${String(e)}`);
    } finally {
      this.ticking = false;
      if (this.again) {
        this.again = false;
        void this.tick();
      }
    }
  }

  private async discover(): Promise<void> {
    this.discoveredAt = Date.now();
    const res = await this.host.call('list_instances', {}, false);
    if (!res.isError && res.structuredContent) this.discovered = res.structuredContent as unknown as ListResult;
  }

  /** Launched and discovered games, and any port a session called lately (it may lie outside the scan range). */
  private livePorts(): number[] {
    const ports = new Set<number>(this.host.state.launcher.list().map((i) => i.port));
    for (const l of this.discovered?.live ?? []) ports.add(l.port);
    for (const c of this.host.state.feed.recent()) if (c.port !== undefined) ports.add(c.port);
    return [...ports].sort((a, b) => a - b);
  }

  /** One /health: the frame, and the rate since the last one. */
  private async measure(port: number): Promise<void> {
    const now = performance.now();
    try {
      const h = await this.host.state.client(port, HEALTH_TIMEOUT_MS).health(HEALTH_TIMEOUT_MS);
      const frame = typeof h.frame === 'number' ? h.frame : NaN;
      const prev = this.frames.get(port);
      const fps =
        prev && Number.isFinite(frame) && frame >= prev.frame && now > prev.t
          ? ((frame - prev.frame) * 1000) / (now - prev.t)
          : null;
      const caps = Array.isArray(h.capabilities) ? h.capabilities.map(String) : [];
      this.frames.set(port, { frame, t: now, fps: fps === null ? null : Math.round(fps * 10) / 10, caps });
    } catch {
      this.frames.delete(port);
    }
  }

  /** Held inputs and a paused clock, from /state of the games that declare input or the clock (with discovery's pace). */
  private async readState(port: number): Promise<void> {
    const caps = this.frames.get(port)?.caps ?? [];
    if (!caps.includes('input') && !caps.includes('clock')) return void this.read.delete(port);
    try {
      const state = await this.host.state.client(port, HEALTH_TIMEOUT_MS).state(undefined, HEALTH_TIMEOUT_MS);
      const held = (state.input as { held?: unknown } | undefined)?.held;
      const paused = (state.clock as { paused?: unknown } | undefined)?.paused;
      this.read.set(port, {
        held: caps.includes('input') ? (Array.isArray(held) ? held : []) : null,
        paused: typeof paused === 'boolean' ? paused : null,
      });
    } catch {
      this.read.delete(port);
    }
  }

  private compose(ports: number[]): DashboardState {
    const state = this.host.state;
    const byPort = new Map((this.discovered?.live ?? []).map((l) => [l.port, l]));
    // A port known only from the feed is shown while a game answers on it.
    const known = ports.filter((p) => this.frames.has(p) || state.launcher.get(p) || byPort.has(p));
    const instances: InstanceView[] = known.map((port) =>
      this.instance(port, state.launcher.get(port), byPort.get(port)),
    );
    const shown = new Set(known);
    for (const s of this.discovered?.stale ?? []) {
      if (shown.has(s.port)) continue;
      shown.add(s.port);
      instances.push({
        ...blank(s.port),
        status: 'stale',
        pid: s.pid,
        detail: s.detail ?? `registry entry ${s.file}: nothing answers on the port`,
      });
    }
    for (const e of this.exits.list()) {
      if (shown.has(e.inst.port)) continue;
      shown.add(e.inst.port);
      const { port } = e.inst;
      instances.push({
        ...this.launchedFacts(e.inst),
        status: 'exited',
        exit: e.exit,
        log: this.logTail(port),
        errors: this.errorCount(port),
      });
    }
    return { at: new Date().toISOString(), instances, sessions: this.sessions() };
  }

  private instance(port: number, inst: LaunchedInstance | undefined, live: LiveInstance | undefined): InstanceView {
    const mark = this.frames.get(port);
    const base = inst ? this.launchedFacts(inst) : blank(port);
    const read = this.read.get(port);
    return {
      ...base,
      status: mark ? (live?.status ?? 'live') : 'unreachable',
      name: live?.game ?? base.name,
      version: live?.version ?? base.version,
      pid: base.pid ?? live?.pid ?? null,
      startedAt: base.startedAt ?? live?.started ?? null,
      fps: mark?.fps ?? null,
      frame: mark && Number.isFinite(mark.frame) ? mark.frame : (live?.frame ?? null),
      screen: live?.screen ?? null,
      toolsets: live?.toolsets ?? [],
      discovery: live?.discovery ?? (inst ? 'launched' : null),
      held: read?.held ?? null,
      paused: mark ? (read?.paused ?? null) : null,
      log: inst ? this.logTail(port) : null,
      errors: inst ? this.errorCount(port) : null,
    };
  }

  /** What the game raised so far: its output read up to now, and what calls read from its kit. */
  private errorCount(port: number): number {
    return this.host.state.launcher.errors.readOutput(port, this.frames.get(port)?.frame ?? null).total;
  }

  private launchedFacts(inst: LaunchedInstance): InstanceView {
    const owner = inst.owner && this.host.state.sessions.has(inst.owner) ? inst.owner : null;
    return {
      ...blank(inst.port),
      name: inst.name,
      version: inst.version,
      pid: inst.pid,
      owner,
      launched: true,
      startedAt: inst.startedAt,
    };
  }

  private logTail(port: number): string[] | null {
    try {
      return this.host.state.launcher.log(port, LOG_LINES).lines;
    } catch {
      return null;
    }
  }

  private sessions(): SessionView[] {
    const state = this.host.state;
    const calls = new Map<string, number>();
    for (const c of state.feed.recent()) calls.set(c.session, (calls.get(c.session) ?? 0) + 1);
    const launched = state.launcher.list();
    return [...state.sessions.values()].map((s) => ({
      id: s.id,
      client: s.client ?? null,
      cwd: s.cwd,
      pid: s.pid ?? null,
      since: s.startedAt,
      view: s.view ?? 'debug',
      calls: calls.get(s.id) ?? 0,
      owns: launched.filter((i) => i.owner === s.id).map((i) => i.port),
      recorded: state.recordings.portsOf(s.id),
    }));
  }
}

function blank(port: number): InstanceView {
  return {
    port,
    status: 'live',
    name: null,
    version: null,
    pid: null,
    owner: null,
    launched: false,
    startedAt: null,
    fps: null,
    frame: null,
    screen: null,
    toolsets: [],
    discovery: null,
    held: null,
    paused: null,
    exit: null,
    log: null,
    errors: null,
    detail: null,
  };
}

export type { ExitView };
