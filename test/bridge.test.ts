/** Bridge bookkeeping that no end-to-end test can time reliably. */
import { Bridge } from '../daemon/bridge.js';
import { removeDir, tempHome } from './helpers/procs.js';

test('an old connection closing after its proxy reconnected (same session id) does not end the live session', () => {
  const home = tempHome();
  const bridge = new Bridge({ home, mode: 'daemon', detachedTtlMs: 0 });
  try {
    const old = { id: 's1', cwd: '/', startedAt: 'then' };
    const live = { id: 's1', cwd: '/', startedAt: 'now' };
    bridge.addSession(old);
    bridge.addSession(live); // the reconnect's hello arrives first
    bridge.endSession(old); // then the old socket's close
    expect(bridge.sessions.get('s1')).toBe(live);
    bridge.endSession(live);
    expect(bridge.sessionCount()).toBe(0);
  } finally {
    bridge.close();
    removeDir(home);
  }
});
