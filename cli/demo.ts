/**
 * `game-bridge-mcp demo` (`npm run demo`): the bundled example game driven end to end through a
 * real MCP client, exactly as an agent would: the SDK Client spawns the proxy (which starts the
 * daemon if none runs), then discover → launch → describe → a few moves → wait_for → state →
 * stop. Every line printed comes from a real answer. Exit 0 when every step worked; on a
 * failure it says which step and why, and still stops the game it launched.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PORT_RANGE } from '../daemon/launcher/index.js';
import { VERSION } from '../shared/version.js';
import { demoEnding, DIST, openDemoClient, StepFailed, stderrTail, type DemoClient, type Json } from './demo-client.js';

export interface DemoOptions {
  /** ports the demo game may be launched on (gamebridge.json portRange) */
  portRange?: string;
  /** run the engine in the proxy process instead of the daemon */
  noDaemon?: boolean;
  out?: (line: string) => void;
}

const GAME = join(DIST, 'examples', 'crate-stack', 'main.js');

/** A path a shell will read as one word (the launch command runs through a shell). */
const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** A fresh project folder whose gamebridge.json launches the bundled Crate Stack. */
function demoProject(portRange: string | undefined): string {
  const project = mkdtempSync(join(tmpdir(), 'game-bridge-demo-'));
  writeFileSync(
    join(project, 'gamebridge.json'),
    JSON.stringify(
      {
        name: 'Crate Stack',
        launch: {
          command: `${shellWord(process.execPath)} ${shellWord(GAME)} --port {port}`,
          cwd: '.',
          portRange: portRange ?? DEFAULT_PORT_RANGE,
          readyTimeoutMs: 30000,
        },
      },
      null,
      2,
    ),
  );
  return project;
}

export async function runDemo(opts: DemoOptions = {}): Promise<number> {
  const out = opts.out ?? ((l: string) => process.stdout.write(l + '\n'));
  const project = demoProject(opts.portRange);

  let step = 0;
  let launchedPort: number | undefined;
  let c: DemoClient | undefined;
  const say = (line: string) => out(`${String(++step).padStart(2)}. ${line}`);
  const tool = (name: string, args: Json = {}, timeout = 60000): Promise<Json> =>
    c ? c.tool(name, args, timeout) : Promise.reject(new StepFailed('not connected'));
  const game = (port: number, name: string, args: Json = {}) => tool('call_tool', { port, name, arguments: args });

  try {
    out(
      `game-bridge-mcp ${VERSION} demo: an MCP client drives the bundled Crate Stack game through ${opts.noDaemon ? 'the in-process engine (--no-daemon)' : 'the proxy and the daemon'}.`,
    );
    out(`   project dir ${project} (its gamebridge.json launches ${GAME})`);
    c = await openDemoClient(project, opts.noDaemon);
    const server = c.client.getServerVersion();
    const { tools } = await c.client.listTools();
    say(
      `connected to ${server?.name} ${server?.version}; it advertises ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`,
    );

    const found = await tool('list_instances');
    say(
      `list_instances: ${found.live.length} game(s) already running, ${found.stale.length} stale registry entr${found.stale.length === 1 ? 'y' : 'ies'}, ${found.free.length} free port(s) scanned`,
    );

    const inst = await tool('launch_instance');
    launchedPort = inst.port as number;
    const port = launchedPort;
    say(
      `launch_instance: ${inst.name} ${inst.version} is up on port ${port} (pid ${inst.pid}) after ${inst.readyInMs}ms; its output goes to ${inst.logFile}`,
    );

    const ts = await tool('list_toolsets', { port });
    say(`list_toolsets: ${ts.toolsets.map((t: Json) => `${t.name} (${t.tools.length})`).join(', ')}`);

    const play = await tool('describe_toolset', { port, toolset: 'play' });
    const sig = (t: Json) =>
      `${t.name}(${Object.keys(t.inputSchema.properties ?? {})
        .map((a) => ((t.inputSchema.required ?? []).includes(a) ? a : `${a}?`))
        .join(', ')})`;
    say(`describe_toolset play: ${play.tools.map(sig).join(' ')}`);

    const start = await game(port, 'start');
    say(
      `call_tool start: screen ${start.screen}, command #${start.commandId} confirmed by ${start.confirmation} at frame ${start.frame}`,
    );

    let dropped = 0;
    for (const x of [50, 50, 48]) {
      const next = start.game?.nextKind;
      const r = await game(port, 'drop', { x });
      dropped++;
      const crate = (r.game?.crates as Json[] | undefined)?.at(-1);
      say(
        `call_tool drop {x: ${x}}: crate #${crate?.id} (${crate?.kind ?? next}) ${crate?.settled ? 'landed' : 'is falling'}; score ${r.game?.score}; events ${(r.events as string[]).slice(-3).join(', ') || '-'}`,
      );
    }

    const wait = await game(port, 'wait_for', {
      path: `game.crates.${dropped - 1}.settled`,
      equals: true,
      timeoutMs: 5000,
    });
    say(
      `call_tool wait_for game.crates.${dropped - 1}.settled == true: matched after ${wait.elapsedMs}ms (frame ${wait.frame})`,
    );

    const state = await game(port, 'get_state', { path: 'game' });
    const g = state.value as Json;
    say(
      `call_tool get_state {path: "game"}: score ${g.score}, stack height ${g.height}, ${g.crates.length} crates (${(g.crates as Json[]).map((c) => `${c.kind}@${c.x},${c.y}`).join(' ')}), over: ${g.over ?? 'no'}`,
    );

    const stop = await tool('stop_instance', { port });
    launchedPort = undefined;
    say(`stop_instance: port ${stop.port} stopped (${stop.how})`);
    out('Demo finished: every step above is a real MCP answer.');
    for (const line of demoEnding(opts.noDaemon)) out(line);
    return 0;
  } catch (e) {
    const msg = e instanceof StepFailed ? e.message : `${(e as Error).message ?? e}`;
    out(`✖ demo failed at step ${step + 1}: ${msg}`);
    const tail = stderrTail(c?.stderr() ?? '');
    if (tail) out(tail);
    return 1;
  } finally {
    if (launchedPort !== undefined) {
      await tool('stop_instance', { port: launchedPort }, 30000).then(
        (s) => out(`   cleaned up: the demo game on port ${launchedPort} stopped (${s.how})`),
        (e) => out(`   could not stop the demo game on port ${launchedPort}: ${(e as Error).message}`),
      );
    }
    await c?.close();
    rmSync(project, { recursive: true, force: true });
  }
}
