/** daemon.json as this daemon publishes it (shared/daemon-file.ts reads it for everyone): written, checked, taken back. */
import { unlinkSync } from 'node:fs';
import { readDaemonFile, type DaemonInfo } from '../../shared/daemon-file.js';
import type { HomePaths } from '../../shared/paths.js';
import { writePrivateFile } from '../../shared/private-files.js';

export function readDaemonJson(paths: HomePaths): DaemonInfo | undefined {
  return readDaemonFile(paths.daemonJson);
}

export function writeDaemonJson(paths: HomePaths, info: DaemonInfo): void {
  writePrivateFile(paths.daemonJson, JSON.stringify(info) + '\n');
}

export function removeDaemonJsonIfOurs(paths: HomePaths): void {
  if (readDaemonJson(paths)?.pid !== process.pid) return;
  try {
    unlinkSync(paths.daemonJson);
  } catch {
    /* already gone */
  }
}

/** The standby daemon.json names, when daemon.json is this daemon's. */
export function ourStandby(paths: HomePaths): DaemonInfo['standby'] {
  const info = readDaemonJson(paths);
  return info?.pid === process.pid ? info.standby : undefined;
}

/** daemon.json again when it no longer names this daemon (a failed write is retried next second). */
export function republishDaemonJson(paths: HomePaths, info: DaemonInfo, log: (...args: unknown[]) => void): void {
  const now = readDaemonJson(paths);
  if (now?.pid === info.pid && now.port === info.port && now.token === info.token) return;
  log('daemon.json was missing or not ours; publishing it again');
  try {
    writeDaemonJson(paths, info);
  } catch (e) {
    log('writing daemon.json failed:', e);
  }
}
