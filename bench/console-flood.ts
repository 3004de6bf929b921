/**
 * A chatty page: a web-kit page that writes about 3,000 console lines a second (three
 * arguments each, one of them an object) runs for a while in a daemon of its own. The daemon's
 * RSS before the page, then every few seconds while it logs, and the size of the game's log at
 * the end; the reference is the same daemon with the same page logging nothing.
 */
import { copyFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMcp, daemonPid, DIST, freeRange, round, rssMb, sleep, waitFor, type Reaper } from './harness.js';
import type { BenchConfig, Measurement } from './types.js';

/** Lines per burst, one burst every 10 ms: about 3,000 a second. */
const LINES_PER_BURST = 30;

function writePage(dir: string, port: number, chatty: boolean): string {
  const www = join(dir, chatty ? 'chatty' : 'quiet', 'www');
  mkdirSync(www, { recursive: true });
  copyFileSync(join(DIST, 'web', 'gamebridge.js'), join(www, 'gamebridge.js'));
  writeFileSync(
    join(www, 'index.html'),
    `<!doctype html><title>Chatty</title><script type="module">
import { createGameSurface } from './gamebridge.js';
const s = createGameSurface({ name: 'Chatty', version: '1', snapshot: () => ({}) });
s.listen();
(function f() { s.tick(); requestAnimationFrame(f); })();
let n = 0;
${chatty ? `setInterval(() => { for (let i = 0; i < ${LINES_PER_BURST}; i++) console.log('line', n++, { at: n, pad: 'x'.repeat(80) }); }, 10);` : ''}
</script>`,
  );
  const config = join(dir, chatty ? 'chatty' : 'quiet', 'gamebridge.json');
  writeFileSync(
    config,
    JSON.stringify({
      name: 'Chatty',
      launch: { portRange: `${port}-${port}`, readyTimeoutMs: 120000, web: { static: 'www' } },
    }),
  );
  return config;
}

/** The daemon's RSS every `stepS` seconds for `seconds` after the page is up, and the log's size then. */
async function run(r: Reaper, dir: string, port: number, chatty: boolean, seconds: number) {
  const home = r.home('gb-bench-flood-');
  const mcp = await connectMcp(r, 'proxy', home, [], dir);
  await mcp.call('list_instances');
  const dpid = await waitFor('daemon', () => daemonPid(home), 10000);
  r.track(dpid);
  await sleep(500);
  const before = rssMb(dpid).rss;
  const inst = await mcp.call('launch_instance', { config: writePage(dir, port, chatty) });
  const samples: number[] = [];
  const stepS = 5;
  for (let t = 0; t < seconds; t += stepS) {
    await sleep(stepS * 1000);
    samples.push(round(rssMb(dpid).rss, 0));
  }
  // the daemon still answers while the page logs: the time one list_instances takes
  const t0 = performance.now();
  await mcp.call('list_instances');
  const listMs = round(performance.now() - t0, 1);
  const logs = join(home, 'logs');
  const logBytes = readdirSync(logs)
    .filter((f) => f.startsWith(`instance-${inst.port}-`))
    .reduce((sum, f) => sum + statSync(join(logs, f)).size, 0);
  await mcp.call('stop_instance', { port: inst.port });
  await mcp.close();
  await r.stopDaemon(home);
  return { before: round(before, 0), samples, peak: Math.max(...samples), logMb: round(logBytes / 1e6, 1), listMs };
}

export async function measureConsoleFlood(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const dir = r.tempDir('gb-bench-flood-proj-');
  const [port] = await freeRange(1);
  const seconds = cfg.quick ? 10 : 30;
  const quiet = await run(r, dir, port, false, seconds);
  const chatty = await run(r, dir, port, true, seconds);
  return {
    name: 'console-flood',
    figures: { seconds, linesPerSecond: LINES_PER_BURST * 100, quiet, chatty },
    rows: [
      {
        id: 'console flood',
        what: `daemon RSS after ${seconds} s of a page logging ~${LINES_PER_BURST * 100} lines/s (MB; before ${chatty.before})`,
        value: `${chatty.samples[chatty.samples.length - 1]} (peak ${chatty.peak})`,
        reference: `${quiet.samples[quiet.samples.length - 1]} (quiet page)`,
        met: null,
      },
      {
        id: 'console flood',
        what: "the game's log on disk after the flood (MB, with its kept previous file)",
        value: String(chatty.logMb),
        reference: String(quiet.logMb),
        met: null,
      },
      {
        id: 'console flood',
        what: 'one list_instances while the page logs (ms)',
        value: String(chatty.listMs),
        reference: String(quiet.listMs),
        met: null,
      },
    ],
  };
}
