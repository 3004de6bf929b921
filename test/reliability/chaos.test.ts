/**
 * Chaos soak (docs/RELIABILITY.md section 1): N real MCP clients (SDK Client on the real
 * CLI) make mixed calls against a launched example game while the daemon is kill -9'ed at
 * seeded random moments K times, most of them while the game is stalled (`freeze`), so some
 * unsafe calls are caught in flight between the daemon and the game.
 *
 * Held: every request gets exactly one answer; no unsafe call (`bump {tag: unique}`) is applied
 * twice (counted at the game); a bump answered with success was applied exactly once; no safe
 * call (get_state, wait_for, list_instances) is lost; the launched game survives every kill and
 * is re-adopted. One more client stops reading its stdout for a while before each of its bumps
 * (its proxy then stops reading the daemon's socket, so acks queue in the daemon): still no bump
 * twice, and each of its requests answered exactly once. Figures go to stderr (and
 * docs/RELIABILITY.md).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, connect, gameCall, type McpHandle } from '../helpers/mcp.js';
import { freeRange } from '../helpers/ports.js';
import { alive, CLI, Reaper, removeDir, stopDaemon, tempHome, waitFor, waitGone } from '../helpers/procs.js';
import {
  readyStandby,
  servingDaemonsOf,
  gameState,
  liveDaemon,
  prng,
  reapAndReport,
  reportFigures,
  SOAK,
  seedFor,
  sleep,
} from '../helpers/fault.js';
import { writeProject } from '../helpers/project.js';
import { INIT, INITIALIZED, rawProxy } from '../helpers/raw-proxy.js';

const run = promisify(execFile);
const CLIENTS = SOAK ? 10 : 4;
const KILLS = SOAK ? 20 : 3;
const SEED = seedFor(0xc4a05);

const TIMEOUT = SOAK ? 30 * 60_000 : 150_000;
/** get_state calls a stalled client leaves unread before each of its bumps (answers pile up behind the pipe) */
const STALLED_READS = SOAK ? 300 : 100;

interface Tally {
  requests: number;
  safe: number;
  unsafe: number;
  interrupted: number;
  lostSafe: string[];
  unexpected: string[];
  duplicateAnswers: number;
  /** requests of the stalled client answered more than once, or never */
  stalledAnswers: string[];
}

/** The whole soak for one way of coming back: `extraEnv` is the clients' (and so the daemon's) environment. */
function chaosSuite(mode: string, extraEnv: Record<string, string>): void {
  let home: string;
  const handles: McpHandle[] = [];
  const started = new Set<number>();
  const rawReaper = new Reaper();

  afterAll(async () => {
    if (!home) return;
    for (const h of handles) await h.close();
    await rawReaper.reap();
    stopDaemon(home); // done by the test itself when it passes; here for the paths where it did not
    const left = await reapAndReport(home, started);
    removeDir(home);
    expect(left).toEqual([]); // suite 5: nothing it started outlives it (after `stop`)
  });

  test(
    `chaos (${mode}): ${CLIENTS} clients × mixed calls while the daemon is kill -9'ed ${KILLS} times`,
    async () => {
      home = tempHome('gb-chaos-');
      const env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '600000', ...extraEnv };
      const ports = await freeRange(2);
      const project = writeProject(join(home, 'project'), { ports }).root;
      const rnd = prng(SEED);

      for (let i = 0; i < CLIENTS; i++) {
        const h = await connect({ env, cwd: project, name: `chaos-${i}` });
        handles.push(h);
        if (h.pid) started.add(h.pid);
      }
      const launched = await call(handles[0], 'launch_instance', {}, 60000);
      expect(launched.isError ? launched.text : 'ok').toBe('ok');
      const port = launched.json.port as number;
      const gamePid = launched.json.pid as number;
      started.add(gamePid);

      const tally: Tally = {
        requests: 0,
        safe: 0,
        unsafe: 0,
        interrupted: 0,
        lostSafe: [],
        unexpected: [],
        duplicateAnswers: 0,
        stalledAnswers: [],
      };
      /** tag → what its caller was told */
      const bumps = new Map<string, 'ok' | 'interrupted' | 'error'>();
      for (const h of handles) {
        // The SDK reports a response whose id it no longer waits for: a second answer to one request.
        h.client.onerror = (e) => {
          if (/unknown message ID/i.test(String(e))) tally.duplicateAnswers++;
        };
      }

      let stopping = false;
      const worker = async (h: McpHandle, idx: number) => {
        const r = prng(SEED + 1 + idx);
        let n = 0;
        let lastOk: string | undefined;
        while (!stopping) {
          const kind = r.next();
          tally.requests++;
          if (kind < 0.45) {
            const tag = `c${idx}-${n++}`;
            tally.unsafe++;
            bumps.set(tag, 'error');
            const res = await gameCall(h, port, 'bump', { tag }, 120000).catch((e) => ({
              isError: true,
              text: String(e),
              json: undefined,
            }));
            if (!res.isError) {
              bumps.set(tag, 'ok');
              lastOk = tag;
            } else if (/^CallInterrupted: /.test(res.text)) {
              bumps.set(tag, 'interrupted');
              tally.interrupted++;
            } else tally.unexpected.push(`bump ${tag}: ${res.text.slice(0, 200)}`);
          } else {
            tally.safe++;
            const which = kind < 0.7 ? 'get_state' : kind < 0.9 ? 'wait_for' : 'list_instances';
            const res =
              which === 'get_state'
                ? await gameCall(h, port, 'get_state', { path: 'game.bumps' }, 120000).catch((e) => ({
                    isError: true,
                    text: String(e),
                  }))
                : which === 'wait_for'
                  ? await gameCall(
                      h,
                      port,
                      'wait_for',
                      lastOk
                        ? { path: `game.bumps.${lastOk}`, equals: 1, timeoutMs: 10000 }
                        : { path: 'game.score', exists: true, timeoutMs: 10000 },
                      120000,
                    ).catch((e) => ({ isError: true, text: String(e) }))
                  : await call(h, 'list_instances', { scan: false }, 120000).catch((e) => ({
                      isError: true,
                      text: String(e),
                    }));
            if (res.isError) tally.lostSafe.push(`${which}: ${res.text.slice(0, 200)}`);
          }
          await sleep(r.int(0, 40));
        }
      };

      // A client that stops reading stdout for a while (a busy or suspended agent): its proxy stops
      // reading the daemon's socket, acks queue up in the daemon, and the kills below may land then.
      // Its bumps must still be applied at most once, and each of its requests answered exactly once.
      const stalled = rawProxy(rawReaper, env, ['--no-scan', '--timeout', '120000']);
      stalled.send(INIT);
      await stalled.answer('init', 60000);
      stalled.send(INITIALIZED);
      const stalledWorker = async () => {
        const r = prng(SEED + 999);
        const ids: string[] = [];
        for (let n = 0; !stopping; n++) {
          stalled.stopReading();
          for (let i = 0; i < STALLED_READS; i++) {
            const id = `s${n}-r${i}`;
            ids.push(id);
            stalled.send({
              jsonrpc: '2.0',
              id,
              method: 'tools/call',
              params: { name: 'call_tool', arguments: { port, name: 'get_state' } },
            });
          }
          const tag = `stalled-${n}`;
          tally.unsafe++;
          tally.requests += STALLED_READS + 1;
          bumps.set(tag, 'error');
          ids.push(tag);
          stalled.send({
            jsonrpc: '2.0',
            id: tag,
            method: 'tools/call',
            params: { name: 'call_tool', arguments: { port, name: 'bump', arguments: { tag } } },
          });
          await sleep(r.int(500, 1500));
          stalled.startReading();
          const res = await stalled.answer(tag, 120000).catch(() => undefined);
          const text = String(res?.result?.content?.[0]?.text ?? res?.error?.message ?? 'no answer');
          if (res?.result && !res.result.isError) bumps.set(tag, 'ok');
          else if (/^CallInterrupted: /.test(text)) {
            bumps.set(tag, 'interrupted');
            tally.interrupted++;
          } else tally.unexpected.push(`stalled bump ${tag}: ${text.slice(0, 200)}`);
          await sleep(r.int(500, 1500)); // room for the other clients
        }
        // Every request of the stalled client answered exactly once.
        await waitFor(
          'every answer of the stalled client',
          () => ids.every((id) => stalled.lines.some((l) => l.includes(`"id":"${id}"`))),
          120000,
        ).catch(() => undefined);
        const seen = new Map<string, number>();
        for (const l of stalled.lines) {
          const id =
            /"id":"(s\d+-r\d+|stalled-\d+)"\}?$/.exec(l)?.[1] ?? /^\{[^{]*"id":"(s\d+-r\d+|stalled-\d+)"/.exec(l)?.[1];
          if (id) seen.set(id, (seen.get(id) ?? 0) + 1);
        }
        for (const id of ids)
          if ((seen.get(id) ?? 0) !== 1) tally.stalledAnswers.push(`${id}: answered ${seen.get(id) ?? 0} times`);
      };

      const workers = [...handles.map((h, i) => worker(h, i)), stalledWorker()];
      let daemon = await liveDaemon(home);
      started.add(daemon.pid);
      const daemonsKilled: number[] = [];
      const withStandby = extraEnv.GAME_BRIDGE_STANDBY !== '0';
      let standbyTakeovers = 0;
      for (let k = 0; k < KILLS; k++) {
        // with a standby, each kill comes once one is ready: every successor is a standby taking over
        const standby = withStandby ? await readyStandby(home) : undefined;
        if (standby) started.add(standby);
        await sleep(rnd.int(300, 1500));
        // Most kills land while the game is stalled, so unsafe calls are caught after the daemon
        // sent them to the game and before it answered: the window where a re-send would double-apply.
        if (rnd.chance(0.75)) {
          void fetch(`http://127.0.0.1:${port}/command?cmd=freeze&ms=${rnd.int(600, 1200)}`).catch(() => undefined);
          await sleep(rnd.int(150, 400));
        }
        try {
          process.kill(daemon.pid, 'SIGKILL');
          daemonsKilled.push(daemon.pid);
        } catch {
          // it left on its own meanwhile (a lock-takeover loser): the next one is killed instead
          k--;
        }
        await waitGone(daemon.pid, 5000);
        expect(alive(gamePid)).toBe(true); // the game outlives every crash
        daemon = await liveDaemon(home, daemon.pid, 30000);
        started.add(daemon.pid);
        if (standby && daemon.pid === standby) standbyTakeovers++;
      }
      if (withStandby) expect(standbyTakeovers).toBe(KILLS);
      await sleep(1000); // let calls flow on the last daemon
      stopping = true;
      await Promise.all(workers);

      // exactly-once at the game
      const counted = (await gameState(port)).game.bumps;
      const duplicates: string[] = [];
      const missing: string[] = [];
      for (const [tag, told] of bumps) {
        const n = counted[tag] ?? 0;
        if (n > 1) duplicates.push(`${tag}×${n} (${told})`);
        if (told === 'ok' && n !== 1) missing.push(`${tag}: told ok, applied ${n}`);
      }
      for (const tag of Object.keys(counted)) if (!bumps.has(tag)) duplicates.push(`${tag}: never sent`);

      // the game survived and was re-adopted by the last daemon
      expect(alive(gamePid)).toBe(true);
      const status = JSON.parse(
        (await run(process.execPath, [CLI, 'status', '--json'], { env: { ...process.env, ...env } })).stdout,
      ) as { pid: number; instances: Array<{ port: number; pid: number }> };
      expect(status.pid).toBe(daemon.pid);
      expect(status.instances.map((i) => i.port)).toContain(port);
      // one home, one daemon: every loser of a lock race has gone
      // (a standby, once ready and named in daemon.json, is not a second daemon)
      const serving = () => servingDaemonsOf(home);
      await waitFor('one daemon for the home', () => serving().length === 1, 15000).catch(() => undefined);
      expect(serving()).toEqual([daemon.pid]);

      const figures = {
        mode,
        standbyTakeovers,
        seed: SEED,
        clients: CLIENTS,
        kills: KILLS,
        requests: tally.requests,
        safe: tally.safe,
        unsafe: tally.unsafe,
        interrupted: tally.interrupted,
        appliedOk: [...bumps.values()].filter((v) => v === 'ok').length,
        duplicates: duplicates.length,
        duplicateAnswers: tally.duplicateAnswers,
        stalledAnswersWrong: tally.stalledAnswers.length,
        lostSafe: tally.lostSafe.length,
        unexpected: tally.unexpected.length,
      };
      reportFigures('CHAOS FIGURES', JSON.stringify(figures));
      expect(duplicates).toEqual([]);
      expect(missing).toEqual([]);
      expect(tally.lostSafe).toEqual([]);
      expect(tally.unexpected).toEqual([]);
      expect(tally.duplicateAnswers).toBe(0);
      expect(tally.stalledAnswers).toEqual([]);
      expect(tally.requests).toBeGreaterThan(CLIENTS * KILLS);

      // `stop` reaps the launched game: nothing survives the suite
      await run(process.execPath, [CLI, 'stop'], { env: { ...process.env, ...env } });
      expect(await waitGone(gamePid, 15000)).toBe(true);
    },
    TIMEOUT,
  );
}

describe('default: a light standby takes over', () => chaosSuite('light standby', {}));
describe('warm standby (GAME_BRIDGE_STANDBY=1)', () => chaosSuite('warm standby', { GAME_BRIDGE_STANDBY: '1' }));
describe('no standby (GAME_BRIDGE_STANDBY=0): the proxy starts the successor', () =>
  chaosSuite('no standby', { GAME_BRIDGE_STANDBY: '0' }));
