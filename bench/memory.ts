/**
 * 7. Memory (VmRSS from /proc/<pid>/status): the proxy of a connected, idle client; the daemon
 * idle (fresh, one session, no games) and with N games launched through launch_instance (then
 * one get_state each, so every game has its client and cached manifest).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMcp, daemonPid, freeRange, GAME, rssMb, round, sleep, waitFor, type Reaper } from './harness.js';
import { type BenchConfig, type Measurement } from './types.js';

const mb = (v: number) => `${v.toFixed(1)} MB`;

export async function measureMemory(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-mem-');
  const project = r.tempDir('gb-bench-proj-');
  const range = await freeRange(cfg.memoryGames + 10);
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify({
      name: 'crate-stack-bench',
      launch: {
        command: `${process.execPath} ${GAME} --port {port}`,
        portRange: `${range[0]}-${range[range.length - 1]}`,
      },
    }),
  );
  const client = await connectMcp(r, 'proxy', home, [], project);
  await client.client.listTools();
  await client.call('list_instances');
  const dpid = await waitFor('daemon', () => daemonPid(home), 10000);
  r.track(dpid);
  await sleep(1000);
  const proxyIdle = rssMb(client.pid);
  const daemonIdle = rssMb(dpid);

  const ports: number[] = [];
  for (let i = 0; i < cfg.memoryGames; i += 4) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(4, cfg.memoryGames - i) }, async () => {
        const inst = await client.call('launch_instance');
        r.track(inst.pid as number);
        return inst.port as number;
      }),
    );
    ports.push(...batch);
  }
  for (const port of ports) await client.call('call_tool', { port, name: 'get_state' });
  await sleep(1000);
  const daemonLoaded = rssMb(dpid);
  const proxyLoaded = rssMb(client.pid);
  for (const port of ports) await client.call('stop_instance', { port }).catch(() => undefined);
  await client.close();
  await r.stopDaemon(home);

  return {
    name: 'memory',
    figures: {
      proxyIdleMb: round(proxyIdle.rss, 1),
      proxyAfterGamesMb: round(proxyLoaded.rss, 1),
      proxyPeakMb: round(proxyLoaded.hwm, 1),
      daemonIdleMb: round(daemonIdle.rss, 1),
      daemonWithGamesMb: round(daemonLoaded.rss, 1),
      daemonPeakMb: round(daemonLoaded.hwm, 1),
      games: ports.length,
    },
    rows: [
      {
        id: '7 memory',
        what: 'proxy RSS, connected idle client',
        value: mb(proxyIdle.rss),
        vs: `after games ${mb(proxyLoaded.rss)}`,
        target: '≤ 45 MB',
        met: Math.max(proxyIdle.rss, proxyLoaded.rss) <= 45,
      },
      {
        id: '7 memory',
        what: 'daemon RSS idle',
        value: mb(daemonIdle.rss),
        target: '≤ 120 MB',
        met: daemonIdle.rss <= 120,
      },
      {
        id: '7 memory',
        what: `daemon RSS, ${ports.length} launched games`,
        value: mb(daemonLoaded.rss),
        vs: `peak ${mb(daemonLoaded.hwm)}`,
        target: '≤ 120 MB',
        met: daemonLoaded.rss <= 120,
      },
    ],
  };
}
