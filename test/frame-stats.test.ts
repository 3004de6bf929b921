/**
 * frame_stats through the real proxy and daemon, on every kit example that runs here (the list
 * of test/kits/examples.ts: Node, a kit page, Python, pygame, Godot 3, LÖVE, C#): a frame held
 * 50 ms on purpose (`frames.stall` at frame k) is listed as long with frame k. A game that serves
 * no GET /frames is answered CapabilityMissing with what to do.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gameCall, type McpHandle } from './helpers/mcp.js';
import { pairSuite } from './helpers/pair.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/procs.js';
import { KIT_EXAMPLES, type Running } from './kits/examples.js';
import { command, getJson } from './kits/kit-game.js';

const CI = process.env.CI === 'true';

describe('frame_stats', () => {
  const suite = pairSuite('gb-frames-', {}, 'describe');
  let h: McpHandle;

  beforeAll(async () => {
    h = await suite.open();
  }, 60000);

  for (const kit of KIT_EXAMPLES) {
    const missing = kit.missing();
    if (missing && !CI) {
      test.skip(`${kit.kit}: ${missing}`, () => undefined);
      continue;
    }
    test(
      `${kit.kit}: a frame held 50 ms at frame k is a long frame k`,
      async () => {
        if (missing) throw new Error(`${kit.kit}: ${missing}; under CI every kit runs`);
        const port = await freePort();
        let game: Running | undefined;
        try {
          game = await kit.start(suite.reaper, port, suite.home);
          const k = (await getJson(port, '/health')).frame + 30;
          expect(await command(port, 'frames.stall', { ms: 50, frame: k })).toMatchObject({ accepted: true });
          await waitFor(`frame ${k + 2}`, async () => (await getJson(port, '/health')).frame > k + 2, 30000, 5);
          const r = await gameCall(h, port, 'frame_stats', { since: k - 5 });
          expect(r.isError).toBe(false);
          expect(r.json).toMatchObject({ tool: 'frame_stats', measure: 'real time', from: k - 4 });
          const long = r.json.longFrames.find((f: any) => f.frame === k);
          expect(long).toMatchObject({ frame: k, ms: expect.any(Number) });
          expect(long.ms).toBeGreaterThanOrEqual(50);
          expect(r.json.max).toBeGreaterThanOrEqual(50);
          if (process.env.FRAME_STATS_SHOW) console.log(kit.kit, JSON.stringify(r.json));
        } finally {
          await game?.stop();
        }
      },
      kit.readyMs + 60000,
    );
  }

  test('a game that serves no GET /frames: CapabilityMissing naming the route and what to do', async () => {
    const server = http.createServer((req, res) => {
      const body = req.url === '/health' ? { ok: true, frame: 1 } : req.url === '/state' ? { frame: 1 } : null;
      res.writeHead(body ? 200 : 404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body ?? { error: 'not found' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const r = await gameCall(h, port, 'frame_stats', {});
      expect(r.isError).toBe(true);
      expect(r.json).toMatchObject({ kind: 'CapabilityMissing', capability: 'frames', tool: 'frame_stats' });
      expect(r.text).toMatch(/^CapabilityMissing: The game on port \d+ does not serve GET \/frames.*kit/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('frames and since together are a usage error', async () => {
    const port = await freePort();
    const game = await KIT_EXAMPLES[0].start(suite.reaper, port, suite.home);
    try {
      await waitFor('20 frames', async () => (await getJson(port, '/health')).frame > 20, 30000, 5);
      const r = await gameCall(h, port, 'frame_stats', { frames: 10, since: 3 });
      expect(r.text).toMatch(/^BridgeUsageError: frame_stats: give frames/);
      const last = await gameCall(h, port, 'frame_stats', { frames: 10 });
      expect(last.json.frames).toBe(10);
    } finally {
      await game.stop();
    }
  }, 60000);
});
