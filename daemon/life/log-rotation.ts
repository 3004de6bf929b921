/**
 * daemon.log kept bounded: the daemon writes it through the stderr it was started with (opened
 * O_APPEND by the proxy, proxy/spawn.ts), so it cannot reopen it; instead, once the file passes
 * the limit, its content is copied to daemon.log.1 (the one old file kept) and the file is
 * truncated in place. With O_APPEND, the next line lands at the new start.
 */
import { copyFileSync, fstatSync, ftruncateSync, statSync } from 'node:fs';
import { numberSetting, SETTINGS } from '../../shared/settings.js';

const CHECK_EVERY_MS = 2000;

/** The limit: GAME_BRIDGE_LOG_MAX_BYTES (shared/settings.ts). */
export function logMaxBytes(env = process.env): number {
  return numberSetting(SETTINGS.logMaxBytes, env);
}

/** Rotate `file` when it is our stderr (fd 2) and larger than `maxBytes`. Never throws. */
export function rotateIfLarge(file: string, maxBytes: number, fd = 2): boolean {
  try {
    const mine = fstatSync(fd);
    const there = statSync(file);
    if (mine.ino !== there.ino || mine.dev !== there.dev || mine.size <= maxBytes) return false;
    copyFileSync(file, `${file}.1`);
    ftruncateSync(fd, 0);
    return true;
  } catch {
    return false; // not a file, gone, or full disk: keep logging as before
  }
}

/** Check every two seconds (unref'd: never keeps the daemon alive). */
export function startLogRotation(file: string, log: (line: string) => void, maxBytes = logMaxBytes()): void {
  setInterval(() => {
    if (rotateIfLarge(file, maxBytes)) log(`daemon.log passed ${maxBytes} bytes; the previous part is in daemon.log.1`);
  }, CHECK_EVERY_MS).unref();
}
