/**
 * The game side of the contract (SPEC §2 parts 1 and 2) for Node games, exported as
 * `game-bridge-mcp/game`.
 *
 *   const surface = createGameSurface({ port, name, version, snapshot, commands, manifest, onClose });
 *   await surface.listen();          // binds 127.0.0.1:port, then writes the registry entry
 *   setInterval(() => { surface.tick(); step(); }, 1000 / 60);
 *
 * HTTP requests never touch game state: `/command` only queues, and `tick()` (called by the
 * game's own loop) applies the queue in order and advances `completedCommandId`. That is what
 * lets the bridge confirm a command really happened.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ArgError, CommandArgs } from './args.js';
import { removeQuietly, writeRegistryEntry } from './registry.js';
import type { Env } from '../../shared/paths.js';

export { ArgError, CommandArgs } from './args.js';
export type { RegistryEntry } from './registry.js';

export interface CommandHandler {
  /**
   * Runs when the command arrives (on the HTTP side, before queueing). Return a reason (or
   * throw an ArgError, e.g. from `args.number('x')`) to refuse it with `accepted: false`.
   * Must not touch game state: it is not on the game's tick.
   */
  validate?: (args: CommandArgs) => string | undefined | void;
  /** Runs on the game's tick, in arrival order. */
  apply: (args: CommandArgs, info: { commandId: number; frame: number }) => void;
}

/** Why the surface asks the game to close. */
export type CloseReason = 'command' | 'SIGINT' | 'SIGTERM';

export interface GameSurfaceOptions {
  /** Port on 127.0.0.1 (0 = OS-assigned; read `surface.port` after listen). */
  port: number;
  name: string;
  version: string;
  /** Contract protocol version (default 1). */
  protocol?: number;
  /** The game's snapshot; the surface adds `frame` and `completedCommandId`. */
  snapshot: () => Record<string, unknown>;
  /** Game commands by name. `close` is built in (see onClose). */
  commands?: Record<string, CommandHandler | CommandHandler['apply']>;
  /** Served at GET /tools; `game` is filled in from name/version/protocol when missing. Absent → 404. */
  manifest?: Record<string, unknown> | (() => Record<string, unknown>);
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
  /** Publish `completedCommandId` in /state (default true; false imitates an older game). */
  publishCompletedId?: boolean;
  /** Where GAME_BRIDGE_INSTANCES / GAME_BRIDGE_HOME come from (default process.env). */
  env?: Env;
  /** Write the registry entry (default true). */
  register?: boolean;
  /** Longest accepted request target in bytes (default 64 KiB); longer → 414. */
  maxUrlBytes?: number;
  /** Where the surface's own diagnostics go (default: stderr, prefixed "game-kit: "). */
  log?: (line: string) => void;
}

export interface GameSurface {
  /** Binds 127.0.0.1, then writes the registry entry. Rejects (with a readable message) if the port cannot be bound. */
  listen(): Promise<void>;
  /** One game frame: frame += 1, then every queued command is applied in order. */
  tick(): void;
  /** Stops serving and removes the registry entry. Idempotent. Does not exit the process. */
  close(): Promise<void>;
  readonly port: number;
  readonly frame: number;
  readonly completedCommandId: number;
  /** Path of the registry entry, or null (not written, failed, or removed). */
  readonly registryFile: string | null;
  /** Names the game accepts, `close` included. */
  readonly commandNames: string[];
}

interface Queued {
  id: number;
  cmd: string;
  args: CommandArgs;
}

const CLOSE = 'close';

export function createGameSurface(options: GameSurfaceOptions): GameSurface {
  const log = options.log ?? ((line: string) => process.stderr.write(`game-kit: ${line}\n`));
  const protocol = options.protocol ?? 1;
  const maxUrlBytes = options.maxUrlBytes ?? 64 * 1024;
  const handlers = new Map<string, CommandHandler>();
  for (const [name, h] of Object.entries(options.commands ?? {})) {
    handlers.set(name, typeof h === 'function' ? { apply: h } : h);
  }
  const commandNames = [...new Set([...handlers.keys(), CLOSE])];

  let frame = 0;
  let nextId = 1;
  let completedCommandId = 0;
  let boundPort = options.port;
  let registryFile: string | null = null;
  let closed = false;
  const queue: Queued[] = [];

  const onClose =
    options.onClose ??
    (async () => {
      await surface.close();
      process.exit(0);
    });

  const requestClose = (reason: CloseReason) => {
    Promise.resolve()
      .then(() => onClose(reason))
      .catch((e) => log(`onClose failed: ${(e as Error).message}`));
  };

  const server = http.createServer({ maxHeaderSize: maxUrlBytes + 16 * 1024 }, (req, res) => {
    handle(req, res).catch((e) => send(res, 500, { ok: false, error: (e as Error).message }));
  });
  // Pollers reuse connections; keep them open longer than Node's 5 s default.
  server.keepAliveTimeout = 30_000;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    if (Buffer.byteLength(target) > maxUrlBytes) {
      return send(res, 414, { accepted: false, error: `request too long (over ${maxUrlBytes} bytes)` });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET');
      return send(res, 405, { ok: false, error: `method ${req.method} not allowed; the game surface is GET only` });
    }
    // Split by hand: `new URL` would read "//x" as a host, and URLSearchParams never throws
    // on a malformed escape (it keeps the text as sent).
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    const params = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));

    switch (path) {
      case '/health':
        return send(res, 200, { ok: true, frame });
      case '/state':
        return send(res, 200, state());
      case '/command':
        return command(params, res);
      case '/tools': {
        if (!options.manifest) return send(res, 404, { error: 'this game publishes no manifest' });
        const m = typeof options.manifest === 'function' ? options.manifest() : options.manifest;
        return send(res, 200, { ...m, game: m.game ?? { name: options.name, version: options.version, protocol } });
      }
      case '/screenshot': {
        if (!options.screenshot) return send(res, 404, { error: 'this game takes no screenshots' });
        const png = await options.screenshot();
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length });
        res.end(req.method === 'HEAD' ? undefined : png);
        return;
      }
      default:
        return send(res, 404, { error: `no such endpoint '${path}'`, endpoints: ['/health', '/state', '/command', '/tools', '/screenshot'] });
    }
  }

  function state(): Record<string, unknown> {
    const s: Record<string, unknown> = { frame, ...options.snapshot() };
    s.frame = frame; // the surface owns the frame counter, whatever the snapshot says
    if (options.publishCompletedId === false) delete s.completedCommandId;
    else s.completedCommandId = completedCommandId;
    return s;
  }

  function command(params: URLSearchParams, res: http.ServerResponse): void {
    const cmd = params.get('cmd');
    if (!cmd) return send(res, 400, { accepted: false, error: "missing 'cmd' (GET /command?cmd=NAME&arg=value)", known: commandNames });
    const raw: Record<string, string> = {};
    for (const [k, v] of params) if (k !== 'cmd') raw[k] = v;
    const args = new CommandArgs(raw);
    if (cmd !== CLOSE) {
      const h = handlers.get(cmd);
      if (!h) return send(res, 200, { accepted: false, error: `unknown command '${cmd}'`, known: commandNames });
      try {
        const why = h.validate?.(args);
        if (why) return send(res, 200, { accepted: false, error: why });
      } catch (e) {
        if (e instanceof ArgError) return send(res, 200, { accepted: false, error: e.message });
        throw e;
      }
    }
    const id = nextId++;
    queue.push({ id, cmd, args });
    send(res, 200, { accepted: true, commandId: id, frame });
  }

  function apply(c: Queued): void {
    if (c.cmd === CLOSE) {
      requestClose('command');
      return;
    }
    try {
      handlers.get(c.cmd)!.apply(c.args, { commandId: c.id, frame });
    } catch (e) {
      // A failing command still completes: the bridge must not wait forever for it.
      log(`command #${c.id} '${c.cmd}' failed: ${(e as Error).message}`);
    }
  }

  const onSignal = (sig: CloseReason) => () => requestClose(sig);
  const sigint = onSignal('SIGINT');
  const sigterm = onSignal('SIGTERM');
  // Last-chance cleanup for process.exit() and a natural end of the event loop.
  const onExit = () => {
    if (registryFile) removeQuietly(registryFile);
  };

  const surface: GameSurface = {
    listen() {
      return new Promise<void>((resolve, reject) => {
        const fail = (e: NodeJS.ErrnoException) => {
          const why = e.code === 'EADDRINUSE' ? 'the port is already in use' : e.code === 'EACCES' ? 'permission denied' : e.message;
          reject(new Error(`cannot listen on 127.0.0.1:${options.port}: ${why}`));
        };
        server.once('error', fail);
        server.listen({ port: options.port, host: '127.0.0.1', exclusive: true }, () => {
          server.off('error', fail);
          server.on('error', (e) => log(`server error: ${e.message}`));
          boundPort = (server.address() as AddressInfo).port;
          process.on('exit', onExit);
          if (options.handleSignals !== false) {
            process.on('SIGINT', sigint);
            process.on('SIGTERM', sigterm);
          }
          if (options.register !== false) {
            registryFile = writeRegistryEntry(
              {
                name: options.name,
                version: options.version,
                protocol,
                port: boundPort,
                pid: process.pid,
                host: '127.0.0.1',
                started: new Date().toISOString(),
                cwd: process.cwd(),
              },
              options.env ?? process.env,
              log,
            );
          }
          resolve();
        });
      });
    },

    tick() {
      frame += 1;
      // Only what was queued before this tick; a command queued by a handler waits a frame.
      const batch = queue.splice(0, queue.length);
      for (const c of batch) {
        apply(c);
        completedCommandId = c.id;
      }
    },

    async close() {
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

    get port() {
      return boundPort;
    },
    get frame() {
      return frame;
    },
    get completedCommandId() {
      return completedCommandId;
    },
    get registryFile() {
      return registryFile;
    },
    commandNames,
  };
  return surface;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
