/**
 * launch_instance {restart: port}: the game launched on that port (running, or exited with its
 * facts kept) is stopped if it runs, and the same declaration file is launched again with the
 * same profile and index on the same port. The declaration is read afresh (an edited command
 * applies) and the restarting client's environment is used (launched.json keeps no env).
 */
import { usageError } from '../../shared/errors.js';
import { readDeclaration } from './declaration.js';
import { exitShort } from './exit-records.js';
import type { Launcher } from './launcher.js';
import type { LaunchedInstance, LaunchOptions } from './types.js';

/** How long a restart waits for the stopped game's port to be free again. */
const PORT_FREE_WAIT_MS = 3000;

export interface Restarted {
  inst: LaunchedInstance;
  /** the game it replaced: its pid, and how it ended ("closed cleanly", "had already exited (code 3)", ...) */
  previous: { pid: number; how: string };
}

export async function restartGame(
  launcher: Launcher,
  port: number,
  opts: Omit<LaunchOptions, 'cwd' | 'configPath' | 'profile' | 'index'>,
): Promise<Restarted> {
  const running = launcher.get(port);
  const exited = running ? undefined : await launcher.exitOf(port);
  const was = running ?? exited;
  if (!was) {
    throw usageError(
      `Nothing to restart on port ${port}: this bridge launched no game there (or its exit record was pruned). ` +
        'list_instances shows launched and exited games; launch_instance without restart starts a new one.',
      { port },
    );
  }
  const decl = readDeclaration(was.declaration);
  launcher.ports.pin(port); // between the stop and the claim, no other launch may be handed it
  try {
    const how = running ? (await launcher.stop(port)).how : `had already exited (${exitShort(exited!)})`;
    await launcher.ports.claim(port, PORT_FREE_WAIT_MS);
    try {
      const inst = await launcher.startOn(decl, port, {
        ...opts,
        cwd: decl.dir,
        profile: was.profile,
        index: was.index,
        // the seed it ran with, unless another is given
        ...(opts.seed !== undefined || running?.web?.seed !== undefined
          ? { seed: opts.seed ?? running?.web?.seed }
          : {}),
      });
      return { inst, previous: { pid: was.pid, how } };
    } catch (e) {
      launcher.ports.release(port);
      throw e;
    }
  } finally {
    launcher.ports.unpin(port);
  }
}
