/**
 * The game side of the contract for Node games, exported as `game-bridge-mcp/game`: the
 * platform-neutral core (core.ts) carried over HTTP on 127.0.0.1, plus the registry entry and
 * signal handling. The browser twin is web.ts (`game-bridge-mcp/web`), same API.
 *
 *   const surface = createGameSurface({ port, name, version, snapshot, commands, manifest, onClose });
 *   await surface.listen();          // binds 127.0.0.1:port, then writes the registry entry
 *   setInterval(() => { const n = surface.tick(); for (let i = 0; i < n; i++) step(); }, 1000 / 60);
 *
 * HTTP requests never touch game state: `/command` only queues, and `tick()` (called by the
 * game's own loop) applies the queue in order and advances `completedCommandId`. That is what
 * lets the bridge confirm a command really happened.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSurfaceCore } from './core.js';
import { removeQuietly, writeRegistryEntry } from './registry.js';
import type { SharedSurfaceOptions, SurfaceControls } from './types.js';
import type { Env } from '../../shared/paths.js';

export { ArgError, CommandArgs } from './args.js';
export type { RegistryEntry } from './registry.js';
export type { CommandHandler, SharedSurfaceOptions, SurfaceControls } from './types.js';
export type { HeldInput } from './input.js';
export type { AxisDeclaration, DeviceEvent, PointerState, TouchPoint } from './devices.js';
export type { UiNode, UiTree, WorldObject } from './trees.js';

/** Why the surface asks the game to close. */
export type CloseReason = 'command' | 'SIGINT' | 'SIGTERM';

export interface GameSurfaceOptions extends SharedSurfaceOptions {
  /** Port on 127.0.0.1 (0 = OS-assigned; read `surface.port` after listen). */
  port: number;
  /** Served at GET /screenshot as image/png. Absent → 404. */
  screenshot?: () => Buffer | Promise<Buffer>;
  /**
   * The game's normal exit path, called for the `close` command (on the tick) and for SIGINT /
   * SIGTERM. Default: `await surface.close(); process.exit(0)`. A game that overrides it
   * should end the same way (or decide to ignore the request).
   */
  onClose?: (reason: CloseReason) => void | Promise<void>;
  /** Install SIGINT/SIGTERM handlers that call onClose (default true). */
  handleSignals?: boolean;
  /** Where GAME_BRIDGE_INSTANCES, GAME_BRIDGE_HOME and GAME_BRIDGE_START_PAUSED come from (default process.env). */
  env?: Env;
  /** Write the registry entry (default true). */
  register?: boolean;
  /** Longest accepted request target in bytes (default 64 KiB); longer → 414. */
  maxUrlBytes?: number;
}

export interface GameSurface extends SurfaceControls {
  /** Binds 127.0.0.1, then writes the registry entry. Rejects (with a readable message) if the port cannot be bound. */
  listen(): Promise<void>;
  /** Stops serving and removes the registry entry. Idempotent. Does not exit the process. */
  close(): Promise<void>;
  readonly port: number;
  /** Path of the registry entry, or null (not written, failed, or removed). */
  readonly registryFile: string | null;
}

/** Set to 1 by the bridge to launch the game with its clock paused at simFrame 0 (docs/KITS.md). */
export const START_PAUSED_ENV = 'GAME_BRIDGE_START_PAUSED';

export function createGameSurface(options: GameSurfaceOptions): GameSurface {
  const log = options.log ?? ((line: string) => process.stderr.write(`game-kit: ${line}\n`));
  // A port from argv that was never given is NaN: say what is wrong before node's socket error does.
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new RangeError(
      `createGameSurface: port must be an integer 0-65535 (0 = any free port), got ${String(options.port)}. Pass the debug port, e.g. \`node my-game.mjs 7820\`.`,
    );
  }
  const maxUrlBytes = options.maxUrlBytes ?? 64 * 1024;
  const core = createSurfaceCore({
    ...options,
    log,
    onCloseCommand: () => requestClose('command'),
    extraEndpoints: ['/screenshot'],
    // The bridge launched the game paused, so a frame-exact test's frame 0 is the game's.
    startPaused: (options.env ?? process.env)[START_PAUSED_ENV] === '1',
  });

  let boundPort = options.port;
  let registryFile: string | null = null;
  let closed = false;

  const onClose =
    options.onClose ??
    (async () => {
      await surface.close();
      process.exit(0);
    });

  // Deferred: `close` is applied inside tick(), and the game's exit path must not run inside it.
  function requestClose(reason: CloseReason): void {
    Promise.resolve()
      .then(() => onClose(reason))
      .catch((e) => log(`onClose failed: ${(e as Error).message}`));
  }

  const server = http.createServer({ maxHeaderSize: maxUrlBytes + 16 * 1024 }, (req, res) => {
    handle(req, res).catch((e) => send(res, 500, { ok: false, error: (e as Error).message }));
  });
  // Pollers reuse connections; keep them open longer than Node's 5 s default.
  server.keepAliveTimeout = 30_000;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    // Node keeps the first of two Host headers; a proxy in front could read the other one.
    if (hostCount(req) > 1) return send(res, 400, { ok: false, accepted: false, error: TWO_HOSTS });
    const refused = browserRefusal(req, boundPort);
    if (refused) return send(res, 403, { ok: false, accepted: false, error: refused });
    if (Buffer.byteLength(target) > maxUrlBytes) {
      return send(res, 414, { accepted: false, error: `request too long (over ${maxUrlBytes} bytes)` });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET');
      return send(res, 405, { ok: false, error: `method ${req.method} not allowed; the game surface is GET only` });
    }
    if (target === '/screenshot' || target.startsWith('/screenshot?')) {
      if (!options.screenshot) return send(res, 404, { error: 'this game takes no screenshots' });
      const png = await options.screenshot();
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length });
      res.end(req.method === 'HEAD' ? undefined : png);
      return;
    }
    const { status, body } = core.answer(target);
    send(res, status, body);
  }

  const onSignal = (sig: CloseReason) => () => requestClose(sig);
  const sigint = onSignal('SIGINT');
  const sigterm = onSignal('SIGTERM');
  // Last-chance cleanup for process.exit() and a natural end of the event loop.
  const onExit = () => {
    if (registryFile) removeQuietly(registryFile);
  };

  // Runs once the port is bound: signals, exit cleanup, then the registry entry (never before the bind).
  function afterBind(): void {
    boundPort = (server.address() as AddressInfo).port;
    process.on('exit', onExit);
    if (options.handleSignals !== false) {
      process.on('SIGINT', sigint);
      process.on('SIGTERM', sigterm);
    }
    if (options.register === false) return;
    const entry = {
      name: options.name,
      version: options.version,
      protocol: options.protocol ?? 1,
      port: boundPort,
      pid: process.pid,
      host: '127.0.0.1' as const,
      started: new Date().toISOString(),
      cwd: process.cwd(),
    };
    registryFile = writeRegistryEntry(entry, options.env ?? process.env, log);
  }

  // The core's controls (tick, isHeld, frame, ...) are inherited; the carrier adds its own.
  const surface: GameSurface = Object.defineProperties(Object.create(core) as GameSurface, {
    listen: {
      value: () =>
        new Promise<void>((resolve, reject) => {
          const fail = (e: NodeJS.ErrnoException) => {
            const why =
              e.code === 'EADDRINUSE'
                ? 'the port is already in use'
                : e.code === 'EACCES'
                  ? 'permission denied'
                  : e.message;
            reject(new Error(`cannot listen on 127.0.0.1:${options.port}: ${why}`));
          };
          server.once('error', fail);
          server.listen({ port: options.port, host: '127.0.0.1', exclusive: true }, () => {
            server.off('error', fail);
            server.on('error', (e) => log(`server error: ${e.message}`));
            afterBind();
            log(`listening on 127.0.0.1:${boundPort} (${options.name} ${options.version})`);
            resolve();
          });
        }),
    },
    close: {
      value: async () => {
        if (closed) return;
        closed = true;
        if (registryFile) removeQuietly(registryFile);
        registryFile = null;
        process.off('SIGINT', sigint);
        process.off('SIGTERM', sigterm);
        process.off('exit', onExit);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      },
    },
    port: { get: () => boundPort },
    registryFile: { get: () => registryFile },
  });
  return surface;
}

/**
 * Why a request is refused as a browser's (docs/CONTRACT.md, "Refuse browsers"), or null. Any
 * web page can make the user's browser call a loopback port, and a DNS-rebinding page does so
 * under its own Host name; the bridge and curl send neither Origin nor Sec-Fetch-Site.
 */
function browserRefusal(req: http.IncomingMessage, port: number): string | null {
  const host = req.headers.host;
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
    return `Forbidden: unexpected Host header '${(host ?? '').slice(0, 100)}' (this port answers 127.0.0.1:${port} only)`;
  const site = req.headers['sec-fetch-site'];
  if (req.headers.origin !== undefined || (site !== undefined && site !== 'none'))
    return 'Forbidden: browser requests are refused on a game port';
  return null;
}

const TWO_HOSTS = 'Bad Request: more than one Host header';

function hostCount(req: http.IncomingMessage): number {
  let n = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'host') n++;
  return n;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
