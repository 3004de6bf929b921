/**
 * Helpers for the reliability suites (test/reliability): a seeded PRNG, daemon facts from a
 * home, process-table scans for what a suite started, memory readings, and the soak switch.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readDaemonFile, type DaemonInfo } from '../../shared/daemon-file.js';
import { alive, CLI, waitFor } from './procs.js';

/** SOAK=1 (npm run soak) runs the long form of every suite. */
export const SOAK = process.env.SOAK === '1';

/** A suite's figures go to stderr only when asked for (SOAK=1 or FIGURES=1): a passing run is quiet. */
export function reportFigures(label: string, text: string): void {
  if (SOAK || process.env.FIGURES === '1') process.stderr.write(`${label} ${text}\n`);
}

/** mulberry32: a tiny seeded PRNG, so every fuzz and chaos run is reproducible from its seed. */
export function prng(seed: number): {
  next(): number;
  int(lo: number, hi: number): number;
  pick<T>(xs: readonly T[]): T;
  chance(p: number): boolean;
} {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
  };
}

/** The seed of a run: SEED=n reproduces one; otherwise a fixed default per suite. */
export function seedFor(fallback: number): number {
  const s = Number(process.env.SEED);
  return Number.isInteger(s) ? s : fallback;
}

export type DaemonFacts = DaemonInfo;

/** The daemon.json of `home` as the proxy reads it: the one reader of that file in the tests. */
export function daemonFacts(home: string): DaemonFacts | undefined {
  return readDaemonFile(join(home, 'daemon', 'daemon.json'));
}

/** daemonFacts(home) where the test has just seen a daemon serve: its absence is a failure. */
export function publishedDaemon(home: string): DaemonFacts {
  const facts = daemonFacts(home);
  if (!facts) throw new Error(`no readable daemon.json under ${home}`);
  return facts;
}

/** The live daemon of `home` (not `notPid`), once daemon.json names a live pid. */
export async function liveDaemon(home: string, notPid?: number, timeoutMs = 20000): Promise<DaemonFacts> {
  return waitFor(
    `a daemon for ${home}`,
    () => {
      const i = daemonFacts(home);
      return i && i.pid !== notPid && alive(i.pid) ? i : undefined;
    },
    timeoutMs,
  );
}

/** Every live process whose command line or environment mentions `home` (Linux /proc). */
export function processesOf(home: string): Array<{ pid: number; args: string }> {
  const out: Array<{ pid: number; args: string }> = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const state = /State:\s+(\S)/.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
      if (state === 'Z' || !args) continue; // a zombie is already dead; its parent reaps it
      let env = '';
      try {
        env = readFileSync(`/proc/${name}/environ`, 'utf8');
      } catch {
        /* not ours to read */
      }
      if (
        args.includes(home) ||
        env.split('\0').some((kv) => kv.startsWith('GAME_BRIDGE_HOME=') && kv.slice(17) === home)
      ) {
        out.push({ pid: Number(name), args });
      }
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** Processes whose environment names `home` and that run the bridge CLI as a daemon. */
export function daemonsOf(home: string): number[] {
  return processesOf(home)
    .filter((p) => (p.args.includes(CLI) && / daemon\b/.test(p.args)) || p.args.includes('/dist/daemon/life/boot.js'))
    .map((p) => p.pid);
}

/** The standby daemon.json names once it is ready and alive (and is not `notPid`). */
export function readyStandby(home: string, notPid?: number): Promise<number> {
  return waitFor(
    'a ready standby',
    () => {
      const sb = daemonFacts(home)?.standby;
      return sb && sb.pid !== notPid && alive(sb.pid) ? sb.pid : undefined;
    },
    30000,
  );
}

/** daemonsOf(home) but the standby daemon.json names: the daemons that serve, or are starting to. */
export function servingDaemonsOf(home: string): number[] {
  const standby = daemonFacts(home)?.standby?.pid;
  return daemonsOf(home).filter((p) => p !== standby);
}

/**
 * Kill (SIGKILL, by pid and by process group for launched games) everything still running
 * for `home` plus `pids`, and return what had been left running: an orphan check.
 */
export async function reapAndReport(home: string, pids: Iterable<number> = []): Promise<string[]> {
  const left: string[] = [];
  const tracked = new Set(pids);
  for (const p of processesOf(home)) tracked.add(p.pid);
  for (const pid of tracked) {
    if (!alive(pid)) continue;
    let args = '';
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      /* gone */
    }
    left.push(`${pid} ${args}`);
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* not a group leader, or gone */
      }
    }
  }
  await waitFor('tracked processes gone', () => [...tracked].every((p) => !alive(p) || isZombie(p)), 5000).catch(
    () => undefined,
  );
  return left;
}

function isZombie(pid: number): boolean {
  try {
    return /State:\s+Z/.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

/** Resident memory of `pid` in kB (VmRSS), or 0 when it cannot be read. */
export function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export async function gameState(
  port: number,
): Promise<{ game: { bumps: Record<string, number>; received: Record<string, number> } }> {
  return (await (await fetch(`http://127.0.0.1:${port}/state`)).json()) as {
    game: { bumps: Record<string, number>; received: Record<string, number> };
  };
}

/** The listening TCP sockets (local address) of `pids`, from `ss -ltnp`. */
export function listeningAddresses(pids: number[]): string[] {
  const out = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
  const mine: string[] = [];
  for (const line of out.split('\n')) {
    const users = [...line.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1]));
    if (!users.some((p) => pids.includes(p))) continue;
    const cols = line.trim().split(/\s+/);
    mine.push(cols[3]);
  }
  return mine;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes sent to the game on `port` that it has not read yet (ss: Recv-Q of its accepted sockets). */
export function unreadBytesAt(port: number): number {
  const out = execFileSync('ss', ['-tnH', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.trim())
    .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[0]), 0);
}
