/**
 * What the daemon's `GET /status` answers: its own facts, then its state's sessions, running games
 * and exited games. The daemon's state writes `DaemonStateFacts`; `game-bridge-mcp status` parses
 * the whole answer with `daemonStatus`. Its top-level facts and lists are optional: a daemon that
 * failed to gather its state answers without them.
 */
import { z } from 'zod/v4';

const game = {
  port: z.number(),
  pid: z.number(),
  name: z.string(),
  logFile: z.string(),
};

const session = z.object({
  id: z.string(),
  cwd: z.string(),
  pid: z.number().optional(),
  startedAt: z.string(),
});

const running = z.object({
  ...game,
  cwd: z.string(),
  owner: z.string(),
  profile: z.string().optional(),
  index: z.number().optional(),
  startedAt: z.string(),
});

const exited = z.object({
  ...game,
  how: z.string(),
  exitedAt: z.string().nullable(),
  uptimeMs: z.number(),
});

/** What the daemon's state reports of itself (daemon/state/state.ts writes it). */
export const daemonStateFacts = z.object({
  mode: z.string().optional(),
  startedAt: z.string().optional(),
  uptimeMs: z.number().optional(),
  sessions: z.array(session).optional(),
  instances: z.array(running).optional(),
  exited: z.array(exited).optional(),
});

export type DaemonStateFacts = z.input<typeof daemonStateFacts>;

/** The whole `/status` answer: the process's facts beside its state's. */
export const daemonStatus = daemonStateFacts.extend({
  version: z.string().optional(),
  pid: z.number().optional(),
  port: z.number().optional(),
  home: z.string().optional(),
  standby: z.object({ pid: z.unknown(), kind: z.unknown() }).optional(),
});

export type DaemonStatus = z.output<typeof daemonStatus>;
