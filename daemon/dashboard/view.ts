/**
 * What the dashboard's event stream carries: shared by the daemon side and the page's script
 * (type-only, so the page bundle takes no daemon code).
 */
import type { CallSummary } from '../feed/types.js';

export type { CallSummary };

export type InstanceStatus = 'live' | 'live-no-manifest' | 'live-web-page' | 'unreachable' | 'stale' | 'exited';

/** How a launched game ended, as far as this daemon saw it. */
export interface ExitView {
  at: string;
  /** 'exited with code 3', 'stopped (closed cleanly)', ... */
  how: string;
  code: number | null;
  signal: string | null;
  ranMs: number | null;
  lastCommand?: string;
}

export interface InstanceView {
  port: number;
  status: InstanceStatus;
  name: string | null;
  version: string | null;
  pid: number | null;
  /** the owning session's id; null when detached or not launched here */
  owner: string | null;
  launched: boolean;
  startedAt: string | null;
  /** frames per second between the last two /health answers */
  fps: number | null;
  frame: number | null;
  screen: string | null;
  toolsets: string[];
  discovery: string | null;
  /** inputs held in the game (when it reports them) */
  held: unknown[] | null;
  /** its clock is paused (a game with the clock capability); null when it does not say */
  paused: boolean | null;
  exit: ExitView | null;
  /** the last lines of a launched game's log */
  log: string[] | null;
  /** the errors seen so far, repeats included (get_errors lists them); null for a game not launched here */
  errors: number | null;
  detail: string | null;
}

export interface SessionView {
  id: string;
  client: { name: string; version: string } | null;
  cwd: string;
  pid: number | null;
  since: string;
  /** calls of this session among the feed's last ones */
  calls: number;
  /** ports of the games it owns */
  owns: number[];
  /** ports it has a recording on: each can be downloaded as a trace */
  recorded: number[];
  /** `debug`, or `player`: what it may see and do */
  view: 'debug' | 'player';
}

export interface DashboardState {
  at: string;
  instances: InstanceView[];
  sessions: SessionView[];
}

export interface DashboardHello {
  daemon: { pid: number; version: string; port: number; home: string; startedAt: string };
  calls: CallSummary[];
  state: DashboardState;
}

/** What the form's game picker needs: each toolset's tools with their JSON Schema. */
export interface ToolsetView {
  name: string;
  description: string;
  tools: Array<{ name: string; description: string; readOnly: boolean; inputSchema: Record<string, unknown> }>;
}

/** One skill as its file holds it (GET /dashboard/api/skill), for the skills panel's edit form. */
export interface SkillView {
  port: number;
  file: string;
  /** the skill file's format (docs/COMPOSITES.md), the fields the form shows */
  skill: {
    name: string;
    description: string;
    args: Array<{ name: string; type?: string; description?: string; required?: boolean; default?: unknown }>;
    steps: unknown[];
    maxSteps?: number;
    maxMs?: number;
  };
}
