/** DaemonState bookkeeping that no end-to-end test can time reliably. */
import { DaemonState } from '../daemon/state/state.js';
import { removeDir, tempHome } from './helpers/procs.js';

test('an old connection closing after its proxy reconnected (same session id) does not end the live session', () => {
  const home = tempHome();
  const state = new DaemonState({ home, mode: 'daemon', detachedTtlMs: 0 });
  try {
    const old = { id: 's1', cwd: '/', startedAt: 'then' };
    const live = { id: 's1', cwd: '/', startedAt: 'now' };
    state.addSession(old);
    state.addSession(live); // the reconnect's hello arrives first
    state.endSession(old); // then the old socket's close
    expect(state.sessions.get('s1')).toBe(live);
    state.endSession(live);
    expect(state.sessionCount()).toBe(0);
  } finally {
    state.close();
    removeDir(home);
  }
});

test('game clients are bounded: a daemon that has called a thousand ports keeps at most 256 of them', () => {
  const home = tempHome();
  const state = new DaemonState({ home, mode: 'daemon', detachedTtlMs: 0 });
  try {
    for (let port = 20000; port < 21000; port++) state.client(port, 2000);
    const kept = (state as unknown as { clients: Map<string, unknown> }).clients;
    expect(kept.size).toBeLessThanOrEqual(256);
    const recent = state.client(20999, 2000);
    expect(state.client(20999, 2000)).toBe(recent); // the recent ones are still shared
  } finally {
    state.close();
    removeDir(home);
  }
});
