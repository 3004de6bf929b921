/**
 * A client that stops reading stdout while its daemon is kill -9'ed between a bump and its ack,
 * or between the ack and the answer: each request still gets exactly one answer, and a bump's
 * answer bigger than 8 KB (its result carries game.bumps) reads as the answer it is.
 */
import { freePort } from '../helpers/ports.js';
import { INIT, INITIALIZED, rawProxy } from '../helpers/raw-proxy.js';
import { liveDaemon, readyStandby, sleep } from '../helpers/fault.js';
import { waitFor, Reaper, removeDir, startExampleGame, stopDaemon, tempHome, waitGone } from '../helpers/procs.js';

const reaper = new Reaper();
let home = '';

afterAll(async () => {
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
});

test('stalled client, kill -9 around a bump: one answer each', async () => {
  home = tempHome('gb-stallkill-');
  const port = await freePort();
  await startExampleGame(reaper, port);
  const p = rawProxy(reaper, { GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '600000' }, [
    '--no-scan',
    '--timeout',
    '120000',
  ]);
  p.send(INIT);
  await p.answer('init', 60000);
  p.send(INITIALIZED);
  // The bump's answer carries game.bumps: many tags make it a line of more than 8 KB, as late in a chaos run.
  for (let i = 0; i < 700; i++) await fetch(`http://127.0.0.1:${port}/command?cmd=bump&tag=seed-${i}`);
  let daemon = await liveDaemon(home);
  reaper.track(daemon.pid);
  const ids: string[] = [];
  const out: string[] = [];
  // The first round has no kill: its bump is answered by the daemon itself, with the big answer.
  for (const [n, delay] of [-1, 0, 5, 30, 100, 300, 800].entries()) {
    if (delay >= 0) reaper.track(await readyStandby(home));
    p.stopReading();
    for (let i = 0; i < 100; i++) {
      const id = `s${n}-r${i}`;
      ids.push(id);
      p.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'call_tool', arguments: { port, name: 'get_state' } },
      });
    }
    const tag = `stalled-${n}`;
    ids.push(tag);
    p.send({
      jsonrpc: '2.0',
      id: tag,
      method: 'tools/call',
      params: { name: 'call_tool', arguments: { port, name: 'bump', arguments: { tag } } },
    });
    await sleep(Math.max(delay, 0));
    if (delay >= 0) await killDaemon();
    const t0 = Date.now();
    p.startReading();
    const res = await p.answer(tag, 250000).catch(() => undefined);
    // read as the chaos soak reads it: the tool result's text
    const text = String(res?.result?.content?.[0]?.text ?? res?.error?.message ?? 'no answer');
    out.push(`${tag} after ${Date.now() - t0} ms: ${text.slice(0, 160)}`);
  }
  async function killDaemon(): Promise<void> {
    void fetch(`http://127.0.0.1:${port}/command?cmd=freeze&ms=800`).catch(() => undefined);
    await sleep(150);
    process.kill(daemon.pid, 'SIGKILL');
    await waitGone(daemon.pid, 5000);
    daemon = await liveDaemon(home, daemon.pid, 30000);
    reaper.track(daemon.pid);
    await sleep(1000);
  }
  await waitFor('every answer', () => ids.every((id) => p.lines.some((l) => l.includes(`"id":"${id}"`))), 120000).catch(
    () => undefined,
  );
  process.stderr.write(`STALLED KILL\n${out.join('\n')}\n`);
  const seen = new Map<string, number>();
  for (const l of p.lines) {
    const id =
      /"id":"(s\d+-r\d+|stalled-\d+)"\}?$/.exec(l)?.[1] ?? /^\{[^{]*"id":"(s\d+-r\d+|stalled-\d+)"/.exec(l)?.[1];
    if (id) seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  expect(ids.filter((id) => seen.get(id) !== 1)).toEqual([]);
  expect(out.filter((l) => !/ms: (\{"port".*"applied":true|CallInterrupted: )/.test(l))).toEqual([]);
}, 600000);
