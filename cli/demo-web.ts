/**
 * `game-bridge-mcp demo --web` (`npm run demo -- --web`): the Phaser example (Star Catcher)
 * launched in headless Chromium through a real MCP client, played with a few moves (a manifest
 * tool, a key held through the browser, a kit input pressed on a paused clock), seen in a
 * screenshot saved to disk (the path is printed), then stopped. Every line is a real answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VERSION } from '../shared/version.js';
import { demoEnding, DIST, openDemoClient, StepFailed, stderrTail, type DemoClient, type Json } from './demo-client.js';

export interface WebDemoOptions {
  portRange?: string;
  noDaemon?: boolean;
  /** where the screenshot goes (default: star-catcher.png in a new private folder under the temp folder) */
  screenshot?: string;
  out?: (line: string) => void;
}

const WWW = join(DIST, 'examples', 'phaser-game', 'www');

export async function runWebDemo(opts: WebDemoOptions = {}): Promise<number> {
  const out = opts.out ?? ((l: string) => process.stdout.write(l + '\n'));
  const project = mkdtempSync(join(tmpdir(), 'game-bridge-demo-web-'));
  // A folder of its own (mode 0700) by default: a fixed name in the shared temp folder is one
  // another user could plant a link at first.
  const shotFile = resolve(
    opts.screenshot ?? join(mkdtempSync(join(tmpdir(), 'game-bridge-demo-shot-')), 'star-catcher.png'),
  );
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify(
      {
        name: 'Star Catcher',
        launch: {
          portRange: opts.portRange ?? '7820-7839',
          readyTimeoutMs: 90000,
          web: { static: WWW, headless: true },
        },
      },
      null,
      2,
    ),
  );
  let step = 0;
  let port: number | undefined;
  let c: DemoClient | undefined;
  const say = (line: string) => out(`${String(++step).padStart(2)}. ${line}`);
  try {
    out(
      `game-bridge-mcp ${VERSION} demo --web: an MCP client plays the Phaser example (Star Catcher) in headless Chromium.`,
    );
    out(`   project dir ${project} (its gamebridge.json serves ${WWW})`);
    c = await openDemoClient(project, opts.noDaemon);
    const game = (name: string, args: Json = {}) => c!.tool('call_tool', { port, name, arguments: args });

    const inst = await c.tool('launch_instance', {}, 120000);
    port = inst.port as number;
    say(
      `launch_instance: ${inst.name} ${inst.version} joined on port ${port} from Chromium (pid ${inst.pid}) after ${inst.readyInMs}ms`,
    );
    const ts = await c.tool('list_toolsets', { port });
    say(`list_toolsets: ${ts.toolsets.map((t: Json) => `${t.name} (${t.tools.length})`).join(', ')}`);
    const start = await game('start');
    say(
      `call_tool start: screen ${start.screen ?? start.game?.screen ?? '?'}, command #${start.commandId} confirmed at frame ${start.frame} (sessionEpoch ${start.sessionEpoch})`,
    );
    const moved = await game('move_to', { x: 600 });
    say(`call_tool move_to {x: 600}: basket at ${moved.game.basketX}`);
    await game('hold', { input: 'ArrowLeft', ms: 5000 });
    const left = await game('wait_for', { path: 'game.basketX', lte: 500, timeoutMs: 15000 });
    const up = await game('release', { input: 'ArrowLeft' });
    say(
      `call_tool hold {input: "ArrowLeft"} (a real key through the browser), wait_for game.basketX <= 500, release: basket at ${up.game.basketX} after ${left.elapsedMs}ms`,
    );
    await game('pause');
    const press = await game('press', { input: 'right', frames: 5 });
    say(
      `paused, call_tool press {input: "right", frames: 5} (the kit's held input): basket at ${press.game.basketX}, exactly 5 frames of it`,
    );
    await game('resume');
    await game('spawn', { x: press.game.basketX });
    const caught = await game('wait_for', { path: 'game.caught', gte: 1, timeoutMs: 60000 });
    say(
      `call_tool spawn over the basket, wait_for game.caught >= 1: caught after ${caught.elapsedMs}ms (frame ${caught.frame})`,
    );
    const shot = await c.raw('call_tool', { port, name: 'screenshot' });
    const image = shot.content.find((b) => b.type === 'image');
    if (shot.isError || !image?.data)
      throw new StepFailed(`screenshot failed: ${shot.content.find((b) => b.type === 'text')?.text}`);
    writeFileSync(shotFile, Buffer.from(image.data, 'base64'));
    say(
      `call_tool screenshot: ${shot.structuredContent?.width}×${shot.structuredContent?.height} PNG from the browser at frame ${shot.structuredContent?.frame}, saved to ${shotFile}`,
    );
    const stop = await c.tool('stop_instance', { port });
    port = undefined;
    say(`stop_instance: port ${stop.port} stopped (${stop.how}); Chromium and the page's server are gone`);
    out(`Demo finished. The screenshot is at ${shotFile}`);
    for (const line of demoEnding(opts.noDaemon)) out(line);
    return 0;
  } catch (e) {
    out(`✖ demo --web failed at step ${step + 1}: ${e instanceof StepFailed ? e.message : (e as Error).message}`);
    const tail = stderrTail(c?.stderr() ?? '');
    if (tail) out(tail);
    return 1;
  } finally {
    if (port !== undefined) await c?.tool('stop_instance', { port }, 30000).catch(() => undefined);
    await c?.close();
    rmSync(project, { recursive: true, force: true });
  }
}
