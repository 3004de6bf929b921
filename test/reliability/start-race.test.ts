/**
 * Daemons started at once over a dead daemon's lock: exactly one serves and daemon.json names
 * it, every time (the lock used to be deleted and retaken, so two could both win and the loser
 * deleted the winner's daemon.json: a daemon that runs but cannot be found). And a daemon.json
 * corrupted under a live daemon is written again by it within seconds (it used to wedge every
 * client). Bounded here (10 trials of a 5-way race); SOAK=1 runs 200.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { daemonFacts, liveDaemon, reportFigures, SOAK } from '../helpers/fault.js';
import { alive, CLI, removeDir, tempHome, waitFor } from '../helpers/procs.js';

const TRIALS = SOAK ? 200 : 10;
const RACERS = 5;
const homes: string[] = [];
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const h of homes) removeDir(h);
});

/** A pid that ran and is gone. */
function deadPid(): number {
  return spawnSync('/bin/true').pid!;
}

/** A home as a daemon killed -9 leaves it: its lock and its daemon.json, naming a dead pid. */
function crashedHome(): string {
  const home = tempHome('gb-race-');
  homes.push(home);
  const dir = join(home, 'daemon');
  mkdirSync(join(dir, 'daemon.lock'), { recursive: true, mode: 0o700 });
  const pid = deadPid();
  writeFileSync(join(dir, 'daemon.lock', 'owner.json'), JSON.stringify({ pid, pidStart: 1 }), { mode: 0o600 });
  writeFileSync(
    join(dir, 'daemon.json'),
    JSON.stringify({ pid, port: 1, token: 'x'.repeat(64), version: '0', startedAt: new Date().toISOString() }),
    { mode: 0o600 },
  );
  return home;
}

/** Start `RACERS` daemons on `home` at once; resolves once all but the servers have exited. */
async function race(home: string): Promise<ChildProcess[]> {
  const env = { ...process.env, GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000' };
  const racers = Array.from({ length: RACERS }, () =>
    spawn(process.execPath, [CLI, 'daemon'], { env, cwd: home, stdio: 'ignore' }),
  );
  children.push(...racers);
  await waitFor(
    'the losers to leave',
    () => racers.filter((c) => c.exitCode === null).length <= 1 && !!daemonFacts(home),
    30000,
  ).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300)); // a second winner, if any, shows itself
  return racers.filter((c) => c.exitCode === null);
}

/** Does daemon.json name a live daemon that answers on its port with its token? */
async function findable(home: string): Promise<boolean> {
  const d = daemonFacts(home);
  if (!d || !alive(d.pid)) return false;
  try {
    const res = await fetch(`http://127.0.0.1:${d.port}/status`, {
      headers: { authorization: `Bearer ${d.token}` },
      signal: AbortSignal.timeout(3000),
    });
    return res.ok && ((await res.json()) as { pid: number }).pid === d.pid;
  } catch {
    return false;
  }
}

test(
  `a ${RACERS}-way start over a crashed daemon's lock: one daemon serves and daemon.json names it, ${TRIALS} of ${TRIALS}`,
  async () => {
    const wedged: string[] = [];
    for (let i = 0; i < TRIALS; i++) {
      const home = crashedHome();
      const serving = await race(home);
      const ok = serving.length === 1 && (await findable(home)) && daemonFacts(home)?.pid === serving[0].pid;
      if (!ok)
        wedged.push(`trial ${i}: ${serving.length} serving, daemon.json names ${daemonFacts(home)?.pid ?? 'nothing'}`);
      for (const c of serving) c.kill('SIGKILL');
      await waitFor(
        'the racers to end',
        () => serving.every((c) => c.exitCode !== null || c.signalCode !== null),
        10000,
      );
    }
    reportFigures('start race', `${TRIALS} trials of a ${RACERS}-way start: ${wedged.length} wedged`);
    expect(wedged).toEqual([]);
  },
  SOAK ? 1_800_000 : 300_000,
);

test('a daemon.json corrupted under a live daemon is written again within seconds', async () => {
  const home = tempHome('gb-race-');
  homes.push(home);
  const d = spawn(process.execPath, [CLI, 'daemon'], {
    env: { ...process.env, GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000' },
    cwd: home,
    stdio: 'ignore',
  });
  children.push(d);
  const facts = await liveDaemon(home);
  writeFileSync(join(home, 'daemon', 'daemon.json'), '{"pid": 12, "port"');
  const t0 = Date.now();
  await waitFor('daemon.json to name the live daemon again', () => daemonFacts(home)?.pid === facts.pid, 5000);
  expect(Date.now() - t0).toBeLessThan(5000);
  expect(await findable(home)).toBe(true);
  d.kill('SIGKILL');
}, 60000);
