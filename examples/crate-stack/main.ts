#!/usr/bin/env node
/**
 * Crate Stack: the bundled example game, headless. It serves the game contract through the
 * game kit, and doubles as the test fixture (the misbehaviour flags imitate real games'
 * failure modes). Its log goes to stdout, as a real game's would, so launcher logs have content.
 * It plays in time too: the dropper moves while `left`/`right` is held, the agent's clock can
 * pause and step it, and each new round is a new session epoch.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { createGameSurface, type CommandArgs } from '../../kits/js/index.js';
import { CrateStack } from './game.js';
import { crateStackManifest } from './manifest.js';
import { crateStackUi, crateStackWorld } from './menu.js';

/** Screenshot pixels per world unit (picture.ts's scale, kept here so the picture loads only when asked for). */
const PICTURE_SCALE = 1.6;

const argv = yargs(hideBin(process.argv))
  .scriptName('crate-stack')
  .usage('$0 --port N [options]: the Crate Stack example game, serving the game-bridge contract on 127.0.0.1:N')
  .option('port', { type: 'number', demandOption: true, describe: 'Debug port on 127.0.0.1 (0 = any free port)' })
  .option('fps', { type: 'number', default: 60, describe: 'Frames per second' })
  .option('seed', { type: 'string', default: 'crates', describe: 'Crate generator seed' })
  .option('name', { type: 'string', default: 'Crate Stack', describe: 'Game name (manifest and registry)' })
  .option('version-tag', { type: 'string', default: '1.0.0', describe: 'Game version (manifest and registry)' })
  .option('tools', { type: 'boolean', default: true, describe: 'Serve GET /tools (--no-tools: 404)' })
  .option('screenshot', {
    type: 'boolean',
    default: false,
    describe: 'Serve GET /screenshot: a picture of the stack (PNG)',
  })
  .option('completed-id', {
    type: 'boolean',
    default: true,
    describe: 'Publish completedCommandId (--no-completed-id: never)',
  })
  .option('slow-start', { type: 'number', default: 0, describe: 'Wait this many ms before binding the port' })
  .option('crash-at-start', {
    type: 'boolean',
    default: false,
    describe: 'Print a few lines, then exit with code 3 before binding',
  })
  .option('ignore-close', {
    type: 'boolean',
    default: false,
    describe: 'Accept close but ignore it; ignore SIGTERM too',
  })
  .option('time', {
    type: 'boolean',
    default: true,
    describe: 'Held inputs, the agent clock, epochs and the UI and world trees (--no-time: none, like an older game)',
  })
  .option('start-label', {
    type: 'string',
    default: 'Start',
    describe: "The menu's Start button label, its ref made from it ('Start game': start-game): a build that renamed it",
  })
  .option('child', {
    type: 'boolean',
    default: false,
    describe: 'Spawn a grandchild process that lives as long as the game',
  })
  .option('exit-after', {
    type: 'number',
    default: 0,
    describe:
      'Exit by itself (with --exit-code) this many ms after it started listening: a game that quits or crashes mid-session',
  })
  .option('exit-code', { type: 'number', default: 0, describe: 'The exit code of --exit-after' })
  .strict()
  .help()
  .parseSync();

const say = (line: string) => process.stdout.write(`crate-stack: ${line}\n`);

async function main(): Promise<void> {
  say(`starting ${argv.name} ${argv['version-tag']} (pid ${process.pid})`);
  if (argv['crash-at-start']) {
    say('loading assets...');
    process.stderr.write('crate-stack: fatal: could not open save file\n');
    process.exit(3);
  }
  if (argv['slow-start'] > 0) {
    say(`slow start: waiting ${argv['slow-start']}ms before binding`);
    await new Promise((r) => setTimeout(r, argv['slow-start']));
  }

  const game = new CrateStack(argv.seed);
  let grandchild: ChildProcess | undefined;
  let loop: NodeJS.Timeout | undefined;

  /** Wraps a command so it is counted in game.received and logged when applied. */
  const cmd = (name: string, run: (a: CommandArgs) => void) => (a: CommandArgs, info: { commandId: number }) => {
    game.received[name] = (game.received[name] ?? 0) + 1;
    say(`applied #${info.commandId} ${name}${Object.keys(a.raw).length ? ` ${JSON.stringify(a.raw)}` : ''}`);
    run(a);
  };

  const surface = createGameSurface({
    log: say,
    port: argv.port,
    name: argv.name,
    version: argv['version-tag'],
    snapshot: () => game.snapshot(),
    // loaded only when asked for: a game without --screenshot starts as fast as before
    screenshot: argv.screenshot ? async () => (await import('./picture.js')).renderPicture(game) : undefined,
    publishCompletedId: argv['completed-id'],
    manifest: argv.tools ? crateStackManifest(argv.name, argv['version-tag']) : undefined,
    inputs: argv.time ? ['left', 'right'] : undefined,
    // the stick steers the dropper; the pointer or a finger drags it and a click or a lifted finger drops there;
    // typed text is the high-score name
    axes: argv.time ? [{ name: 'steer', min: -1, max: 1 }] : undefined,
    pointer: argv.time,
    touch: argv.time,
    text: argv.time,
    clock: argv.time,
    // its simulation reads no wall clock: a step's frames may all run in one tick
    stepFramesPerTick: 1000,
    sessionEpoch: argv.time ? 0 : undefined,
    ui: argv.time ? () => crateStackUi(game, actions, argv['start-label']) : undefined,
    world: argv.time ? () => crateStackWorld(game) : undefined,
    commands: {
      start: cmd('start', () => newRound(() => game.start())),
      drop: {
        validate: (a) => {
          a.number('x');
          a.boolean('settle', true);
        },
        apply: cmd('drop', (a) => game.drop(a.number('x'), a.boolean('settle', true))),
      },
      pause: cmd('pause', () => game.pause()),
      resume: cmd('resume', () => game.resume()),
      restart: cmd('restart', () => newRound(() => game.restart())),
      drop_here: cmd('drop_here', () => game.dropHere()),
      menu: cmd('menu', () => game.menu()),
      set_seed: {
        validate: (a) => void a.string('seed'),
        apply: cmd('set_seed', (a) => game.setSeed(a.string('seed'))),
      },
      bump: { validate: (a) => void a.string('tag'), apply: cmd('bump', (a) => game.bump(a.string('tag'))) },
      peek: cmd('peek', () => undefined),
      // Not in the manifest (a passthrough command): its handler throws, as a game's bug would.
      // The kit turns that into the command's result (ok: false, this message); the game runs on.
      throw_error: cmd('throw_error', (a) => {
        throw new Error(a.string('message', 'the handler threw'));
      }),
      freeze: {
        validate: (a) => (a.number('ms') < 0 ? "argument 'ms' must be >= 0" : undefined),
        // Blocks the whole thread, HTTP included: a game stuck in a long frame.
        apply: cmd('freeze', (a) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, a.number('ms'))),
      },
    },
    onClose: async (reason) => {
      if (reason === 'command') game.received.close = (game.received.close ?? 0) + 1;
      if (argv['ignore-close']) {
        say(`close requested (${reason}): ignored (--ignore-close)`);
        return;
      }
      say(`close requested (${reason}): shutting down`);
      if (loop) clearTimeout(loop);
      await surface.close();
      if (grandchild?.pid) grandchild.kill('SIGKILL');
      process.exit(0);
    },
  });

  /** What the menu's buttons press: what the commands of the same names do. */
  const actions = {
    start: () => newRound(() => game.start()),
    pause: () => game.pause(),
    resume: () => game.resume(),
    restart: () => newRound(() => game.restart()),
    menu: () => game.menu(),
  };

  /** A new round is a new run in the same process: a new session epoch (when the game publishes them). */
  function newRound(run: () => void): void {
    run();
    if (argv.time) surface.newEpoch();
  }

  try {
    await surface.listen();
  } catch (e) {
    process.stderr.write(`crate-stack: ${(e as Error).message}\n`);
    process.exit(1);
  }

  if (argv['exit-after'] > 0) {
    setTimeout(() => {
      process.stderr.write(
        `crate-stack: fatal: giving up after ${argv['exit-after']}ms (exit code ${argv['exit-code']})\n`,
      );
      process.exit(argv['exit-code']);
    }, argv['exit-after']);
  }

  if (argv.child) {
    // A grandchild that does nothing but live: for testing process-tree kills.
    grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    say(`child pid ${grandchild.pid}`);
  }

  // Fixed-rate loop that does not drift; after a long stall (freeze) it skips ahead rather
  // than replaying the missed frames in a burst.
  const frameMs = 1000 / Math.max(1, argv.fps);
  let due = performance.now();
  const frameLoop = () => {
    // tick() says how many frames to simulate: 0 while the agent's clock is paused.
    const frames = surface.tick();
    game.age(surface.frame);
    const typed = surface.takeText();
    if (typed) game.typeName(typed);
    // A click (the left button coming up) or a lifted finger drops a crate there, on the tick that lifts it, as `drop` would.
    for (const e of surface.takeEvents())
      if ((e.type === 'pointerup' && e.button === 0) || e.type === 'touchend') game.drop(e.x / PICTURE_SCALE, true);
    for (let i = 0; i < frames; i++) {
      const p = surface.pointer();
      const finger = surface.touches()[0];
      game.simulate({
        left: surface.isHeld('left'),
        right: surface.isHeld('right'),
        steer: surface.axis('steer'),
        aim: p.buttons & 1 ? p.x / PICTURE_SCALE : finger ? finger.x / PICTURE_SCALE : null,
      });
    }
    const now = performance.now();
    due = Math.max(due + frameMs, now - frameMs);
    loop = setTimeout(frameLoop, Math.max(0, due - now));
  };
  frameLoop();
}

main().catch((e) => {
  process.stderr.write(`crate-stack: fatal: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
