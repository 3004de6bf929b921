/**
 * 2. Start-up: proxy spawn → `initialize` answered, (a) daemon warm, (b) no daemon (the proxy
 * auto-starts it; the daemon is stopped before each such run). Reference: `node -e ''` spawn →
 * exit. --no-daemon start-up is shown too. The runs are interleaved (bare, warm, cold, in-process),
 * and each round waits for the auto-started daemon's standby, so its start overlaps no run.
 *
 * Raw stdio, no SDK: the bench writes the initialize line at spawn and stops the clock at the
 * first stdout line carrying its id.
 */
import {
  benchEnv,
  CLI,
  daemonPid,
  liveStandby,
  median,
  now,
  round,
  waitGone,
  waitFor,
  type Reaper,
} from './harness.js';
import { ms, x, type BenchConfig, type Measurement } from './types.js';

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
});

/** spawn `node -e ''` → exit */
export async function bareNode(r: Reaper): Promise<number> {
  const t = now();
  const child = r.spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((res) => child.once('exit', res));
  return now() - t;
}

/** spawn the CLI → initialize answered; then close stdin and wait for the process to go. */
export async function initTime(r: Reaper, home: string, args: string[] = []): Promise<number> {
  const t = now();
  const child = r.spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'ignore'], env: benchEnv(home) });
  child.stdin!.write(INIT + '\n');
  const elapsed = await new Promise<number>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('initialize not answered within 30 s')), 30000);
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (/"id":1[,}]/.test(buf)) {
        clearTimeout(timer);
        resolve(now() - t);
      }
    });
    child.once('exit', (code) => reject(new Error(`the CLI exited (${code}) before answering initialize`)));
  });
  child.stdout!.removeAllListeners('data');
  child.removeAllListeners('exit');
  child.stdin!.end();
  await waitGone(child.pid!, 5000);
  return elapsed;
}

export async function measureStartup(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-start-');
  const bare: number[] = [];
  const warm: number[] = [];
  const cold: number[] = [];
  const inproc: number[] = [];
  // One untimed round: disk cache, and a daemon to be warm for the first warm run.
  await bareNode(r);
  await initTime(r, home);
  await initTime(r, home, ['--no-daemon']);
  r.track(await waitFor('its standby', () => liveStandby(home), 20000));
  for (let i = 0; i < cfg.runs; i++) {
    bare.push(await bareNode(r));
    await waitFor('daemon up', () => daemonPid(home), 10000);
    warm.push(await initTime(r, home));
    await r.stopDaemon(home, 'SIGTERM'); // a clean "no daemon": it removes daemon.json as it goes
    cold.push(await initTime(r, home));
    const pid = await waitFor('auto-started daemon', () => daemonPid(home), 10000);
    r.track(pid);
    inproc.push(await initTime(r, home, ['--no-daemon']));
    // the daemon's standby starts a second after it: not during the next bare or warm run
    r.track(await waitFor('its standby', () => liveStandby(home), 20000));
  }
  const b = median(bare);
  const w = median(warm);
  const c = median(cold);
  const n = median(inproc);
  /** A row measured against bare node; `limit`: the ratio it must stay within, when there is one. */
  const vsNode = (what: string, v: number, limit?: number) => ({
    id: '2 start-up',
    what,
    value: ms(v, 1),
    reference: "node -e ''",
    vs: x(v / b),
    ...(limit !== undefined ? { target: `≤ ${limit}×`, met: v / b <= limit } : { met: null }),
  });
  return {
    name: 'startup',
    figures: {
      runs: cfg.runs,
      medianMs: { bareNode: round(b), proxyDaemonWarm: round(w), proxyNoDaemon: round(c), inProcess: round(n) },
      ratioToBareNode: { warm: round(w / b), noDaemon: round(c / b), inProcess: round(n / b) },
      samplesMs: {
        bareNode: bare.map((v) => round(v, 1)),
        warm: warm.map((v) => round(v, 1)),
        noDaemon: cold.map((v) => round(v, 1)),
        inProcess: inproc.map((v) => round(v, 1)),
      },
    },
    rows: [
      { id: '2 start-up', what: `node -e '' spawn→exit (median of ${cfg.runs})`, value: ms(b, 1), met: null },
      vsNode('(a) proxy, daemon warm → initialize', w, 2.5),
      vsNode('(b) proxy, no daemon (auto-start)', c, 5),
      vsNode('--no-daemon → initialize', n),
    ],
  };
}
