/**
 * The stdio proxy: what an MCP client spawns. It knows nothing about games: it relays
 * JSON-RPC between the client and the daemon and hides daemon restarts (reconnect, replay
 * initialize, re-send what is safe, answer what is not).
 *
 * One object, StdioProxy, whose fields are the whole of the proxy's state: the pending table,
 * the session memory, the waiting room (messages waiting for a daemon, and the link's up/down
 * clock: waiting.ts), and the daemon's own requests in flight.
 */
import { randomUUID } from 'node:crypto';
import { CLOSE_SHUTDOWN } from '../shared/frames.js';
import { rpcNotification, rpcResult } from '../shared/jsonrpc.js';
import { bridgeHome, homePaths, type HomePaths } from '../shared/paths.js';
import { VERSION } from '../shared/version.js';
import { classifyLine, Stdio, tooLongText, type Json } from '../shared/stdio-lines.js';
import { daemonMessage } from './daemon-text.js';
import { helloEnv } from './hello-env.js';
import { discoverResult, PROTOCOL_VERSION_META } from '../shared/server-identity.js';
import { Link, MAX_FAILED_STARTS } from './link.js';
import { Outbox } from './outbox.js';
import {
  interruptedAnswer,
  MAX_SENDS,
  PendingTable,
  planReplay,
  refusedAnswer,
  requestKey,
  SessionMemory,
  unavailableAnswer,
  type ClientRequest,
} from './replay.js';
import { QUEUE_LIMIT, WaitingRoom } from './waiting.js';
import { Subscriptions } from './resubscribe.js';
import { numberSetting, SETTINGS } from '../shared/settings.js';

/** How long a request may wait for a daemon that is down before it is answered with an error. */
export const RECONNECT_DEADLINE_MS = numberSetting(SETTINGS.reconnectDeadlineMs);

const log = (line: string) => process.stderr.write(`game-bridge-mcp: ${line}\n`);

export class StdioProxy {
  readonly sessionId = randomUUID();
  /** client requests a daemon has (or may have) seen and not answered */
  readonly pending = new PendingTable();
  /** what a new daemon must be told again, and the tool list the client saw */
  readonly memory = new SessionMemory();
  /** client messages waiting for a daemon, and since when none is connected */
  readonly waiting = new WaitingRoom();
  /** daemon → client requests in flight (dropped, and cancelled for the client, on a restart) */
  readonly serverRequests = new Map<string, string | number>();
  /** the client's resource subscriptions, told again to a new daemon */
  readonly subscriptions = new Subscriptions();
  private configErrorShown = false;
  private exiting = false;
  private readonly stdio: Stdio;
  private readonly link: Link;
  /** numbered frames to the daemon, and stdin's backpressure */
  private readonly outbox: Outbox;

  constructor(
    readonly argv: string[],
    readonly paths: HomePaths = homePaths(bridgeHome()),
  ) {
    this.stdio = new Stdio({
      line: (l) => this.onClientLine(l),
      tooLong: (bytes, id) => this.onTooLong(bytes, id),
      end: (why) => this.exit(why),
    });
    const hello = () => ({
      version: VERSION,
      sessionId: this.sessionId,
      pid: process.pid,
      cwd: process.cwd(),
      argv,
      env: helloEnv(process.env, process.cwd(), argv),
    });
    this.link = new Link(paths, hello, {
      text: (t) => this.onDaemonText(t),
      ack: (frame) => this.pending.ack(frame.seq, frame.replay),
      up: () => this.onUp(),
      notice: (n) => this.onNotice(n.configError),
      down: (code) => this.onDown(code),
      gaveUp: () =>
        this.failWaiting(
          `the bridge daemon failed to start ${MAX_FAILED_STARTS} times in a row; see ${paths.daemonLog}`,
        ),
      refused: (why) => this.answerRefused(why),
      log,
    });
    this.outbox = new Outbox(this.link, this.stdio, this.pending, this.memory, this.sessionId);
  }

  start(): void {
    const deadlineCheck = setInterval(() => this.checkDeadline(), Math.min(1000, RECONNECT_DEADLINE_MS / 4));
    deadlineCheck.unref();
    this.stdio.start();
    if (!this.exiting) this.link.connect();
  }

  // ---- client → daemon ----

  private onClientLine(line: string): void {
    const c = classifyLine(line);
    switch (c.kind) {
      case 'answer':
        return void this.stdio.write(c.answer);
      case 'request':
        return this.onClientRequest(line, c.msg, c.method);
      case 'response':
        // the client's answer to a daemon request: meaningless to any other daemon
        if (!this.serverRequests.delete(requestKey(c.id)) || !this.link.isUp) return;
        return this.forwardOther(line);
      case 'notification':
        if (c.method === 'notifications/cancelled' && this.cancelLocally(c.msg)) return;
        return this.forwardOther(line, c.method);
    }
  }

  /** A line over the limit never goes to the daemon (whose frame limit would drop the link). */
  private onTooLong(bytes: number, id: string | number | null): void {
    this.stdio.write(tooLongText(bytes, id));
  }

  /**
   * The client gave up on a request: the server sends no answer to a cancelled request, so it
   * leaves the pending table now (else a daemon restart would re-send it, and the client would
   * get an answer for an id it cancelled). A request still queued never reached any daemon: it
   * is dropped with its cancellation. True when nothing is left to forward.
   */
  private cancelLocally(msg: Json): boolean {
    const key = requestKey((msg.params as Json | undefined)?.requestId);
    this.pending.settle(key);
    return this.waiting.dropRequest(key);
  }

  private onClientRequest(line: string, m: Json, method: string): void {
    const id = m.id as string | number;
    const params = (m.params ?? {}) as Json;
    const req: ClientRequest = { id, key: requestKey(id), method, line };
    if (method === 'tools/call' && typeof params.name === 'string') req.tool = params.name;
    if (typeof (params._meta as Json | undefined)?.[PROTOCOL_VERSION_META] === 'string') req.modern = true;
    this.memory.noteRequest(req, m.params);
    this.subscriptions.noteRequest(req, m.params);
    if (this.link.isUp) return this.outbox.request(req);
    if (method === 'ping') return void this.stdio.write(rpcResult(id, {}));
    if (method === 'server/discover') return this.answerDiscover(id);
    if (this.link.refusal) return void this.stdio.write(refusedAnswer(req, this.link.refusal));
    if (this.link.gaveUp)
      return void this.stdio.write(
        unavailableAnswer(req, `the bridge daemon could not be started; see ${this.paths.daemonLog}`),
      );
    if (this.waiting.full) {
      return void this.stdio.write(
        unavailableAnswer(req, `${QUEUE_LIMIT} messages are already waiting for the bridge daemon to come back`),
      );
    }
    this.waiting.add(line, method, req);
    this.link.connect();
  }

  private forwardOther(line: string, method?: string): void {
    if (this.link.isUp) return this.outbox.other(line, method);
    this.waiting.add(line, method);
    this.link.connect();
  }

  // ---- daemon → client ----

  private onDaemonText(text: string): void {
    const m = daemonMessage(text);
    if (!m)
      return void log(`dropped a message from the daemon that is not one JSON-RPC message: ${text.slice(0, 120)}`);
    if (m.msg.id !== undefined && m.msg.id !== null) {
      const key = requestKey(m.msg.id);
      if (m.msg.method === undefined) {
        if (this.memory.isHidden(key)) return this.onHiddenAnswer(key, m.msg);
        const settled = this.pending.settle(key);
        if (settled) this.memory.noteAnswer(settled, m.msg);
        if (settled) this.subscriptions.noteAnswer(settled, m.msg);
      } else {
        this.serverRequests.set(key, m.msg.id as string | number);
      }
    }
    if (!this.stdio.write(m.text)) {
      // Stop reading the socket while stdout is full (the daemon does not run a request
      // before its ack has left, so nothing applied is lost if it dies meanwhile).
      this.link.pauseReading();
      this.stdio.onDrain(() => this.link.resumeReading());
    }
  }

  /** The answer to a hidden request: the client already has its own from the first daemon. */
  private onHiddenAnswer(key: string, msg: Json): void {
    const kind = this.memory.takeHidden(key);
    if (kind === 'resources/subscribe') return this.onResubscribed(key, msg);
    if (kind === 'tools/list' && this.memory.toolsChanged(msg.result)) {
      this.stdio.write(rpcNotification('notifications/tools/list_changed'));
    }
  }

  // ---- connection lifecycle ----

  /** A bad flag in the client's argv: said once, however many daemons say it. */
  private onNotice(configError: string): void {
    if (this.configErrorShown) return;
    this.configErrorShown = true;
    log(configError);
  }

  private onUp(): void {
    this.waiting.downSince = undefined;
    // A new daemon has never seen this client: tell it what the client told the first one.
    const memo = this.memory;
    if (memo.initialize && memo.initializeAnswered) {
      this.outbox.hidden('initialize', memo.initialize.params);
      if (memo.initializedSent) this.outbox.other(rpcNotification('notifications/initialized'));
      if (memo.toolsSeen !== undefined) this.outbox.hidden('tools/list', {});
      this.resubscribe();
    }
    const { resend, interrupted, exhausted } = planReplay(this.pending.drain());
    for (const p of interrupted) this.stdio.write(interruptedAnswer(p));
    for (const p of exhausted)
      this.stdio.write(
        unavailableAnswer(
          p,
          `the connection to the bridge daemon dropped ${MAX_SENDS} times while it was in flight, so it is not sent again; see ${this.paths.daemonLog}`,
        ),
      );
    for (const p of resend) this.outbox.request(p);
    for (const q of this.waiting.takeAll()) {
      if (q.req) this.outbox.request(q.req);
      else this.outbox.other(q.line, q.method);
    }
  }

  /** A new daemon gets the client's resource subscriptions again (its session is new). */
  private resubscribe(): void {
    for (const uri of this.subscriptions.uris())
      this.subscriptions.replaying(this.outbox.hidden('resources/subscribe', { uri }), uri);
  }

  /**
   * A re-subscription the new daemon refused: the client's subscription has ended, and it is
   * told plainly (a log line), and sent one update so it reads the resource and meets the reason.
   */
  private onResubscribed(key: string, msg: Json): void {
    const lost = this.subscriptions.replayAnswer(key, msg);
    if (!lost) return;
    log(`the subscription to ${lost.uri} could not be renewed after the daemon restarted: ${lost.why}`);
    this.stdio.write(rpcNotification('notifications/resources/updated', { uri: lost.uri }));
  }

  private onDown(code: number): void {
    this.memory.clearHidden();
    for (const [, id] of this.serverRequests) {
      this.stdio.write(
        rpcNotification('notifications/cancelled', { requestId: id, reason: 'the bridge daemon restarted' }),
      );
    }
    this.serverRequests.clear();
    if (this.exiting) return;
    // A ping or a discover caught in flight needs no daemon: answer it now, not after the reconnect.
    for (const p of this.pending.take((p) => p.method === 'ping')) this.stdio.write(rpcResult(p.id, {}));
    for (const p of this.pending.take((p) => p.method === 'server/discover')) this.answerDiscover(p.id);
    this.waiting.downSince = Date.now();
    // After `game-bridge-mcp stop`, start a daemon again only when the client needs one.
    if (code === CLOSE_SHUTDOWN && this.pending.size === 0 && this.waiting.size === 0) return;
    this.link.connect();
  }

  /** `server/discover` while the daemon is down: what the last daemon said, else the same facts built here. */
  private answerDiscover(id: string | number): void {
    this.stdio.write(rpcResult(id, this.memory.discover ?? discoverResult()));
  }

  private checkDeadline(): void {
    if (this.link.isUp || this.waiting.downSince === undefined) return;
    this.failWaiting(
      `the bridge daemon did not come back within ${RECONNECT_DEADLINE_MS}ms; see ${this.paths.daemonLog}`,
      RECONNECT_DEADLINE_MS,
    );
  }

  /** Answer every waiting request with an error (deadline passed or the daemon cannot start). */
  private failWaiting(detail: string, olderThan = Infinity): void {
    const now = Date.now();
    if (this.waiting.downFor(olderThan, now))
      for (const p of this.pending.drain()) this.stdio.write(unavailableAnswer(p, detail));
    for (const req of this.waiting.takeExpired(olderThan, now)) this.stdio.write(unavailableAnswer(req, detail));
  }

  /** The home was refused: the requests waiting for a daemon are told why, and the fix. */
  private answerRefused(why: string | undefined): void {
    if (!why) return;
    for (const req of this.waiting.takeExpired(Infinity, Date.now())) this.stdio.write(refusedAnswer(req, why));
  }

  private exit(why: string): void {
    if (this.exiting) return;
    this.exiting = true;
    if (why.startsWith('stdout')) log(why);
    this.link.close();
    setImmediate(() => process.exit(0));
  }
}

export function runProxy(argv: string[] = process.argv.slice(2)): void {
  new StdioProxy(argv).start();
}
