/**
 * 13. Resource subscriptions through proxy+daemon: how many `notifications/resources/updated` a
 * subscriber gets while a 60 fps Crate Stack's state changes on every frame (a round running;
 * the watch lets at most 4 a second through), and the daemon's CPU per idle subscription (paused
 * games whose state does not change), against the same daemon with no subscription.
 */
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpuMs } from './cpu.js';
import { connectMcp, daemonPid, freeRange, round, sleep, startGame, type Reaper } from './harness.js';
import type { BenchConfig, Measurement } from './types.js';

export async function measureResources(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-resources-');
  const games = cfg.quick ? 2 : 5;
  const ports = await freeRange(games);
  for (const port of ports) await startGame(r, port, home, ['--fps', '60']);
  const mcp = await connectMcp(r, 'proxy', home);
  const updates = new Map<string, number>();
  mcp.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.set(n.params.uri, (updates.get(n.params.uri) ?? 0) + 1);
  });
  const uri = (port: number) => `gamebridge://game/${port}/state`;

  // A running round: simFrame (and so the state) changes on every one of the 60 frames a second.
  const busy = ports[0];
  await mcp.call('call_tool', { port: busy, name: 'start' });
  await mcp.client.subscribeResource({ uri: uri(busy) });
  await sleep(1000);
  const busySeconds = cfg.quick ? 5 : 20;
  const before = updates.get(uri(busy)) ?? 0;
  await sleep(busySeconds * 1000);
  const perSecond = ((updates.get(uri(busy)) ?? 0) - before) / busySeconds;
  await mcp.client.unsubscribeResource({ uri: uri(busy) });
  await mcp.call('call_tool', { port: busy, name: 'pause' }); // Crate Stack's own pause: PausedScreen, simFrame stops

  // Idle: every game paused (its frame grows, nothing else changes). The daemon with no
  // subscription, then with one per game, then with none again: the two bare windows are its
  // baseline, so a drift in the machine's load shows in both.
  for (const port of ports.slice(1)) await mcp.call('call_tool', { port, name: 'start' });
  for (const port of ports.slice(1)) await mcp.call('call_tool', { port, name: 'pause' });
  const daemon = daemonPid(home)!;
  const windowS = cfg.quick ? 10 : 60;
  const cpuOver = async (seconds: number) => {
    const t0 = cpuMs(daemon);
    await sleep(seconds * 1000);
    return cpuMs(daemon) - t0;
  };
  await sleep(5000);
  const bareA = await cpuOver(windowS / 2);
  for (const port of ports) await mcp.client.subscribeResource({ uri: uri(port) });
  await sleep(2000);
  const seenBefore = [...updates.values()].reduce((a, b) => a + b, 0);
  const idleSubs = await cpuOver(windowS);
  const idleUpdates = [...updates.values()].reduce((a, b) => a + b, 0) - seenBefore;
  for (const port of ports) await mcp.client.unsubscribeResource({ uri: uri(port) });
  await sleep(2000);
  const idleNone = bareA + (await cpuOver(windowS / 2));
  await mcp.close();

  const perMinute = (msInWindow: number) => (msInWindow * 60) / windowS;
  const perSub = (perMinute(idleSubs) - perMinute(idleNone)) / games;
  return {
    name: 'resources',
    figures: {
      updatesPerSecondAt60fps: round(perSecond, 2),
      busySeconds,
      idleWindowS: windowS,
      subscriptions: games,
      daemonCpuMsPerMinuteNoSubscription: round(perMinute(idleNone), 0),
      daemonCpuMsPerMinuteWithSubscriptions: round(perMinute(idleSubs), 0),
      daemonCpuMsPerMinutePerIdleSubscription: round(perSub, 0),
      updatesWhileIdle: idleUpdates,
    },
    rows: [
      {
        id: '13 resources',
        what: 'updates/s to a subscriber, 60 fps state changing every frame',
        value: `${round(perSecond, 2)}/s`,
        target: '≤ 4/s',
        met: perSecond <= 4,
      },
      {
        id: '13 resources',
        what: `daemon CPU per idle subscription (${games} paused games, ${windowS} s)`,
        value: `${round(perSub, 0)} ms/min`,
        reference: `${round(perMinute(idleNone), 0)} ms/min with none`,
        met: null,
      },
      {
        id: '13 resources',
        what: 'updates while idle',
        value: String(idleUpdates),
        target: '0',
        met: idleUpdates === 0,
      },
    ],
  };
}
