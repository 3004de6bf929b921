/** One way for every test to write a temporary project: a folder with a gamebridge.json. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_GAME } from './procs.js';

export interface ProjectOptions {
  /** the ports the launcher may use: `portRange` is first-last (or the one port) */
  ports: number[];
  /** the declaration's `name` (default 'Crate Stack') */
  name?: string;
  /** the launch command (default: the example game with --port {port}) */
  command?: string;
  /** arguments appended to the default command, e.g. '--slow-start 8000' */
  gameArgs?: string;
  readyTimeoutMs?: number;
  /** further `launch` fields (cwd, env) */
  launch?: Record<string, unknown>;
  /** further top-level fields (composites) */
  extra?: Record<string, unknown>;
  /** a working directory below the project to create and hand back as `cwd` */
  subdir?: string;
}

export interface Project {
  root: string;
  file: string;
  /** where a client should run: `root`, or the subdir below it */
  cwd: string;
}

/** The example game, started by the node running the tests (no PATH lookup). */
export const exampleGameCommand = (args = '') =>
  `"${process.execPath}" "${EXAMPLE_GAME}" --port {port}${args ? ` ${args}` : ''}`;

export function portRangeOf(ports: number[]): string {
  return ports.length === 1 ? String(ports[0]) : `${ports[0]}-${ports[ports.length - 1]}`;
}

/** Write `root`/gamebridge.json (creating `root` and `subdir`). */
export function writeProject(root: string, o: ProjectOptions): Project {
  const cwd = o.subdir ? join(root, o.subdir) : root;
  mkdirSync(cwd, { recursive: true });
  const file = join(root, 'gamebridge.json');
  const launch = {
    command: o.command ?? exampleGameCommand(o.gameArgs),
    portRange: portRangeOf(o.ports),
    readyTimeoutMs: o.readyTimeoutMs ?? 30000,
    ...o.launch,
  };
  writeFileSync(file, JSON.stringify({ name: o.name ?? 'Crate Stack', launch, ...o.extra }, null, 2));
  return { root, file, cwd };
}
