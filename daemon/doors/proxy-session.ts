/**
 * One proxy's WebSocket connection, once let in: the daemon says `welcome` first, the proxy says
 * `hello` (its settings, cwd and pid) within 5 s, and the connection becomes one engine session
 * over a WsTransport. A `handover` frame, at any time, asks this daemon to make way for a newer one.
 */
import type { WebSocket } from 'ws';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { CLOSE_BAD_HELLO, encode, type HelloFrame, type RpcFrame } from '../../shared/frames.js';
import { VERSION } from '../../shared/version.js';
import { WsTransport } from './transport.js';
import type { DaemonState } from '../state/state.js';
import { createEngineSession, type EngineSession } from '../sessions/session.js';
import { sessionConfig } from '../sessions/client-config.js';

const HELLO_TIMEOUT_MS = 5000;

/** What a proxy connection needs from the daemon. */
export interface ProxySessionDeps {
  state: DaemonState;
  log: (line: string) => void;
  /** a proxy of a newer version asked us to hand over */
  onHandover: () => void;
  /** the daemon is shutting down or handing over: open no more sessions */
  ending: () => boolean;
}

/** Welcome a proxy (with our proof when it proved the token with a nonce), then serve its session. */
export function acceptProxy(ws: WebSocket, proof: string | undefined, deps: ProxySessionDeps): void {
  ws.on('error', (e) => deps.log(`connection error: ${e.message}`));
  // First, before the proxy says anything: who we are, and that we know the token.
  ws.send(encode({ t: 'welcome', version: VERSION, pid: process.pid, ...(proof ? { proof } : {}) }));
  const helloTimer = setTimeout(() => ws.close(CLOSE_BAD_HELLO, 'no hello'), HELLO_TIMEOUT_MS);
  // hello: waiting for it; opening: a client's flags load their parser first; gone: closed, or never opened
  let phase: 'hello' | 'opening' | 'open' | 'gone' = 'hello';
  let transport: WsTransport | undefined;
  /** rpc frames that came while the session was opening */
  const early: RpcFrame[] = [];

  ws.on('message', (data) => {
    let frame: { t?: string } | null;
    try {
      frame = JSON.parse(data.toString());
    } catch {
      deps.log('a proxy sent a frame that is not JSON; closing it');
      ws.close(CLOSE_BAD_HELLO, 'bad frame');
      return;
    }
    if (frame?.t === 'handover') {
      deps.log(`proxy asked for a handover (${transport ? `session ${transport.sessionId}` : 'before hello'})`);
      return deps.onHandover();
    }
    if (phase === 'open' && frame?.t === 'rpc') transport!.receive(frame as RpcFrame);
    if (phase === 'opening' && frame?.t === 'rpc') early.push(frame as RpcFrame);
    if (phase !== 'hello') return;
    clearTimeout(helloTimer);
    if (frame?.t !== 'hello') return void ws.close(CLOSE_BAD_HELLO, 'first frame must be hello');
    // Read no more until the session is open; what the socket already holds is kept in order.
    phase = 'opening';
    ws.pause();
    openSession(ws, frame as HelloFrame, deps).then(
      (opened) => {
        if (!opened) return void (phase = 'gone');
        transport = opened;
        phase = 'open';
        for (const f of early.splice(0)) opened.receive(f);
        ws.resume();
      },
      (e: unknown) => {
        phase = 'gone';
        deps.log(`a proxy's session could not open: ${e instanceof Error ? e.stack : String(e)}`);
        ws.terminate(); // not close(): paused, the socket would never read the proxy's closing frame
      },
    );
  });
}

/** The proxy's hello becomes an engine session, served over the connection until it closes (undefined: it closed first). */
async function openSession(ws: WebSocket, hello: HelloFrame, deps: ProxySessionDeps): Promise<WsTransport | undefined> {
  const { config, configError } = await sessionConfig(hello);
  // gone meanwhile, or the daemon is ending: its games may be reaped or handed over already
  if (ws.readyState !== ws.OPEN || deps.ending()) return undefined;
  const sessionId = String(hello.sessionId || 'anonymous');
  const session: EngineSession = createEngineSession(deps.state, config, sessionId, {
    cwd: config.cwd,
    pid: Number(hello.pid) || undefined,
    configError,
  });
  const transport = session.tap(new WsTransport(ws, (msg) => session.replayVerdict(msg), sessionId));
  ws.on('close', () => {
    session.close().catch((e) => deps.log(`session ${sessionId} close failed: ${String(e)}`));
  });
  // The era (2025 initialize, or 2026 per-request _meta) is pinned by the connection's opening.
  serveStdio(() => session.buildServer(), {
    transport,
    onerror: (e) => deps.log(`session ${sessionId}: ${e.message}`),
  });
  deps.log(
    `session ${sessionId} from proxy pid ${hello.pid} (v${hello.version}) cwd ${hello.cwd}${configError ? `; config error: ${configError}` : ''}`,
  );
  if (configError) ws.send(encode({ t: 'notice', configError }));
  return transport;
}
