/**
 * Find or start the daemon and keep one authenticated WebSocket to it.
 *
 * Connect loop: read daemon.json → check its pid is alive and holds the port → connect with a
 * proof of the token (never the token itself) → the daemon's welcome must prove the token too
 * → only then hello, which carries the client's cwd, argv and environment. When nothing
 * answers, spawn the daemon detached (its output appended to daemon.log) and retry with a capped
 * backoff. A daemon older than this proxy is asked to hand over; a newer one is simply used.
 *
 * The link is in one state at a time (`state`), as ws's readyState; the connect loop runs in
 * connecting, given-up and refused:
 *
 *   idle ──connect()──▶ connecting ──welcome proved, hello sent──▶ up
 *    ▲                     │                                         │
 *    │                     ▼ MAX_FAILED_STARTS starts failed in a row │
 *    │                  given-up (keeps connecting, starts no daemon) ──a daemon answers──▶ up
 *    │                                                               │
 *    └─────────────────────────── socket closed ◀─────────────────────┘
 *   connecting, given-up ──home refused──▶ refused ──allowed again──▶ the one it left
 *   any ──close()──▶ closed (final)
 */
import { listenerOwnedBy, pidAlive, readDaemonFile, sameProcess, type DaemonInfo } from '../shared/daemon-file.js';
import { clientCredentials, proofOk } from '../shared/auth.js';
// Bundled with the proxy (dist/proxy/bundle.mjs), so its ESM wrapper costs nothing there.
import WebSocket from 'ws';
import {
  encode,
  MAX_FRAME_BYTES,
  type AckFrame,
  type HelloFrame,
  type NoticeFrame,
  type WelcomeFrame,
} from '../shared/frames.js';
import type { HomePaths } from '../shared/paths.js';
import { daemonStarting, homeRefusal, spawnDaemon, standbyTakingOver } from './spawn.js';
import { VERSION } from '../shared/version.js';
import { sleep } from '../shared/sleep.js';
import { pauseUntilFileChanges } from './file-wait.js';

export const ROUND_MS = 10000; // one daemon start is given this long to answer
export const MAX_FAILED_STARTS = 5;
const BACKOFF_FIRST_MS = 20;
// While a daemon boots we re-read daemon.json this often: a cheap file read, and a long cap
// would make the proxy notice the ready daemon half a cap late on average.
const BACKOFF_CAP_MS = 50;
const GIVEN_UP_RETRY_MS = 2000;
// A standby publishes well within this of its primary's death (a light one loads the daemon first); past it, start a daemon.
const STANDBY_GRACE_MS = 2000;

export interface LinkHandlers {
  /** a bare JSON-RPC text from the daemon */
  text(text: string): void;
  ack(frame: AckFrame): void;
  up(welcome: WelcomeFrame): void;
  /** the daemon's remark on this client's settings (a bad flag) */
  notice(frame: NoticeFrame): void;
  down(code: number): void;
  /** MAX_FAILED_STARTS daemon starts failed in a row; we keep trying to connect, without starting */
  gaveUp(): void;
  /** the home may not hold a daemon (why, with the fix), or may again (undefined) */
  refused(why: string | undefined): void;
  log(line: string): void;
}

/** Where the link is (see the diagram above); only `up` holds a socket. */
type LinkState =
  | { kind: 'idle' }
  | { kind: 'connecting' }
  | { kind: 'given-up' }
  | { kind: 'refused'; why: string }
  | { kind: 'up'; ws: WebSocket }
  | { kind: 'closed' };

/** The states the connect loop runs in. */
const LOOPING: ReadonlySet<LinkState['kind']> = new Set(['connecting', 'given-up', 'refused']);

export class Link {
  private state: LinkState = { kind: 'idle' };
  /** daemon starts that failed in a row (since the last time the link was up) */
  private failedStarts = 0;
  /** the last impostor reported, so a retry loop does not repeat it every 50 ms */
  private lastDistrust = '';
  /** a dead daemon's standby this loop waits for, and since when */
  private awaited?: { pid: number; pidStart?: number; since: number };

  constructor(
    private readonly paths: HomePaths,
    /** built at each connect: the environment it carries may depend on files that changed */
    private readonly hello: () => Omit<HelloFrame, 't'>,
    private readonly on: LinkHandlers,
  ) {}

  get isUp(): boolean {
    return this.state.kind === 'up' && this.state.ws.readyState === WebSocket.OPEN;
  }

  /** MAX_FAILED_STARTS daemon starts failed in a row: the loop keeps connecting, and starts none. */
  get gaveUp(): boolean {
    return this.state.kind === 'given-up';
  }

  /** Why the home is refused, while it is (homeRefusal). */
  get refusal(): string | undefined {
    return this.state.kind === 'refused' ? this.state.why : undefined;
  }

  private get ws(): WebSocket | undefined {
    return this.state.kind === 'up' ? this.state.ws : undefined;
  }

  get bufferedAmount(): number {
    return this.ws?.bufferedAmount ?? 0;
  }

  send(text: string): void {
    this.ws?.send(text);
  }

  pauseReading(): void {
    this.ws?.pause();
  }

  resumeReading(): void {
    this.ws?.resume();
  }

  close(): void {
    const ws = this.ws;
    this.to({ kind: 'closed' });
    ws?.close();
  }

  /** Start the connect loop from idle; in any other state it runs already, is up, or is closed. */
  connect(): void {
    if (this.state.kind !== 'idle') return;
    this.to({ kind: 'connecting' });
    // the loop ends up or closed; should it ever throw, the next connect() starts it again
    void this.loop().finally(() => {
      if (LOOPING.has(this.state.kind)) this.to({ kind: 'idle' });
    });
  }

  /** Every transition: none leaves closed. */
  private to(next: LinkState): void {
    if (this.state.kind !== 'closed') this.state = next;
  }

  private async loop(): Promise<void> {
    let roundStart = Date.now();
    let backoff = BACKOFF_FIRST_MS;
    while (LOOPING.has(this.state.kind)) {
      const info = readDaemonFile(this.paths.daemonJson);
      const attempt = info && this.believable(info) ? await this.attempt(info) : 'failed';
      if (attempt === 'up') {
        this.awaited = undefined;
        this.failedStarts = 0;
        return;
      }
      if (attempt === 'handed-over') {
        this.spawnDaemon(true); // the old daemon is gone: start ours at once
        backoff = BACKOFF_FIRST_MS;
        roundStart = Date.now();
        continue;
      }
      if (this.refused()) {
        await sleep(GIVEN_UP_RETRY_MS);
        continue;
      }
      if (!this.gaveUp && !this.standbyTakingOver(info) && !daemonStarting(this.paths)) this.spawnDaemon(false);
      if (!this.gaveUp && Date.now() - roundStart > ROUND_MS) {
        this.failedStarts++;
        roundStart = Date.now();
        if (this.failedStarts >= MAX_FAILED_STARTS) {
          this.to({ kind: 'given-up' });
          this.on.log(`the daemon failed to start ${this.failedStarts} times in a row; see ${this.paths.daemonLog}`);
          this.on.gaveUp();
        }
      }
      // a daemon that publishes daemon.json ends the pause early (a cold start's daemon does)
      await pauseUntilFileChanges(this.paths.daemonJson, this.gaveUp ? GIVEN_UP_RETRY_MS : backoff);
      backoff = Math.min(backoff * 2, BACKOFF_CAP_MS);
    }
  }

  /** daemon.json's pid runs and, where the OS tells (Linux /proc), holds the port it names. */
  private believable(info: DaemonInfo): boolean {
    if (!pidAlive(info.pid)) return false;
    if (listenerOwnedBy(info.port, info.pid) !== false) return true;
    this.distrusted(`port ${info.port} (from daemon.json) is not held by daemon pid ${info.pid}; not connecting to it`);
    return false;
  }

  /** Is the home refused? A new verdict is said once on stderr and to the proxy. */
  private refused(): boolean {
    const why = homeRefusal(this.paths);
    if (why === this.refusal) return !!why;
    if (why) this.to({ kind: 'refused', why });
    else this.to({ kind: this.failedStarts >= MAX_FAILED_STARTS ? 'given-up' : 'connecting' });
    if (why) this.on.log(why);
    this.on.refused(why);
    return !!why;
  }

  private distrusted(why: string): void {
    if (why !== this.lastDistrust) this.on.log(why);
    this.lastDistrust = why;
  }

  /** One connection attempt: open with a proof of the token, the daemon's proof in welcome, hello. */
  private attempt(info: DaemonInfo): Promise<'up' | 'failed' | 'handed-over'> {
    return new Promise((resolve) => {
      let settled = false;
      const { authorization, nonce } = clientCredentials(info.token);
      const ws = new WebSocket(`ws://127.0.0.1:${info.port}/`, {
        headers: { Authorization: authorization },
        perMessageDeflate: false,
        handshakeTimeout: 2000,
        maxPayload: MAX_FRAME_BYTES,
      });
      const fail = (why: 'failed' | 'handed-over') => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        if (why === 'failed') ws.terminate();
        resolve(why);
      };
      const timer = setTimeout(() => fail('failed'), 5000);
      ws.on('error', () => fail('failed'));
      ws.on('close', () => fail('failed'));
      ws.once('message', (data) => {
        const welcome = parseControl(data.toString()) as WelcomeFrame | undefined;
        if (welcome?.t !== 'welcome' || !proofOk(info.token, nonce, welcome.proof)) {
          this.distrusted(
            `whatever answers on port ${info.port} did not prove it knows daemon.json's token; nothing was sent to it`,
          );
          return fail('failed');
        }
        if (welcome.version !== VERSION && isOlder(welcome.version, VERSION)) {
          this.on.log(
            `daemon v${welcome.version} (pid ${welcome.pid}) is older than this proxy (v${VERSION}); asking it to hand over`,
          );
          ws.removeAllListeners('close');
          ws.once('close', () => fail('handed-over'));
          ws.send(encode({ t: 'handover' }));
          return;
        }
        if (welcome.version !== VERSION) {
          this.on.log(`daemon v${welcome.version} is newer than this proxy (v${VERSION}); using it`);
        }
        settled = true;
        clearTimeout(timer);
        ws.removeAllListeners();
        ws.send(encode({ t: 'hello', ...this.hello() }));
        this.lastDistrust = '';
        this.adopt(ws, welcome);
        resolve('up');
      });
    });
  }

  private adopt(ws: WebSocket, welcome: WelcomeFrame): void {
    if (this.state.kind === 'closed') return void ws.close();
    this.to({ kind: 'up', ws });
    ws.on('message', (data) => {
      const text = data.toString();
      if (!text.startsWith('{"t":')) return this.on.text(text);
      const frame = parseControl(text);
      if (frame?.t === 'ack' && typeof (frame as AckFrame).seq === 'number') this.on.ack(frame as AckFrame);
      else if (frame?.t === 'notice' && typeof (frame as NoticeFrame).configError === 'string')
        this.on.notice(frame as NoticeFrame);
      else if (!frame) this.on.log(`dropped a control frame from the daemon that is not JSON: ${text.slice(0, 120)}`);
    });
    ws.on('error', () => undefined); // 'close' follows
    ws.on('close', (code) => {
      if (this.ws === ws) this.to({ kind: 'idle' });
      this.on.down(code);
    });
    this.on.up(welcome);
  }

  /** A dead daemon's standby is taking over: start no rival for a while (it would only slow it). */
  private standbyTakingOver(info: DaemonInfo | undefined): boolean {
    // remembered: the standby removes the dead daemon's daemon.json before it writes its own
    if (standbyTakingOver(info)) this.awaited ??= { ...info!.standby!, since: Date.now() };
    const w = this.awaited;
    return !!w && Date.now() - w.since < STANDBY_GRACE_MS && sameProcess(w.pid, w.pidStart);
  }

  private spawnDaemon(force: boolean): void {
    spawnDaemon(this.paths, this.on.log, force);
  }
}

/** A control frame, or undefined when the text is not a JSON object. */
function parseControl(text: string): { t?: unknown } | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as { t?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/** Semver-ish "a < b" (numeric parts; a pre-release sorts before its release). */
export function isOlder(a: string, b: string): boolean {
  const parse = (v: string) => {
    const [core, pre] = v.split('-', 2);
    return { nums: core.split('.').map((n) => Number.parseInt(n, 10) || 0), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d < 0;
  }
  if (x.pre && !y.pre) return true;
  if (!x.pre && y.pre) return false;
  return (x.pre ?? '') < (y.pre ?? '');
}
