/**
 * The stdio proxy: what an MCP client spawns. It knows nothing about games: it relays
 * JSON-RPC between the client and the daemon and hides daemon restarts (reconnect, replay
 * initialize, re-send what is safe, answer what is not).
 */
import { randomUUID } from 'node:crypto';
import { CLOSE_SHUTDOWN, rpcFrame, type WelcomeFrame } from '../shared/frames.js';
import { bridgeHome, homePaths } from '../shared/paths.js';
import { VERSION } from '../shared/version.js';
import { Link, MAX_FAILED_STARTS } from './link.js';
import { interruptedAnswer, PendingTable, planReplay, requestKey, SessionMemory, unavailableAnswer, type ClientRequest } from './replay.js';
import { classifyLine, Stdio, type Json } from '../shared/stdio-lines.js';
import { stringEnv } from '../shared/env.js';
import { discoverResult, PROTOCOL_VERSION_META } from '../shared/server-identity.js';

/** How long a request may wait for a daemon that is down before it is answered with an error. */
export const RECONNECT_DEADLINE_MS = Number(process.env.GAME_BRIDGE_RECONNECT_DEADLINE_MS) || 30000;
const QUEUE_LIMIT = 1000;
const WS_HIGH_WATER = 1 << 20;
const WS_LOW_WATER = 1 << 18;

interface Queued {
  line: string;
  req?: ClientRequest;
  method?: string;
  since: number;
}


const log = (line: string) => process.stderr.write(`game-bridge-mcp: ${line}\n`);

export function runProxy(argv: string[] = process.argv.slice(2)): void {
  const paths = homePaths(bridgeHome());
  const sessionId = randomUUID();
  const pending = new PendingTable();
  const memory = new SessionMemory();
  const queue: Queued[] = [];
  /** daemon → client requests in flight (dropped, and cancelled for the client, on a restart) */
  const serverRequests = new Map<string, string | number>();
  /** ids of the proxy's own requests, whose answers the client never sees */
  const hidden = new Map<string, 'initialize' | 'tools/list'>();
  let hiddenCounter = 0;
  let seq = 0;
  let downSince: number | undefined = Date.now();
  let configErrorShown = false;
  let exiting = false;

  const env = stringEnv();

  const stdio = new Stdio({ line: onClientLine, end: exit });
  const link = new Link(paths, { version: VERSION, sessionId, pid: process.pid, cwd: process.cwd(), argv, env }, {
    text: onDaemonText,
    ack: (frame) => pending.ack(frame.seq, frame.replay),
    up: onUp,
    down: onDown,
    gaveUp: () => failWaiting(`the bridge daemon failed to start ${MAX_FAILED_STARTS} times in a row; see ${paths.daemonLog}`),
    log,
  });

  // ---- client → daemon ----

  function onClientLine(line: string): void {
    const c = classifyLine(line);
    switch (c.kind) {
      case 'answer':
        return void stdio.write(c.answer);
      case 'request':
        return onClientRequest(line, c.msg, c.method);
      case 'response': {
        // the client's answer to a daemon request: meaningless to any other daemon
        if (!serverRequests.delete(requestKey(c.id)) || !link.isUp) return;
        return forwardOther(line);
      }
      case 'notification':
        if (c.method === 'notifications/cancelled' && cancelLocally(c.msg)) return;
        return forwardOther(line, c.method);
    }
  }

  /**
   * The client gave up on a request: the server sends no answer to a cancelled request, so it
   * leaves the pending table now (else a daemon restart would re-send it, and the client would
   * get an answer for an id it cancelled). A request still queued never reached any daemon: it
   * is dropped with its cancellation. True when nothing is left to forward.
   */
  function cancelLocally(msg: Json): boolean {
    const key = requestKey((msg.params as Json | undefined)?.requestId);
    pending.settle(key);
    const queued = queue.findIndex((q) => q.req?.key === key);
    if (queued < 0) return false;
    queue.splice(queued, 1);
    return true;
  }

  function onClientRequest(line: string, m: Json, method: string): void {
    const id = m.id as string | number;
    const params = (m.params ?? {}) as Json;
    const req: ClientRequest = { id, key: requestKey(id), method, line };
    if (method === 'tools/call' && typeof params.name === 'string') req.tool = params.name;
    if (typeof (params._meta as Json | undefined)?.[PROTOCOL_VERSION_META] === 'string') req.modern = true;
    if (method === 'initialize') {
      memory.initialize = { params: m.params, key: req.key };
      memory.initializeAnswered = false;
      memory.initializedSent = false;
    }
    if (method === 'tools/list' && params.cursor === undefined) memory.toolsListKeys.add(req.key);
    if (link.isUp) return sendRequest(req);
    if (method === 'ping') return void stdio.write(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
    if (method === 'server/discover') return answerDiscover(id);
    if (link.gaveUp) return void stdio.write(unavailableAnswer(req, `the bridge daemon could not be started; see ${paths.daemonLog}`));
    if (queue.length >= QUEUE_LIMIT) {
      return void stdio.write(unavailableAnswer(req, `${QUEUE_LIMIT} messages are already waiting for the bridge daemon to come back`));
    }
    queue.push({ line, req, method, since: Date.now() });
    link.connect();
  }

  function forwardOther(line: string, method?: string): void {
    if (link.isUp) return sendOther(line, method);
    if (queue.length < QUEUE_LIMIT) queue.push({ line, method, since: Date.now() });
    link.connect();
  }

  function sendRequest(req: ClientRequest): void {
    const s = ++seq;
    pending.add(req, s);
    sendFrame(rpcFrame(s, req.line));
  }

  function sendOther(line: string, method?: string): void {
    sendFrame(rpcFrame(++seq, line));
    if (method === 'notifications/initialized') memory.initializedSent = true;
  }

  function sendHidden(kind: 'initialize' | 'tools/list', params: unknown): void {
    const id = `gbp-${kind === 'initialize' ? 'init' : 'tools'}-${++hiddenCounter}-${sessionId.slice(0, 8)}`;
    hidden.set(requestKey(id), kind);
    sendFrame(rpcFrame(++seq, JSON.stringify({ jsonrpc: '2.0', id, method: kind, params: params ?? {} })));
  }

  let stdinPaused = false;
  function sendFrame(text: string): void {
    link.send(text);
    if (!stdinPaused && link.bufferedAmount > WS_HIGH_WATER) {
      stdinPaused = true;
      stdio.pause();
      const poll = setInterval(() => {
        if (link.bufferedAmount < WS_LOW_WATER || !link.isUp) {
          clearInterval(poll);
          stdinPaused = false;
          stdio.resume();
        }
      }, 10);
    }
  }

  // ---- daemon → client ----

  function onDaemonText(text: string): void {
    let msg: Json | undefined;
    try {
      msg = JSON.parse(text) as Json;
    } catch {
      /* not ours to judge: pass it on */
    }
    if (msg && typeof msg === 'object' && msg.id !== undefined && msg.id !== null) {
      const key = requestKey(msg.id);
      if (msg.method === undefined) {
        const mine = hidden.get(key);
        if (mine) {
          hidden.delete(key);
          if (mine === 'tools/list') compareTools(msg.result);
          return; // the client already has its answer from the first daemon
        }
        const settled = pending.settle(key);
        if (settled?.method === 'initialize' && msg.result) memory.initializeAnswered = true;
        if (settled?.method === 'server/discover' && msg.result) memory.discover = msg.result;
        if (memory.toolsListKeys.delete(key)) {
          const tools = (msg.result as Json | undefined)?.tools;
          if (tools) memory.toolsSeen = JSON.stringify(tools);
        }
      } else {
        serverRequests.set(key, msg.id as string | number);
      }
    }
    if (!stdio.write(text)) {
      link.pauseReading();
      stdio.onDrain(() => link.resumeReading());
    }
  }

  function compareTools(result: unknown): void {
    const tools = (result as Json | undefined)?.tools;
    if (!tools) return;
    const now = JSON.stringify(tools);
    if (memory.toolsSeen !== undefined && memory.toolsSeen !== now) {
      stdio.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }));
    }
    memory.toolsSeen = now;
  }

  // ---- connection lifecycle ----

  function onUp(welcome: WelcomeFrame): void {
    if (welcome.configError && !configErrorShown) {
      configErrorShown = true;
      log(welcome.configError);
    }
    downSince = undefined;
    // A new daemon has never seen this client: tell it what the client told the first one.
    if (memory.initialize && memory.initializeAnswered) {
      sendHidden('initialize', memory.initialize.params);
      if (memory.initializedSent) sendOther(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      if (memory.toolsSeen !== undefined) sendHidden('tools/list', {});
    }
    const { resend, interrupted } = planReplay(pending.drain());
    for (const p of interrupted) stdio.write(interruptedAnswer(p));
    for (const p of resend) sendRequest(p);
    for (const q of queue.splice(0)) {
      if (q.req) sendRequest(q.req);
      else sendOther(q.line, q.method);
    }
  }

  function onDown(code: number): void {
    hidden.clear();
    for (const [, id] of serverRequests) {
      stdio.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the bridge daemon restarted' } }));
    }
    serverRequests.clear();
    if (exiting) return;
    // A ping or a discover caught in flight needs no daemon: answer it now, not after the reconnect.
    for (const p of pending.take((p) => p.method === 'ping')) stdio.write(JSON.stringify({ jsonrpc: '2.0', id: p.id, result: {} }));
    for (const p of pending.take((p) => p.method === 'server/discover')) answerDiscover(p.id);
    downSince = Date.now();
    // After `game-bridge-mcp stop`, start a daemon again only when the client needs one.
    if (code === CLOSE_SHUTDOWN && pending.size === 0 && queue.length === 0) return;
    link.connect();
  }

  /** `server/discover` while the daemon is down: what the last daemon said, else the same facts built here. */
  function answerDiscover(id: string | number): void {
    stdio.write(JSON.stringify({ jsonrpc: '2.0', id, result: memory.discover ?? discoverResult() }));
  }

  /** Answer every waiting request with an error (deadline passed or the daemon cannot start). */
  function failWaiting(detail: string, olderThan = Infinity): void {
    const now = Date.now();
    if (downSince !== undefined && now - downSince >= olderThan) {
      for (const p of pending.drain()) stdio.write(unavailableAnswer(p, detail));
    } else if (olderThan === Infinity) {
      for (const p of pending.drain()) stdio.write(unavailableAnswer(p, detail));
    }
    for (let i = queue.length - 1; i >= 0; i--) {
      const q = queue[i];
      if (q.req && (olderThan === Infinity || now - q.since >= olderThan)) {
        queue.splice(i, 1);
        stdio.write(unavailableAnswer(q.req, detail));
      }
    }
  }

  const deadlineCheck = setInterval(() => {
    if (link.isUp || downSince === undefined) return;
    failWaiting(`the bridge daemon did not come back within ${RECONNECT_DEADLINE_MS}ms; see ${paths.daemonLog}`, RECONNECT_DEADLINE_MS);
  }, Math.min(1000, RECONNECT_DEADLINE_MS / 4));
  deadlineCheck.unref();

  function exit(why: string): void {
    if (exiting) return;
    exiting = true;
    if (why.startsWith('stdout')) log(why);
    link.close();
    setImmediate(() => process.exit(0));
  }

  stdio.start();
  if (!exiting) link.connect();
}
