/**
 * Find or start the daemon and keep one authenticated WebSocket to it.
 *
 * Connect loop: read daemon.json → connect with the bearer token → hello/welcome. When nothing
 * answers, spawn the daemon detached (its output appended to daemon.log) and retry with a capped
 * backoff. A daemon older than this proxy is asked to hand over; a newer one is simply used.
 */
import { readDaemonFile as readInfo, type DaemonInfo } from '../shared/daemon-file.js';
import { createRequire } from 'node:module';
import type WebSocketType from 'ws';
// ws is CommonJS: required directly it costs ~4 MB less RSS than through its ESM wrapper.
const WebSocket = createRequire(import.meta.url)('ws') as typeof WebSocketType;
type WebSocket = WebSocketType;
import { encode, type AckFrame, type HelloFrame, type WelcomeFrame } from '../shared/frames.js';
import type { HomePaths } from '../shared/paths.js';
import { spawnDaemon } from './spawn.js';
import { VERSION } from '../shared/version.js';
import { sleep } from '../shared/sleep.js';

export const ROUND_MS = 10000; // one daemon start is given this long to answer
export const MAX_FAILED_STARTS = 5;
const BACKOFF_FIRST_MS = 20;
// While a daemon boots (about a second) we re-read daemon.json this often: a cheap file read,
// and with a 250 ms cap the proxy noticed the ready daemon ~125 ms late on average (docs/PERFORMANCE.md).
const BACKOFF_CAP_MS = 50;
const GIVEN_UP_RETRY_MS = 2000;

export interface LinkHandlers {
  /** a bare JSON-RPC text from the daemon */
  text(text: string): void;
  ack(frame: AckFrame): void;
  up(welcome: WelcomeFrame): void;
  down(code: number): void;
  /** MAX_FAILED_STARTS daemon starts failed in a row; we keep trying to connect, without starting */
  gaveUp(): void;
  log(line: string): void;
}



export class Link {
  private ws?: WebSocket;
  private connecting = false;
  private closed = false;
  private failedStarts = 0;
  gaveUp = false;

  constructor(
    private readonly paths: HomePaths,
    private readonly hello: Omit<HelloFrame, 't'>,
    private readonly on: LinkHandlers,
  ) {}

  get isUp(): boolean {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN && !this.connecting;
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
    this.closed = true;
    this.ws?.close();
  }

  /** Start the connect loop unless connected or already connecting. */
  connect(): void {
    if (this.connecting || this.isUp || this.closed) return;
    this.connecting = true;
    void this.loop().finally(() => {
      this.connecting = false;
    });
  }

  private async loop(): Promise<void> {
    let roundStart = Date.now();
    let backoff = BACKOFF_FIRST_MS;
    while (!this.closed) {
      const info = readInfo(this.paths.daemonJson);
      const attempt = info ? await this.attempt(info) : 'failed';
      if (attempt === 'up') {
        this.failedStarts = 0;
        this.gaveUp = false;
        return;
      }
      if (attempt === 'handed-over') {
        this.spawnDaemon(true); // the old daemon is gone: start ours at once
        backoff = BACKOFF_FIRST_MS;
        roundStart = Date.now();
        continue;
      }
      if (!this.gaveUp) this.spawnDaemon(false);
      if (!this.gaveUp && Date.now() - roundStart > ROUND_MS) {
        this.failedStarts++;
        roundStart = Date.now();
        if (this.failedStarts >= MAX_FAILED_STARTS) {
          this.gaveUp = true;
          this.on.log(`the daemon failed to start ${this.failedStarts} times in a row; see ${this.paths.daemonLog}`);
          this.on.gaveUp();
        }
      }
      await sleep(this.gaveUp ? GIVEN_UP_RETRY_MS : backoff);
      backoff = Math.min(backoff * 2, BACKOFF_CAP_MS);
    }
  }

  /** One connection attempt: open, hello, welcome. */
  private attempt(info: DaemonInfo): Promise<'up' | 'failed' | 'handed-over'> {
    return new Promise((resolve) => {
      let settled = false;
      const ws = new WebSocket(`ws://127.0.0.1:${info.port}/`, {
        headers: { Authorization: `Bearer ${info.token}` },
        perMessageDeflate: false,
        handshakeTimeout: 2000,
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
      ws.on('open', () => ws.send(encode({ t: 'hello', ...this.hello })));
      ws.once('message', (data) => {
        let welcome: WelcomeFrame;
        try {
          welcome = JSON.parse(data.toString());
        } catch {
          return fail('failed');
        }
        if (welcome.t !== 'welcome') return fail('failed');
        if (welcome.version !== VERSION && isOlder(welcome.version, VERSION)) {
          this.on.log(`daemon v${welcome.version} (pid ${welcome.pid}) is older than this proxy (v${VERSION}); asking it to hand over`);
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
        this.adopt(ws, welcome);
        resolve('up');
      });
    });
  }

  private adopt(ws: WebSocket, welcome: WelcomeFrame): void {
    this.ws = ws;
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('{"t":')) {
        const frame = JSON.parse(text) as { t: string };
        if (frame.t === 'ack') this.on.ack(frame as AckFrame);
        return;
      }
      this.on.text(text);
    });
    ws.on('error', () => undefined); // 'close' follows
    ws.on('close', (code) => {
      if (this.ws === ws) this.ws = undefined;
      this.on.down(code);
    });
    this.on.up(welcome);
  }

  private spawnDaemon(force: boolean): void {
    spawnDaemon(this.paths, this.on.log, force);
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
