/**
 * The connect loop's pause: up to `ms`, but over as soon as a file appears or changes. A cold
 * start's daemon publishes daemon.json (by rename) the moment it listens; watching its directory
 * lets the proxy connect then instead of at its next poll.
 * Polling stays the safety net: a directory that cannot be watched (missing, odd filesystem)
 * just means the full pause.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Resolve after `ms`, or earlier when `file` is created, replaced or written. */
export function pauseUntilFileChanges(file: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined;
    const done = () => {
      clearTimeout(timer);
      watcher?.close();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const name = basename(file);
    try {
      watcher = watch(dirname(file), { persistent: false }, (_event, changed) => {
        if (changed === null || String(changed) === name) done();
      });
      watcher.on('error', () => watcher?.close()); // the timer still ends the pause
    } catch {
      /* not watchable: the timer ends the pause */
    }
  });
}
