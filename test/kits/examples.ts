/**
 * The kit examples the conformance suite (conformance.test.ts) runs, one entry per kit: how to
 * start it, what it declares, and the few game-specific moves the shared checks need (what
 * moves when `right` is held, a command that fails on the game's side, its menu). A new kit
 * joins by appending its example here and a row to docs/KITS.md's conformance table.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openBrowser } from '../../daemon/web/browser.js';
import { startPageCarrier } from '../../daemon/web/carrier.js';
import { findChromium } from '../../daemon/web/chromium.js';
import { serveStatic } from '../../daemon/web/static.js';
import { DIST, EXAMPLE_GAME, ROOT, collectOutput, healthOk, waitFor, type Reaper } from '../helpers/procs.js';
import { spawnExample } from './kit-game.js';
import type { Capability } from '../../shared/capabilities.js';

/** A command and its arguments, as sent to GET /command. */
export type Cmd = [string, Record<string, string | number>?];

export interface Running {
  port: number;
  /** The game's own process (absent for a page: the browser and carrier are the suite's). */
  child?: ChildProcess;
  output: { readonly text: string };
  stop(): Promise<void>;
}

export interface KitExample {
  /** The kit as docs/KITS.md's conformance table names it. */
  kit: string;
  /** The example game's name. */
  example: string;
  /** Why it cannot run on this machine, or null. Under CI=true a missing runtime fails. */
  missing(): string | null;
  /** A program on its own port (registry entry, close, busy port), or a page behind the page carrier. */
  carrier: 'process' | 'page';
  readyMs: number;
  /** Starts the example with its debug port set to `portArg` (a process only), `env` added; not waiting for it. */
  spawn?(
    reaper: Reaper,
    portArg: string,
    home: string,
    env?: Record<string, string>,
  ): { child: ChildProcess; output: { readonly text: string } };
  /**
   * Starts it on `port` and resolves once /health answers. `env` is the launch's additions, as
   * the bridge's launcher makes them (a page gets GAME_BRIDGE_START_PAUSED through its fragment).
   */
  start(reaper: Reaper, port: number, home: string, env?: Record<string, string>): Promise<Running>;
  /** Exactly what /health and /tools declare (shared/capabilities.ts's names). */
  capabilities: Capability[];
  version: string;
  /** The manifest's tool names, sorted. */
  tools: string[];
  inputs: string[];
  /** [width, height] of its /screenshot PNG, or null (404). */
  screenshot: [number, number] | null;
  /** A process whose debug port is taken says so and exits: whatever holds the port would be taken for it. */
  busyPort?: 'exits';
  /** What holding `input` moves: its x in /state, by `speed` per simulated frame; `home` puts it mid-field, in a round. */
  mover: { input: string; x: (state: any) => number; speed: number; home: Cmd[] };
  /** A command refused on arrival for a bad argument, and the refusal's words. */
  badArg: { cmd: Cmd; error: RegExp };
  /** A command that starts a new run (a new session epoch). */
  newEpoch: Cmd;
  /** A command that fails on the game's own frame (its result: ok false, these words). Absent: no commandResults. */
  fails?: { before?: Cmd[]; cmd: Cmd; error: RegExp; after?: Cmd[] };
  /** Its menu: `open` shows `screen`, whose `button` leads to `after`; `disabled` is a disabled button, `slider` a 0-1 slider. Absent: no "ui". */
  ui?: { open: Cmd[]; screen: string; button: string; after: string; disabled: string; slider: string };
  /** The most connections it serves at once (more are closed or wait); absent: no cap. */
  connectionCap?: number;
  /** A type of world object it always publishes. Absent: no "world". */
  world?: { type: string };
  /**
   * What it declares of the pointer, touch, axes and text (capabilities "pointer", "touch",
   * "axis", "text"; docs/KITS.md) beyond what /state shows of them. Absent: none of them.
   */
  devices?: {
    /** its /tools game.axes, exactly; the first is the one checked */
    axes?: { name: string; min: number; max: number }[];
    /** the mover's x moves by this per simulated frame with the first axis held at its max (absent: not checked) */
    axisSpeed?: number;
    /** the text typed so far, as its /state shows it (capability "text") */
    typed?: (state: any) => string;
  };
}

const CRATE_TOOLS = [
  'bump',
  'close',
  'drop',
  'drop_here',
  'freeze',
  'menu',
  'pause',
  'peek',
  'restart',
  'resume',
  'set_seed',
  'start',
];
const SYSTEM_PYTHON = '/usr/bin/python3';

/** The Walkers on the engine kits play as the Python Walker does: a jump in the air fails... */
const WALKER_FAILS: KitExample['fails'] = {
  before: [['reset'], ['clock.pause'], ['jump']],
  cmd: ['jump'],
  error: /^the walker is in the air/,
  after: [['clock.resume']],
};
/** ...and the HUD's Menu opens a pause menu. */
const WALKER_MENU: KitExample['ui'] = {
  open: [['reset'], ['ui.activate', { id: 'open-menu' }]],
  screen: 'MenuScreen',
  button: 'resume',
  after: 'GameScreen',
  disabled: 'options',
  slider: 'volume',
};
const PHASER_WWW = join(DIST, 'examples', 'phaser-game', 'www');

function spawnEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, GAME_BRIDGE_HOME: home };
  delete env.GAME_BRIDGE_INSTANCES;
  return env;
}

/** A process example: `spawn` plus waiting for /health. */
function processStart(readyMs: number) {
  return async function (
    this: KitExample,
    reaper: Reaper,
    port: number,
    home: string,
    env: Record<string, string> = {},
  ): Promise<Running> {
    const { child, output } = this.spawn!(reaper, String(port), home, env);
    await waitFor(
      `${this.example} on ${port} (output so far: ${output.text.slice(-300)})`,
      () => healthOk(port),
      readyMs,
    );
    return {
      port,
      child,
      output,
      stop: async () => {
        child.kill('SIGKILL');
      },
    };
  };
}

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, cmd)));
}

function pygameMissing(): string | null {
  if (!existsSync(SYSTEM_PYTHON)) return `${SYSTEM_PYTHON} is missing`;
  try {
    execFileSync(SYSTEM_PYTHON, ['-c', 'import pygame'], {
      env: { ...process.env, PYGAME_HIDE_SUPPORT_PROMPT: '1' },
      stdio: 'ignore',
    });
    return null;
  } catch {
    return `pygame does not import under ${SYSTEM_PYTHON} (apt-get install python3-pygame)`;
  }
}

function chromiumMissing(): string | null {
  try {
    findChromium();
  } catch (e) {
    return (e as Error).message;
  }
  return existsSync(join(PHASER_WWW, 'phaser.esm.min.js')) ? null : `${PHASER_WWW} is not built (npm run build)`;
}

export const KIT_EXAMPLES: KitExample[] = [
  {
    kit: 'Node',
    example: 'Crate Stack',
    missing: () => (existsSync(EXAMPLE_GAME) ? null : `${EXAMPLE_GAME} is not built (npm run build)`),
    carrier: 'process',
    readyMs: 30000,
    spawn: (reaper, portArg, home, env) => {
      const child = reaper.spawn(process.execPath, [EXAMPLE_GAME, '--port', portArg, '--screenshot'], {
        env: spawnEnv(home, env),
      });
      return { child, output: collectOutput(child) };
    },
    start: processStart(30000),
    capabilities: ['input', 'pointer', 'touch', 'axis', 'text', 'clock', 'ui', 'world'],
    devices: {
      axes: [{ name: 'steer', min: -1, max: 1 }],
      axisSpeed: 2,
      typed: (s) => s.game.playerName,
    },
    version: '1.0.0',
    tools: CRATE_TOOLS,
    inputs: ['left', 'right'],
    screenshot: [160, 256],
    // Crate Stack is also the launcher's fixture for a game that dies when its port is taken.
    busyPort: 'exits',
    mover: { input: 'right', x: (s) => s.game.dropperX, speed: 2, home: [['restart']] },
    badArg: { cmd: ['drop', { x: 'left' }], error: /\bx\b.* must be a number/ },
    newEpoch: ['restart'],
    fails: {
      cmd: ['throw_error', { message: 'the crate fell through the floor' }],
      error: /^the crate fell through the floor$/,
    },
    ui: {
      open: [['menu']],
      screen: 'MenuScreen',
      button: 'start',
      after: 'GameScreen',
      disabled: 'options',
      slider: 'volume',
    },
    world: { type: 'dropper' },
  },
  {
    kit: 'web',
    example: 'Star Catcher',
    missing: chromiumMissing,
    carrier: 'page',
    readyMs: 90000,
    start: async (_reaper, port, _home, env = {}) => {
      const lines: string[] = [];
      const site = await serveStatic({ root: PHASER_WWW });
      const startPaused = env.GAME_BRIDGE_START_PAUSED === '1';
      const carrier = await startPageCarrier({ port, log: (l) => lines.push(l), startPaused });
      const browser = await openBrowser({ url: `${site.url}index.html${carrier.fragment}` });
      await carrier.waitForJoin(60000);
      return {
        port,
        output: {
          get text() {
            return [...lines, ...browser.consoleErrors()].join('\n');
          },
        },
        stop: async () => {
          await browser.close();
          await carrier.close();
          await site.close();
        },
      };
    },
    capabilities: ['input', 'pointer', 'touch', 'axis', 'text', 'clock', 'ui', 'world'],
    devices: { axes: [{ name: 'steer', min: -1, max: 1 }], axisSpeed: 8, typed: (s) => s.game.name },
    version: '1.0.0',
    tools: ['close', 'log_state', 'move_to', 'ping', 'reset', 'set_seed', 'spawn', 'start'],
    inputs: ['left', 'right'],
    screenshot: null, // the daemon takes a page's screenshot through the browser
    mover: { input: 'right', x: (s) => s.game.basketX, speed: 8, home: [['start'], ['move_to', { x: 400 }]] },
    badArg: { cmd: ['move_to', { x: 'far' }], error: /\bx\b.* must be a number/ },
    newEpoch: ['start'],
    fails: { before: [['reset']], cmd: ['move_to', { x: 100 }], error: /^no round is running \(MenuScreen\)/ },
    ui: {
      open: [['reset']],
      screen: 'MenuScreen',
      button: 'play',
      after: 'GameScreen',
      disabled: 'options',
      slider: 'volume',
    },
    world: { type: 'basket' },
  },
  {
    kit: 'Python',
    example: 'Walker',
    missing: () => null,
    carrier: 'process',
    readyMs: 30000,
    spawn: (reaper, portArg, home, env) =>
      spawnExample(reaper, join(ROOT, 'examples', 'python-game'), portArg, home, env),
    start: processStart(30000),
    capabilities: ['input', 'axis', 'clock', 'ui', 'world'],
    version: '1.0.0',
    tools: ['jump', 'reset', 'teleport'],
    inputs: ['left', 'right'],
    screenshot: null,
    busyPort: 'exits',
    mover: { input: 'right', x: (s) => s.game.x, speed: 2, home: [['reset'], ['teleport', { x: 50 }]] },
    badArg: { cmd: ['teleport', { x: 'far' }], error: /\bx\b.* must be a number/ },
    newEpoch: ['reset'],
    fails: {
      before: [['reset'], ['clock.pause'], ['jump']],
      cmd: ['jump'],
      error: /^the walker is in the air/,
      after: [['clock.resume']],
    },
    ui: {
      open: [['reset'], ['ui.activate', { id: 'open-menu' }]],
      screen: 'MenuScreen',
      button: 'resume',
      after: 'GameScreen',
      disabled: 'options',
      slider: 'volume',
    },
    world: { type: 'player' },
  },
  {
    kit: 'Python (pygame)',
    example: 'Frog Hop',
    missing: pygameMissing,
    carrier: 'process',
    readyMs: 30000,
    spawn: (reaper, portArg, home, env) =>
      spawnExample(reaper, join(ROOT, 'examples', 'pygame-game'), portArg, home, env),
    start: processStart(30000),
    capabilities: ['input', 'axis', 'pointer', 'touch', 'text', 'clock', 'ui', 'world'],
    version: '1.0.0',
    tools: ['jump', 'start', 'teleport'],
    inputs: ['left', 'right'],
    screenshot: [480, 320],
    busyPort: 'exits',
    mover: { input: 'right', x: (s) => s.game.x, speed: 3, home: [['start'], ['teleport', { x: 200 }]] },
    badArg: { cmd: ['teleport', { x: 'far' }], error: /\bx\b.* must be a number/ },
    newEpoch: ['start'],
    fails: {
      before: [['start'], ['clock.pause'], ['jump']],
      cmd: ['jump'],
      error: /^the frog is in the air/,
      after: [['clock.resume']],
    },
    ui: {
      open: [['start'], ['ui.activate', { id: 'open-menu' }]],
      screen: 'MenuScreen',
      button: 'start',
      after: 'GameScreen',
      disabled: 'options',
      slider: 'volume',
    },
    world: { type: 'player' },
  },
  {
    kit: 'Godot 3',
    example: 'Walker (Godot)',
    // Its run.sh draws on godot3-runner under a virtual display; godot3-server is the headless fallback.
    missing: () => {
      const gone = ['godot3-runner', 'Xvfb', 'godot3-server'].filter((c) => !onPath(c));
      return gone.length ? `${gone.join(', ')} not on PATH (apt-get install godot3-runner xvfb godot3-server)` : null;
    },
    carrier: 'process',
    // Godot's first start in a fresh container imports the project; a loaded machine is slower still.
    readyMs: 60000,
    spawn: (reaper, portArg, home, env) =>
      spawnExample(reaper, join(ROOT, 'examples', 'godot-game'), portArg, home, env),
    start: processStart(60000),
    capabilities: ['input', 'axis', 'pointer', 'touch', 'text', 'clock', 'ui', 'world'],
    version: '1.0.0',
    tools: ['jump', 'reset', 'teleport'],
    inputs: ['left', 'right'],
    screenshot: [1024, 600], // the viewport, drawn by Mesa's software GL on Xvfb
    connectionCap: 64,
    busyPort: 'exits',
    // Godot 3 gives scripts no hook on SIGTERM: the engine dies of it.
    mover: { input: 'right', x: (s) => s.game.x, speed: 2, home: [['reset'], ['teleport', { x: 50 }]] },
    badArg: { cmd: ['teleport', { x: 'far' }], error: /\bx\b.* must be a number/ },
    newEpoch: ['reset'],
    fails: WALKER_FAILS,
    // No tree code in the game: the kit reads the scene's Controls, their ids are node paths.
    ui: {
      open: [['reset'], ['ui.activate', { id: 'Main/HUD/OpenMenu' }]],
      screen: 'MenuScreen',
      button: 'Main/Menu/Start',
      after: 'GameScreen',
      disabled: 'Main/Menu/Options',
      slider: 'Main/Menu/Volume',
    },
    world: { type: 'player' },
  },
  {
    kit: 'LÖVE',
    example: 'Walker (LÖVE)',
    missing: () => (onPath('love') ? null : 'love is not on PATH (apt-get install love)'),
    carrier: 'process',
    readyMs: 30000,
    // SDL's offscreen driver: a real GL context and real frames, without an X server.
    spawn: (reaper, portArg, home, env) =>
      spawnExample(reaper, join(ROOT, 'examples', 'love-game'), portArg, home, {
        SDL_VIDEODRIVER: 'offscreen',
        ...env,
      }),
    start: processStart(30000),
    capabilities: ['input', 'axis', 'pointer', 'touch', 'text', 'clock', 'ui', 'world'],
    version: '1.0.0',
    tools: ['jump', 'reset', 'teleport'],
    inputs: ['left', 'right'],
    screenshot: [1280, 720],
    connectionCap: 64,
    busyPort: 'exits',
    mover: { input: 'right', x: (s) => s.game.x, speed: 2, home: [['reset'], ['teleport', { x: 50 }]] },
    badArg: { cmd: ['teleport', { x: 'far' }], error: /\bx\b.* must be a number/ },
    newEpoch: ['reset'],
    fails: WALKER_FAILS,
    ui: WALKER_MENU,
    world: { type: 'player' },
  },
  {
    kit: 'C# (Mono)',
    example: 'Walker (C#)',
    missing: () =>
      onPath('mcs') && onPath('mono') ? null : 'mcs or mono is not on PATH (apt-get install mono-mcs mono-runtime)',
    carrier: 'process',
    // run.sh builds the example with mcs on its first start.
    readyMs: 60000,
    spawn: (reaper, portArg, home, env) =>
      spawnExample(reaper, join(ROOT, 'examples', 'csharp-game'), portArg, home, env),
    start: processStart(60000),
    capabilities: ['input', 'axis', 'pointer', 'touch', 'text', 'clock', 'ui', 'world'],
    version: '1.0.0',
    tools: ['jump', 'reset', 'teleport'],
    inputs: ['left', 'right'],
    screenshot: null,
    connectionCap: 64,
    busyPort: 'exits',
    // Mono runs no handler on SIGTERM without Mono.Posix: the game cannot end cleanly on it.
    mover: { input: 'right', x: (s) => s.game.x, speed: 2, home: [['reset'], ['teleport', { x: 50 }]] },
    badArg: { cmd: ['teleport', { x: 'far' }], error: /\bx\b.* must be a number/ },
    newEpoch: ['reset'],
    fails: WALKER_FAILS,
    ui: WALKER_MENU,
    world: { type: 'player' },
  },
];
