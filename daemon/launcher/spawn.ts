/**
 * Spawn and log: run the declared command in its own process group with its output going
 * straight into a log file, and report how the launch pid ended.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { execa as Execa } from 'execa';
import { ensureDir } from '../../shared/paths.js';
import { execPrefixed } from './exec-prefix.js';
import { headerLine, logFileName } from './logfile.js';

/** How the launch pid ended (spawnError: it never ran). */
export interface Exit {
  code: number | null;
  signal: string | null;
  spawnError?: string;
}

/** A spawned game: its pid (undefined when the spawn itself failed) and its exit, once known. */
export interface Spawned {
  pid: number | undefined;
  logFile: string;
  startedAt: Date;
  /** settles when the launch pid ends; never rejects */
  exited: Promise<Exit>;
  /** the exit, once `exited` settled (synchronous peek for polling loops) */
  exit(): Exit | undefined;
}

/** execa is loaded on the first launch, not at daemon start: a cold daemon answers sooner. */
let execaModule: Promise<typeof import('execa')> | undefined;
export const loadExeca = () => (execaModule ??= import('execa'));

/**
 * Run the declared command through a shell (exec'd when it is a simple command, so the launch
 * pid is the game's own). The log fd goes straight to the child (no pipes
 * through us): the game keeps logging, and keeps running, if the daemon dies. detached makes
 * it the leader of its own process group; cleanup: false stops execa killing it when we exit.
 */
function spawnGame(execa: typeof Execa, command: string, cwd: string, env: Record<string, string>, logFd: number) {
  // execa's types list only fds 3-9 here; at run time any open fd goes through to spawn().
  const fd = logFd as 3;
  return execa(execPrefixed(command), {
    shell: true,
    cwd,
    env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    stdin: 'ignore',
    stdout: fd,
    stderr: fd,
    reject: false,
    buffer: false,
  });
}

/** Open a fresh log for `port`, write the header, spawn the command with the log as stdout/stderr. */
export function spawnLogged(
  execa: typeof Execa,
  spec: { command: string; cwd: string; env: Record<string, string>; port: number; logsDir: string; home: string },
): Spawned {
  ensureDir(spec.home);
  ensureDir(spec.logsDir);
  const logFile = logFileName(spec.logsDir, spec.port);
  const fd = openSync(logFile, 'a', 0o600);
  let child: ReturnType<typeof spawnGame>;
  try {
    writeSync(fd, headerLine(spec.command, spec.cwd, spec.port));
    child = spawnGame(execa, spec.command, spec.cwd, spec.env, fd);
  } finally {
    closeSync(fd); // the child holds its own copy
  }
  child.unref();
  const startedAt = new Date();
  let exit: Exit | undefined;
  const exited: Promise<Exit> = Promise.resolve(child).then(
    (r) =>
      (exit = {
        code: r.exitCode ?? null,
        signal: r.signal ?? null,
        spawnError: r.exitCode === undefined && !r.signal ? r.shortMessage : undefined,
      }),
    (e: unknown) => (exit = { code: null, signal: null, spawnError: String(e) }),
  );
  return { pid: child.pid, logFile, startedAt, exited, exit: () => exit };
}
