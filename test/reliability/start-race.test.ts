/**
 * Daemons started at once over a dead daemon's lock: exactly one serves and daemon.json names
 * it, every time (the lock used to be deleted and retaken, so two could both win and the loser
 * deleted the winner's daemon.json: a daemon that runs but cannot be found). And a daemon.json
 * corrupted under a live daemon is written again by it within seconds (it used to wedge every
 * client). A handful of trials of a 5-way race here; SOAK=1 runs 200.
 *
 * A trial is fast because the racers are real daemons held at the starting line
 * (fixtures/daemon-at-the-line.mjs): their modules load while the previous trial runs, then one
 * line on each stdin starts all five within a few ms (plus a seeded 0-20 ms jitter, so takeovers
 * overlap in every order). RACE_DAEMON_MAIN=<another checkout's daemon/life/main.ts or dist/daemon/life/main.js>
 * races that code instead; RACE_TRIALS=n sets the number of trials; RACE_OLD_LOCK=1 leaves the
 * crashed lock as the earlier lock library did (an empty directory), for racing code before the fix.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { daemonFacts, liveDaemon, prng, reportFigures, seedFor, SOAK } from '../helpers/fault.js';
import { alive, CLI, DIST, removeDir, ROOT, tempHome, waitFor } from '../helpers/procs.js';

const TRIALS = Number(process.env.RACE_TRIALS) || (SOAK ? 200 : 5);
const RACERS = 5;
/** After the losers left: a second winner (or a loser deleting daemon.json) shows itself within the 1 s lock checks. */
const SETTLE_MS = 1500;
const AT_THE_LINE = join(ROOT, 'test', 'fixtures', 'daemon-at-the-line.mjs');
const homes: string[] = [];
const children: ChildProcess[] = [];
let daemonMain = '';

beforeAll(async () => {
  // One file, as the proxy starts the daemon (dist/daemon/bundle.mjs), but exporting runDaemon.
  const dir = mkdtempSync(join(tmpdir(), 'gb-race-bundle-'));
  homes.push(dir);
  daemonMain = join(dir, 'daemon-main.mjs');
  await build({
    entryPoints: [process.env.RACE_DAEMON_MAIN ?? join(DIST, 'daemon', 'life', 'main.js')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: daemonMain,
    external: ['playwright-core'],
    logLevel: 'error',
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  });
}, 60000);

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
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
  if (!process.env.RACE_OLD_LOCK)
    writeFileSync(join(dir, 'daemon.lock', 'owner.json'), JSON.stringify({ pid, pidStart: 1 }), { mode: 0o600 });
  writeFileSync(
    join(dir, 'daemon.json'),
    JSON.stringify({ pid, port: 1, token: 'x'.repeat(64), version: '0', startedAt: new Date().toISOString() }),
    { mode: 0o600 },
  );
  return home;
}

interface Lineup {
  home: string;
  racers: ChildProcess[];
}

/** `RACERS` daemons for a crashed home, modules loaded, waiting for the start. */
async function lineUp(): Promise<Lineup> {
  const home = crashedHome();
  const env = { ...process.env, GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '60000' };
  const racers = Array.from({ length: RACERS }, () =>
    spawn(process.execPath, [AT_THE_LINE, daemonMain], { env, cwd: home, stdio: ['pipe', 'pipe', 'ignore'] }),
  );
  children.push(...racers);
  await Promise.all(
    racers.map(
      (c) =>
        new Promise<void>((resolve, reject) => {
          c.stdout!.once('data', () => resolve());
          c.once('exit', (code, signal) => reject(new Error(`a racer exited (${code ?? signal}) before the start`)));
        }),
    ),
  );
  return { home, racers };
}

const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/** Racers that died before the start (not judged: the lock had not been tried yet). */
const lostBeforeStart: string[] = [];

/** A line-up; made again (up to twice) when a racer dies before the start. */
async function readyLineUp(): Promise<Lineup> {
  for (let attempt = 0; ; attempt++) {
    const made = lineUp();
    try {
      return await made;
    } catch (e) {
      lostBeforeStart.push(String(e));
      for (const c of children) if (running(c) && c.stdin && !c.stdin.writableEnded) c.kill('SIGKILL');
      if (attempt >= 2) throw e;
    }
  }
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

/** Start the line-up, let it settle, and say what went wrong (undefined: one serves and is found). */
async function trial({ home, racers }: Lineup, jitter: () => number): Promise<string | undefined> {
  for (const c of racers) c.stdin!.end(`${jitter()}\n`);
  await waitFor('the losers to leave', () => racers.filter(running).length <= 1 && !!daemonFacts(home), 20000).catch(
    () => undefined,
  );
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const serving = racers.filter(running);
  const named = daemonFacts(home)?.pid;
  const found = await findable(home);
  const ok = serving.length === 1 && named === serving[0].pid && found;
  for (const c of racers) if (running(c)) c.kill('SIGKILL');
  await waitFor('the racers to end', () => !racers.some(running), 10000);
  const who = serving.map((c) => c.pid).join(', ');
  return ok
    ? undefined
    : `${serving.length} serving (${who}), daemon.json names ${named ?? 'nothing'}, ${found ? '' : 'not '}answering /status`;
}

test(
  `a ${RACERS}-way start over a crashed daemon's lock: one daemon serves and daemon.json names it, ${TRIALS} of ${TRIALS}`,
  async () => {
    const seed = seedFor(11);
    const rnd = prng(seed);
    const wedged: string[] = [];
    const t0 = Date.now();
    let next = readyLineUp();
    for (let i = 0; i < TRIALS; i++) {
      const lineup = await next;
      next = i + 1 < TRIALS ? readyLineUp() : Promise.resolve(lineup); // loads while this trial runs
      next.catch(() => undefined); // awaited (and thrown) at the next trial, not unhandled meanwhile
      const wrong = await trial(lineup, () => (rnd.chance(0.5) ? 0 : rnd.int(0, 20)));
      if (wrong) wedged.push(`trial ${i}: ${wrong}`);
      if (wrong || (i + 1) % 25 === 0)
        reportFigures(
          'start race',
          `after ${i + 1} trials: ${wedged.length} wedged${wrong ? ` (trial ${i}: ${wrong})` : ''}`,
        );
    }
    reportFigures(
      'start race',
      `${TRIALS} trials of a ${RACERS}-way start (seed ${seed}): ${wedged.length} wedged, ${Math.round((Date.now() - t0) / 1000)} s` +
        (lostBeforeStart.length ? `; line-ups made again: ${lostBeforeStart.join('; ')}` : '') +
        (wedged.length ? `\n  ${wedged.join('\n  ')}` : ''),
    );
    expect(wedged).toEqual([]);
  },
  TRIALS > 5 ? TRIALS * 60_000 : 300_000,
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
