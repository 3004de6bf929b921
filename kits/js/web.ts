/**
 * The game kit for browser pages, exported as `game-bridge-mcp/web` (built as the one-file ES
 * module dist/web/gamebridge.js). Same `createGameSurface` API and core as the Node kit; only
 * the carrier differs: a page cannot listen on a port, so it opens a WebSocket to the bridge's
 * page carrier, which serves the contract over HTTP for it and relays each request here.
 *
 *   <script type="module">
 *     import { createGameSurface } from './gamebridge.js';
 *     const surface = createGameSurface({ name, version, snapshot, commands, manifest });
 *     surface.listen();                          // joins if the URL has #gamebridge=...
 *     function frame() { const n = surface.tick(); for (let i = 0; i < n; i++) step(); requestAnimationFrame(frame); }
 *   </script>
 *
 * Where the browser has WebMCP, the game's player tools are registered there too (webmcp-door.ts;
 * `webmcp: false` turns that off).
 *
 * Joining: the page's URL fragment `#gamebridge=<URL-encoded ws URL>` names the carrier. The page
 * says `{"t":"hello","name","version"}`, then answers each `{"t":"get","id","path"}` with
 * `{"t":"reply","id","status","body"}`. Without the fragment the game runs unbridged. A launch
 * with `paused` adds `&gamebridge-paused=1`: the clock then starts paused at simFrame 0.
 */
import { createSurfaceCore } from './core.js';
import type { DeviceEvent } from './devices.js';
import { exportPlayerTools } from './webmcp-door.js';
import type { SharedSurfaceOptions, SurfaceControls } from './types.js';

export { ArgError, CommandArgs } from './args.js';
export type { CommandHandler, SharedSurfaceOptions, SurfaceControls } from './types.js';
export type { HeldInput } from './input.js';
export type { AxisDeclaration, DeviceEvent, PointerState, TouchPoint } from './devices.js';
export type { UiNode, UiTree, WorldObject } from './trees.js';

export interface WebSurfaceOptions extends SharedSurfaceOptions {
  /** The carrier's WebSocket URL. Default: `#gamebridge=` in the page's location.hash. */
  url?: string;
  /**
   * Called on the tick that applies the `close` command. Default: `surface.close()`, which
   * disconnects (to the bridge the game went offline). A page cannot quit; show an end screen.
   */
  onClose?: (reason: 'command') => void | Promise<void>;
  /** Reconnect when the socket drops (default true), so a restarted bridge finds the page again. */
  reconnect?: boolean;
  /**
   * Where the kit dispatches the agent's pointer, wheel and touch as DOM events (pointer*,
   * mouse*, click, wheel, touch*), at the screenshot's pixels turned into client coordinates,
   * so a game that listens on its canvas needs no other code. A function is asked at each
   * event, for an engine that makes its canvas after the surface (`() => phaser.canvas`).
   * Typed text goes into the focused text field when there is one; `takeText()` has it too.
   */
  inputTarget?: EventTarget | (() => EventTarget | null | undefined);
  /**
   * Register the game's player tools with the browser's WebMCP (`document.modelContext`), when it
   * has one, so an agent in the browser can play with no bridge (default true; webmcp-door.ts).
   */
  webmcp?: boolean;
}

export interface WebGameSurface extends SurfaceControls {
  /**
   * Joins the carrier named by the fragment (or `url`). Resolves true once joined, false at
   * once when there is nothing to join. Joining never blocks the game: start your loop anyway.
   */
  listen(): Promise<boolean>;
  /** Disconnects for good (no reconnect). Idempotent. */
  close(): Promise<void>;
  /** The socket is open and the hello was sent. */
  readonly connected: boolean;
  /** The carrier URL in use, or null (no fragment). */
  readonly url: string | null;
}

const FRAGMENT_KEY = 'gamebridge';
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 2000;

/** The carrier URL from a location hash such as "#gamebridge=ws%3A%2F%2F127.0.0.1%3A7820%2Fpage%3Fkey%3D…". */
export function carrierUrlFromHash(hash: string): string | null {
  const value = new URLSearchParams(hash.replace(/^#/, '')).get(FRAGMENT_KEY);
  return value && /^wss?:\/\//.test(value) ? value : null;
}

/** The bridge opened the page to start paused: `&gamebridge-paused=1` beside the carrier's URL. */
export function startPausedFromHash(hash: string): boolean {
  return new URLSearchParams(hash.replace(/^#/, '')).get(`${FRAGMENT_KEY}-paused`) === '1';
}

export function createGameSurface(options: WebSurfaceOptions): WebGameSurface {
  const log = options.log ?? ((line: string) => console.warn(`game-kit: ${line}`));
  const target = options.inputTarget;
  const core = createSurfaceCore({
    ...options,
    log,
    onCloseCommand: () => requestClose(),
    // The bridge opened the page paused, so a frame-exact test's frame 0 is the page's.
    startPaused: typeof location !== 'undefined' && startPausedFromHash(location.hash),
    ...(target
      ? {
          onDeviceEvent: (e: DeviceEvent) => {
            const at = typeof target === 'function' ? target() : target;
            if (at) dispatchToPage(at, e);
          },
        }
      : {}),
  });
  const url = options.url ?? (typeof location === 'undefined' ? null : carrierUrlFromHash(location.hash));
  const unexport = options.webmcp === false ? null : exportPlayerTools(core, options, log);
  let socket: WebSocket | null = null;
  let connected = false;
  let closed = false;
  let retryMs = RETRY_FIRST_MS;
  /** listen() calls waiting for the first join. */
  const waiting: ((ok: boolean) => void)[] = [];
  const settle = (ok: boolean) => waiting.splice(0).forEach((resolve) => resolve(ok));

  const onClose = options.onClose ?? (() => surface.close());
  // Deferred: `close` is applied inside tick(), and the game's exit path must not run inside it.
  function requestClose(): void {
    Promise.resolve()
      .then(() => onClose('command'))
      .catch((e) => log(`onClose failed: ${(e as Error).message}`));
  }

  // One relayed request: the same answer the Node kit would give over HTTP.
  function onMessage(ws: WebSocket, data: unknown): void {
    let msg: { t?: unknown; id?: unknown; path?: unknown };
    try {
      msg = JSON.parse(String(data));
    } catch {
      return log('the carrier sent a frame that is not JSON; ignored');
    }
    if (msg.t !== 'get' || typeof msg.id !== 'number' || typeof msg.path !== 'string')
      return log(`unexpected message from the carrier (t=${String(msg.t)}); ignored`);
    let reply: { status: number; body: unknown };
    try {
      reply = core.answer(msg.path);
    } catch (e) {
      reply = { status: 500, body: { ok: false, error: (e as Error).message } };
    }
    ws.send(JSON.stringify({ t: 'reply', id: msg.id, status: reply.status, body: reply.body }));
  }

  function connect(): void {
    if (closed || !url) return;
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify({ t: 'hello', name: options.name, version: options.version }));
      connected = true;
      retryMs = RETRY_FIRST_MS;
      settle(true);
    };
    ws.onmessage = (ev) => onMessage(ws, ev.data);
    ws.onclose = (ev) => {
      const was = connected;
      connected = false;
      if (socket === ws) socket = null;
      if (closed || options.reconnect === false) return;
      // A refused join (wrong key, another page already joined) looks the same as a lost one here.
      log(
        `${was ? 'lost the bridge' : 'could not join the bridge'} (code ${ev.code}${ev.reason ? `: ${ev.reason}` : ''}); retrying in ${retryMs} ms`,
      );
      setTimeout(connect, retryMs);
      retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
    };
  }

  // The core's controls (tick, isHeld, frame, ...) are inherited; the carrier adds its own.
  const surface: WebGameSurface = Object.defineProperties(Object.create(core) as WebGameSurface, {
    listen: {
      value: () =>
        new Promise<boolean>((resolve) => {
          if (!url || closed) return resolve(false);
          if (connected) return resolve(true);
          waiting.push(resolve);
          if (!socket) connect();
        }),
    },
    close: {
      value: async () => {
        unexport?.();
        closed = true;
        connected = false;
        socket?.close(1000, 'game closed');
        socket = null;
        settle(false);
      },
    },
    connected: { get: () => connected },
    url: { get: () => url },
  });
  return surface;
}

/** The touches down on the page, for each TouchEvent's `touches`. */
const touchList = new Map<number, Touch>();

/** One device event as the DOM events a browser would fire for it, on `target`. */
function dispatchToPage(target: EventTarget, e: DeviceEvent): void {
  const fire = (ev: Event) => target.dispatchEvent(ev);
  if (e.type === 'text') {
    const field = document.activeElement;
    if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) {
      field.setRangeText(
        e.text,
        field.selectionStart ?? field.value.length,
        field.selectionEnd ?? field.value.length,
        'end',
      );
      field.dispatchEvent(new InputEvent('input', { bubbles: true, data: e.text, inputType: 'insertText' }));
    }
    return;
  }
  // The screenshot's pixels are device pixels; events carry CSS pixels.
  const scale = globalThis.devicePixelRatio || 1;
  const at = { clientX: e.x / scale, clientY: e.y / scale, bubbles: true, cancelable: true, composed: true };
  if (e.type === 'wheel') return void fire(new WheelEvent('wheel', { ...at, deltaX: e.dx, deltaY: e.dy }));
  if (!('id' in e)) {
    const init = {
      ...at,
      buttons: e.buttons,
      button: e.button ?? -1,
      pointerId: 1,
      pointerType: 'mouse',
      isPrimary: true,
    };
    fire(new PointerEvent(e.type, init));
    const mouse = e.type === 'pointermove' ? 'mousemove' : e.type === 'pointerdown' ? 'mousedown' : 'mouseup';
    fire(new MouseEvent(mouse, { ...init, button: Math.max(0, init.button) }));
    if (e.type === 'pointerup' && e.button === 0) fire(new MouseEvent('click', { ...init, button: 0 }));
    return;
  }
  const pointerId = 2 + e.id;
  const pointerType = e.type === 'touchstart' ? 'pointerdown' : e.type === 'touchmove' ? 'pointermove' : 'pointerup';
  fire(new PointerEvent(pointerType, { ...at, pointerId, pointerType: 'touch', isPrimary: e.id === 0 }));
  if (typeof Touch === 'undefined') return;
  // A Touch's page and screen coordinates default to 0, not to its client ones: give them all.
  const [pageX, pageY] = [at.clientX + (globalThis.scrollX || 0), at.clientY + (globalThis.scrollY || 0)];
  const touch = new Touch({
    identifier: e.id,
    target,
    clientX: at.clientX,
    clientY: at.clientY,
    pageX,
    pageY,
    screenX: at.clientX,
    screenY: at.clientY,
  });
  if (e.type === 'touchend') touchList.delete(e.id);
  else touchList.set(e.id, touch);
  fire(new TouchEvent(e.type, { ...at, touches: [...touchList.values()], changedTouches: [touch] }));
}
