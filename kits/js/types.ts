/** The options and surface API both carriers share (the Node HTTP server and the browser page). */
import type { CommandHandler } from './args.js';
import type { AxisDeclaration, DeviceEvent, PointerState, TouchPoint } from './devices.js';
import type { HeldInput } from './input.js';
import type { UiTree, WorldObject } from './trees.js';

export type { CommandHandler };

export interface SharedSurfaceOptions {
  name: string;
  version: string;
  /** Contract protocol version (default 1). */
  protocol?: number;
  /** The game's snapshot; the surface adds `frame`, `completedCommandId` and the extension fields. */
  snapshot: () => Record<string, unknown>;
  /** Game commands by name. `close` is built in (see onClose); `input.*` and `clock.*` are reserved. */
  commands?: Record<string, CommandHandler | CommandHandler['apply']>;
  /** Served at GET /tools; `game` is filled in from name/version/protocol when missing. Absent → 404. */
  manifest?: Record<string, unknown> | (() => Record<string, unknown>);
  /** Publish `completedCommandId` in /state (default true; false imitates an older game). */
  publishCompletedId?: boolean;
  /**
   * Input names the game reads with `surface.isHeld(name)`. Given (even empty), the game
   * declares the "input" capability and accepts `input.hold/release/releaseAll`.
   */
  inputs?: string[];
  /**
   * Analog axes the game reads with `surface.axis(name)`: a stick `{name, min: -1, max: 1}`, a
   * trigger `{name, min: 0, max: 1}`. Given, the game declares the "axis" capability and accepts
   * `input.axis` (held at a value with a lease, resting at 0 when released).
   */
  axes?: AxisDeclaration[];
  /** The game reads `surface.pointer()` (or `takeEvents()`): declares "pointer", accepts `input.pointer`, `input.click` and `input.wheel`. */
  pointer?: boolean;
  /** The game reads `surface.touches()` (or `takeEvents()`): declares "touch", accepts `input.touch`. */
  touch?: boolean;
  /** The game reads typed text with `surface.takeText()`: declares "text", accepts `input.text`. */
  text?: boolean;
  /**
   * The game simulates as many frames as `tick()` returns. True declares the "clock"
   * capability and accepts `clock.pause/resume/step`.
   */
  clock?: boolean;
  /**
   * How many frames of a `clock.step` one `tick()` may grant (default 1: a step takes as many
   * ticks as frames). A game whose simulation does not read the wall clock can take a whole step
   * in one tick, so a replay of a saved test runs faster than real time (docs/KITS.md).
   */
  stepFramesPerTick?: number;
  /**
   * The UI tree as it is now: what a player sees, with handlers for `ui.activate`,
   * `ui.setValue` and `ui.focus`. Given, the game declares the "ui" capability and serves
   * GET /ui; the kit calls it at most once a frame for /ui, and again on the tick that applies
   * a ui.* command, to re-check the node.
   */
  ui?: () => UiTree;
  /** The world objects the game publishes at GET /world (declares the "world" capability). */
  world?: () => WorldObject[];
  /** Publish `sessionEpoch` from the start, at this value (otherwise from the first `newEpoch()`). */
  sessionEpoch?: number;
  /** Where the surface's own diagnostics go (default: the platform's error output). */
  log?: (line: string) => void;
}

/** What the game's own code calls, the same on every carrier. */
export interface SurfaceControls {
  /**
   * One game frame: frame += 1, expired holds come up, queued commands are applied in order.
   * Returns how many simulation frames the game runs now: 1, 0 while the clock is paused, or
   * up to `stepFramesPerTick` while a step runs.
   * Run them before yielding (in the same turn of the event loop), so a poll of /state never
   * sees a command completed but its frames not yet simulated.
   */
  tick(): number;
  /** Is `input` held right now (by any owner, lease not run out)? False for unknown names. */
  isHeld(input: string): boolean;
  /** An analog axis's value now (0 at rest, and for undeclared names). */
  axis(name: string): number;
  /** The pointer in screenshot pixels and its buttons (1 left, 2 right, 4 middle). */
  pointer(): PointerState;
  /** The touch points down now, by id. */
  touches(): TouchPoint[];
  /** The text typed since the last call (and empties the queue). */
  takeText(): string;
  /** The wheel movement since the last call. */
  takeWheel(): { dx: number; dy: number };
  /** Pointer, wheel, touch and text events since the last call, in the order applied (at most the last 256). */
  takeEvents(): DeviceEvent[];
  /** Starts a new session epoch (a new run or level in the same process); returns it. */
  newEpoch(): number;
  readonly frame: number;
  /** Simulation frames granted so far (stops while the clock is paused). */
  readonly simFrame: number;
  /** The agent paused the clock (or a step is running). */
  readonly paused: boolean;
  readonly completedCommandId: number;
  /** The current epoch, or null while the game publishes none. */
  readonly sessionEpoch: number | null;
  /** Names the game accepts, `close` and the reserved ones included. */
  readonly commandNames: string[];
  /** What /health and /tools declare: "input", "pointer", "touch", "axis", "text", "clock", "ui", "world". */
  readonly capabilities: string[];
  /** Live holds, as /state reports them. */
  held(): HeldInput[];
}
