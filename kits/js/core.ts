/**
 * The platform-neutral heart of the game kit: it answers the contract's paths (/health,
 * /state, /command, /tools, /ui, /world) as `{status, body}`, queues commands, applies them on
 * the game's tick and records each one's result. No I/O and no platform imports: the Node carrier feeds it HTTP requests, the
 * web carrier feeds it the page carrier's relayed paths, and both answer with what it returns.
 */
import { ArgError, CommandArgs } from './args.js';
import { builtinCommands, RESERVED_PREFIXES } from './builtins.js';
import { GameClock } from './clock.js';
import { FrameTimes, framesAnswer } from './frames.js';
import { PlayerDevices, type DeviceEvent } from './devices.js';
import { ErrorRing } from './errors.js';
import { HeldInputs } from './input.js';
import { TreePublisher, uiCommands, uiContent, worldContent } from './trees.js';
import type { CommandHandler, SharedSurfaceOptions, SurfaceControls } from './types.js';

export interface CoreOptions extends SharedSurfaceOptions {
  log: (line: string) => void;
  /** Called on the tick that applies the built-in `close` command. */
  onCloseCommand: () => void;
  /** Endpoints the carrier serves itself (named in the 404 answer). */
  extraEndpoints?: string[];
  /** Wall clock in milliseconds, for leases (default `performance.now`). */
  now?: () => number;
  /** Each pointer, wheel, touch or text event as it is applied (the web carrier dispatches it to the page). */
  onDeviceEvent?: (e: DeviceEvent) => void;
  /**
   * The bridge launched the game paused (GAME_BRIDGE_START_PAUSED=1, or the page's fragment):
   * the clock starts paused at simFrame 0. Without the "clock" capability it changes nothing.
   */
  startPaused?: boolean;
}

export interface Answer {
  status: number;
  body: unknown;
}

export interface SurfaceCore extends SurfaceControls {
  /** Answers one contract request: `target` is the path and query, e.g. "/command?cmd=drop&x=3". */
  answer(target: string): Answer;
  /** Settles once the command `id` was applied, with its result (a caller in the page waits on it). */
  applied(id: number): Promise<{ ok: boolean; error?: string }>;
  /** /state as a player sees it: the frame and run counters, `ui` and the game's `player` section. */
  playerState(): Record<string, unknown>;
}

interface Queued {
  id: number;
  cmd: string;
  args: CommandArgs;
}

const CLOSE = 'close';
/** How many recent command results /state carries. */
const RESULTS_KEPT = 32;
/** A failing handler's message is the game's words to the agent: bounded. */
const MAX_ERROR_CHARS = 500;

export function createSurfaceCore(options: CoreOptions): SurfaceCore {
  const { log } = options;
  const protocol = options.protocol ?? 1;
  const now = options.now ?? (() => performance.now());
  const inputs = options.inputs ? new HeldInputs([...options.inputs], now) : null;
  const clock = options.clock ? new GameClock(options.stepFramesPerTick, options.startPaused === true) : null;
  const deviceOptions = { axes: options.axes, pointer: options.pointer, touch: options.touch, text: options.text };
  const maybeDevices = new PlayerDevices(deviceOptions, now, options.onDeviceEvent);
  const devices = maybeDevices.any ? maybeDevices : null;
  const { ui, world } = options;
  const capabilities = [
    ...(inputs ? ['input'] : []),
    ...maybeDevices.capabilities,
    ...(clock ? ['clock'] : []),
    ...(ui ? ['ui'] : []),
    ...(world ? ['world'] : []),
  ];
  const handlers = gameHandlers(options.commands ?? {});
  for (const [name, h] of builtinCommands(inputs, clock, devices)) handlers.set(name, h);
  if (ui) for (const [name, h] of uiCommands(ui)) handlers.set(name, h);
  const times = new FrameTimes(now);
  handlers.set(
    'frames.stall',
    times.stallCommand(() => frame),
  );
  const commandNames = [...new Set([...handlers.keys(), CLOSE])];
  const endpoints = [
    '/health',
    '/state',
    '/command',
    '/tools',
    '/errors',
    '/frames',
    ...(ui ? ['/ui'] : []),
    ...(world ? ['/world'] : []),
    ...(options.extraEndpoints ?? []),
  ];
  const uiTree = ui ? new TreePublisher(() => uiContent(ui())) : null;
  const worldTree = world ? new TreePublisher(() => worldContent(world())) : null;

  let frame = 0;
  let nextId = 1;
  let completedCommandId = 0;
  let sessionEpoch: number | null = options.sessionEpoch ?? null;
  const queue: Queued[] = [];
  const results: { id: number; ok: boolean; error?: string }[] = [];
  const waiting = new Map<number, (r: { ok: boolean; error?: string }) => void>();
  const errors = new ErrorRing();

  function health(): Record<string, unknown> {
    const h: Record<string, unknown> = { ok: true, frame };
    if (capabilities.length) h.capabilities = capabilities;
    if (sessionEpoch !== null) h.sessionEpoch = sessionEpoch;
    return h;
  }

  function state(): Record<string, unknown> {
    const s: Record<string, unknown> = { frame, ...options.snapshot() };
    s.frame = frame; // the surface owns the frame counter, whatever the snapshot says
    if (options.publishCompletedId === false) {
      delete s.completedCommandId;
      delete s.commandResults;
    } else {
      s.completedCommandId = completedCommandId;
      s.commandResults = results.slice();
    }
    if (clock) {
      // A game that counts its own simulated frames knows better (e.g. only while a round runs).
      if (typeof s.simFrame !== 'number') s.simFrame = clock.simFrame;
      s.clock = { paused: clock.paused, stepFramesLeft: clock.stepFramesLeft };
    }
    if (inputs || devices) s.input = { ...(inputs ? { held: inputs.list() } : {}), ...devices?.state() };
    if (sessionEpoch !== null) s.sessionEpoch = sessionEpoch;
    return s;
  }

  function tools(): Answer {
    if (!options.manifest) return { status: 404, body: { error: 'this game publishes no manifest' } };
    const m = typeof options.manifest === 'function' ? options.manifest() : options.manifest;
    const game: Record<string, unknown> = {
      ...((m.game as Record<string, unknown>) ?? { name: options.name, version: options.version, protocol }),
    };
    if (capabilities.length) game.capabilities = capabilities;
    if (inputs) game.inputs = inputs.names;
    if (devices) Object.assign(game, devices.manifest());
    return { status: 200, body: { ...m, game } };
  }

  function command(params: URLSearchParams): Answer {
    const refuse = (error: string, known?: string[]) => ({
      status: 200,
      body: known ? { accepted: false, error, known } : { accepted: false, error },
    });
    const cmd = params.get('cmd');
    if (!cmd)
      return {
        status: 400,
        body: { accepted: false, error: "missing 'cmd' (GET /command?cmd=NAME&arg=value)", known: commandNames },
      };
    const raw: Record<string, string> = {};
    for (const [k, v] of params) if (k !== 'cmd') raw[k] = v;
    const args = new CommandArgs(raw);
    if (cmd !== CLOSE) {
      const h = handlers.get(cmd);
      if (!h) return refuse(`unknown command '${cmd}'`, commandNames);
      try {
        const why = h.validate?.(args);
        if (why) return refuse(why);
      } catch (e) {
        if (e instanceof ArgError) return refuse(e.message);
        throw e;
      }
    }
    const id = nextId++;
    queue.push({ id, cmd, args });
    return { status: 200, body: { accepted: true, commandId: id, frame } };
  }

  function apply(c: Queued): void {
    let error: string | undefined;
    try {
      if (c.cmd === CLOSE) options.onCloseCommand();
      else handlers.get(c.cmd)!.apply(c.args, { commandId: c.id, frame });
    } catch (e) {
      // A failing command still completes (the bridge must not wait forever for it), and its
      // result says why, so the agent reads the game's own words.
      error = (e instanceof Error ? e.message : String(e)).slice(0, MAX_ERROR_CHARS) || 'failed';
      log(`command #${c.id} '${c.cmd}' failed: ${error}`);
      errors.note(frame, e, 'command');
    }
    const result = error === undefined ? { id: c.id, ok: true } : { id: c.id, ok: false, error };
    results.push(result);
    if (results.length > RESULTS_KEPT) results.shift();
    waiting.get(c.id)?.(result);
    waiting.delete(c.id);
  }

  function tree(publisher: TreePublisher | null, what: string): Answer {
    if (!publisher) return { status: 404, body: { error: `this game publishes no ${what}` } };
    return { status: 200, body: publisher.publish(frame, sessionEpoch) };
  }

  return {
    answer(target) {
      // Split by hand: `new URL` would read "//x" as a host, and URLSearchParams never throws
      // on a malformed escape (it keeps the text as sent).
      const q = target.indexOf('?');
      const path = q < 0 ? target : target.slice(0, q);
      switch (path) {
        case '/health':
          return { status: 200, body: health() };
        case '/state':
          return { status: 200, body: state() };
        case '/command':
          return command(new URLSearchParams(q < 0 ? '' : target.slice(q + 1)));
        case '/tools':
          return tools();
        case '/errors':
          return {
            status: 200,
            body: errors.since(Number(new URLSearchParams(target.slice(q + 1)).get('since')) || 0),
          };
        case '/frames':
          return framesAnswer(times, new URLSearchParams(q < 0 ? '' : target.slice(q + 1)));
        case '/ui':
          return tree(uiTree, 'UI tree');
        case '/world':
          return tree(worldTree, 'world tree');
        default:
          return { status: 404, body: { error: `no such endpoint '${path}'`, endpoints } };
      }
    },

    tick() {
      frame += 1;
      times.tick(frame, clock ? clock.simFrame : frame - 1);
      inputs?.expire();
      devices?.expire();
      // A click's next press or lift comes first; it completes on the tick of its last press.
      const clicked = devices?.clickTick();
      if (clicked !== undefined) completedCommandId = clicked;
      // Only what was queued before this tick (a command queued by a handler waits a frame),
      // and nothing behind a step that still has frames to run or a click still pressing and
      // lifting: order is kept.
      let budget = queue.length;
      while (budget-- > 0 && !clock?.stepping && !devices?.clicking) {
        const c = queue.shift()!;
        apply(c);
        if (!clock?.stepping && !devices?.clickPressing) completedCommandId = c.id;
      }
      if (!clock) return 1;
      const grant = clock.grant();
      if (grant.stepDone !== undefined) completedCommandId = grant.stepDone;
      return grant.frames;
    },

    applied: (id) =>
      new Promise((resolve) => {
        const done = results.find((r) => r.id === id);
        if (done) resolve(done);
        else waiting.set(id, resolve);
      }),

    playerState() {
      const all = state();
      const out: Record<string, unknown> = {};
      for (const k of ['frame', 'simFrame', 'sessionEpoch', 'ui', 'player']) if (all[k] !== undefined) out[k] = all[k];
      return out;
    },

    isHeld: (input) => inputs?.isHeld(input) ?? false,
    axis: (name) => maybeDevices.axis(name),
    pointer: () => maybeDevices.pointer(),
    touches: () => maybeDevices.touches(),
    takeText: () => maybeDevices.takeText(),
    takeWheel: () => maybeDevices.takeWheel(),
    takeEvents: () => maybeDevices.takeEvents(),
    held: () => inputs?.list() ?? [],
    newEpoch() {
      sessionEpoch = (sessionEpoch ?? 0) + 1;
      return sessionEpoch;
    },
    get frame() {
      return frame;
    },
    get simFrame() {
      return clock ? clock.simFrame : frame;
    },
    get paused() {
      return clock?.paused ?? false;
    },
    get completedCommandId() {
      return completedCommandId;
    },
    get sessionEpoch() {
      return sessionEpoch;
    },
    commandNames,
    capabilities,
  };
}

/** The game's own handlers, normalised; a reserved name is a programming error, said at once. */
function gameHandlers(commands: Record<string, CommandHandler | CommandHandler['apply']>): Map<string, CommandHandler> {
  const out = new Map<string, CommandHandler>();
  for (const [name, h] of Object.entries(commands)) {
    if (RESERVED_PREFIXES.some((p) => name.startsWith(p))) {
      throw new Error(
        `command name '${name}' is reserved (input.*, clock.* and ui.* are the kit's; enable them with the inputs, clock and ui options)`,
      );
    }
    out.set(name, typeof h === 'function' ? { apply: h } : h);
  }
  return out;
}
