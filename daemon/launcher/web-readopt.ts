/**
 * What a successor daemon does with a browser game a previous daemon launched (after a crash or
 * a handover): it cannot take it back. The browser was driven over the previous daemon's pipe
 * (no DevTools port is ever open, so no other local user can drive it), and that pipe ended with
 * it; Chromium ends when its pipe closes. So whatever is left (Chromium, the page's server) is
 * ended, each only while its pid is still the process that was recorded, and the game is
 * reported as exited, with why and what to do next (docs/DECISIONS.md, "A browser game ends
 * with its daemon").
 */
import { endChromium, groupStillOurs } from '../web/browser.js';
import { exitRecord, type ExitRecord } from './exit-records.js';
import { appendLogLine, HEADER_PREFIX } from './logfile.js';
import { treeAlive } from './processes.js';
import { escalate } from './stop.js';
import type { LaunchedInstance } from './types.js';

/** How list_instances and a call to the port tell it. */
export const ENDED_WITH_DAEMON =
  'ended with the bridge daemon that opened its browser (a browser game is driven over that daemon’s private pipe and does not outlive it)';

/** Ends what is left of a previous daemon's browser game; its exit record. `aliveAt`: when that daemon last saw it. */
export async function endOrphanWebGame(inst: LaunchedInstance, aliveAt: string): Promise<ExitRecord> {
  const rec = inst.web!;
  appendLogLine(
    inst.logFile,
    `${HEADER_PREFIX} daemon pid ${process.pid}: not re-adopted: this game ${ENDED_WITH_DAEMON}; what was left of its browser and server was ended. launch_instance {restart: ${inst.port}} starts it again`,
  );
  await endChromium(rec.browser);
  // A live leader without a matching start time (recycled, or an older daemon's file) may be
  // anyone's: it is left alone.
  if (rec.serverPgid && treeAlive(rec.serverPgid) && groupStillOurs(rec.serverPgid, rec.serverStart))
    await escalate(rec.serverPgid).catch(() => undefined);
  const { web: _web, ...facts } = inst;
  return {
    ...exitRecord(facts, { code: null, signal: null, from: 'unknown' }, new Date(), aliveAt),
    reason: ENDED_WITH_DAEMON,
  };
}
