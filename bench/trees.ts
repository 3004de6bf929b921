/**
 * 12. Seeing what is on screen, through proxy+daemon: `snapshot` of a 50-node UI beside
 * `get_state` of the same game in interleaved blocks (what reading the tree adds); the length
 * of the unchanged answer; the text form's characters against the same tree as JSON; `click`
 * to answer on a 60 fps game (a command confirmed by command sync); and `snapshot` of the
 * Phaser example's page, whose tree comes from Chromium's accessibility tree. The game is the
 * tests' tree fixture (test/fixtures/tree-game.mjs), which serves /ui and /world by hand.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMcp, DIST, freeRange, healthOk, now, pct, round, waitFor, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

const FRAME_MS = 1000 / 60;
const TREE_GAME = join(DIST, '..', 'test', 'fixtures', 'tree-game.mjs');
/** the fixture's own nodes (8, one of them hidden) plus these make a UI of 50 shown nodes */
const EXTRA_NODES = 43;

export async function measureTrees(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-trees-');
  const [port, webFirst] = await freeRange(2);
  r.spawn(process.execPath, [TREE_GAME, '--port', String(port), '--nodes', String(EXTRA_NODES)], {
    env: { ...process.env, GAME_BRIDGE_HOME: home },
  });
  await waitFor('tree game', () => healthOk(port), 15000, 50);
  const dir = r.tempDir('gb-bench-treesproj-');
  writeFileSync(
    join(dir, 'gamebridge.json'),
    JSON.stringify({
      name: 'Star Catcher',
      launch: {
        portRange: `${webFirst}-${webFirst}`,
        readyTimeoutMs: 120000,
        web: { static: join(DIST, 'examples', 'phaser-game', 'www') },
      },
    }),
  );
  const mcp = await connectMcp(r, 'proxy', home, [], dir);
  const raw = async (name: string, args: Record<string, unknown> = {}, at = port) =>
    (await mcp.client.callTool({ name: 'call_tool', arguments: { port: at, name, arguments: args } })) as {
      content: { type: string; text?: string }[];
      structuredContent: Record<string, any>;
    };
  const n = cfg.quick ? 60 : 300;
  for (let i = 0; i < 30; i++) await Promise.all([raw('snapshot'), raw('get_state')]);

  // interleaved blocks, alternating which goes first
  const sides: Record<'snapshot' | 'get_state', number[]> = { snapshot: [], get_state: [] };
  for (let block = 0; sides.snapshot.length < n; block++) {
    const order: Array<'snapshot' | 'get_state'> = block % 2 ? ['get_state', 'snapshot'] : ['snapshot', 'get_state'];
    for (const side of order)
      for (let i = 0; i < 25; i++) {
        const t = now();
        await raw(side);
        sides[side].push(now() - t);
      }
  }
  const snap = await raw('snapshot');
  const nodes = snap.structuredContent.nodes as unknown[];
  const count = (list: any[]): number => list.reduce((k, x) => k + 1 + count(x.children ?? []), 0);
  const text = snap.content[0].text ?? '';
  const json = JSON.stringify(nodes);
  const unchanged = (await raw('snapshot', { since: snap.structuredContent.snapshot.revision })).content[0].text ?? '';

  // click beside the command confirmation it is made of (raw_command of a no-op), alternating
  const clicks: number[] = [];
  const commands: number[] = [];
  for (let i = 0; i < Math.max(50, cfg.commands); i++) {
    for (const [list, name, args] of (i % 2
      ? [
          [commands, 'raw_command', { cmd: 'noop' }],
          [clicks, 'click', { ref: 'start' }],
        ]
      : [
          [clicks, 'click', { ref: 'start' }],
          [commands, 'raw_command', { cmd: 'noop' }],
        ]) as Array<[number[], string, Record<string, unknown>]>) {
      const t = now();
      await raw(name, args);
      list.push(now() - t);
    }
  }

  let phaser: number[] = [];
  let phaserNodes = 0;
  let phaserRatio = NaN;
  let phaserNote = '';
  try {
    const inst = await mcp.call('launch_instance');
    for (let i = 0; i < 10; i++) await raw('snapshot', {}, inst.port as number);
    for (let i = 0; i < (cfg.quick ? 20 : 100); i++) {
      const t = now();
      const s = await raw('snapshot', {}, inst.port as number);
      phaser.push(now() - t);
      phaserNodes = count(s.structuredContent.nodes ?? []);
      phaserRatio = (s.content[0].text ?? '').length / JSON.stringify(s.structuredContent.nodes ?? []).length;
    }
    await mcp.call('stop_instance', { port: inst.port });
  } catch (e) {
    phaser = [];
    phaserNote = `not measured: ${(e as Error).message.split('\n')[0]}`;
  }
  await mcp.close();

  const snapP50 = pct(sides.snapshot, 50);
  const stateP50 = pct(sides.get_state, 50);
  const added = snapP50 - stateP50;
  const ratio = text.length / json.length;
  const clickP50 = pct(clicks, 50);
  const rows: Measurement['rows'] = [
    {
      id: '12 trees',
      what: `snapshot of a ${count(nodes)}-node UI p50 (n=${sides.snapshot.length})`,
      value: ms(snapP50, 3),
      reference: `get_state ${ms(stateP50, 3)}`,
      vs: `${added >= 0 ? '+' : ''}${ms(added, 3)}`,
      target: 'added ≤ 5 ms',
      met: added <= 5,
    },
    {
      id: '12 trees',
      what: 'snapshot {since: current revision}: the answer',
      value: `${unchanged.length} characters`,
      target: '≤ 120',
      met: unchanged.length <= 120,
    },
    {
      id: '12 trees',
      what: 'snapshot text vs the same tree as JSON',
      value: `${text.length} characters`,
      reference: `JSON ${json.length}`,
      vs: `${Math.round(ratio * 100)}%`,
      target: '≤ 40%',
      met: ratio <= 0.4,
    },
    {
      id: '12 trees',
      what: "the same on the Phaser page's browser tree (boxes on every node)",
      value: Number.isFinite(phaserRatio) ? `${Math.round(phaserRatio * 100)}%` : 'not measured',
      target: '≤ 40%',
      met: Number.isFinite(phaserRatio) ? phaserRatio <= 0.4 : null,
    },
    {
      id: '12 trees',
      what: `click to answer on a 60 fps game p50 / p99 (n=${clicks.length})`,
      value: `${ms(clickP50)} / ${ms(pct(clicks, 99))}`,
      reference: `raw_command ${ms(pct(commands, 50))}`,
      vs: `${clickP50 - pct(commands, 50) >= 0 ? '+' : ''}${ms(clickP50 - pct(commands, 50))}`,
      target: `≤ 1 frame + 5 ms (${ms(FRAME_MS + 5, 1)})`,
      met: clickP50 <= FRAME_MS + 5,
    },
    phaser.length
      ? {
          id: '12 trees',
          what: `snapshot of the Phaser page (browser tree, ${phaserNodes} nodes) p50 / p99 (n=${phaser.length})`,
          value: `${ms(pct(phaser, 50))} / ${ms(pct(phaser, 99))}`,
          target: '≤ 30 ms',
          met: pct(phaser, 50) <= 30,
        }
      : { id: '12 trees', what: 'snapshot of the Phaser page', value: phaserNote, met: null },
  ];
  return {
    name: 'trees',
    figures: {
      snapshot: { p50: round(snapP50, 3), p99: round(pct(sides.snapshot, 99), 3), nodes: count(nodes) },
      getState: { p50: round(stateP50, 3), p99: round(pct(sides.get_state, 99), 3) },
      unchangedChars: unchanged.length,
      textChars: text.length,
      jsonChars: json.length,
      click: { p50: round(clickP50), p99: round(pct(clicks, 99)), n: clicks.length },
      rawCommand: { p50: round(pct(commands, 50)), p99: round(pct(commands, 99)) },
      phaserTextVsJson: round(phaserRatio),
      phaser: phaser.length
        ? { p50: round(pct(phaser, 50)), p99: round(pct(phaser, 99)), nodes: phaserNodes }
        : phaserNote,
    },
    rows,
  };
}
