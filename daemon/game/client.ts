/**
 * GameClient: the HTTP surface of docs/CONTRACT.md, for one port.
 *
 * One keep-alive agent per game (a poll loop reuses its socket instead of paying a TCP
 * handshake per /state). Every call has a timeout and a body-size cap, and every failure
 * maps onto the taxonomy: nothing listening → GameOffline; something that does not speak
 * the contract → NotAGameSurface; a refusal → CommandRejected.
 */
import { z } from 'zod/v4';
import { callInterrupted, commandRejected, gameOffline, notAGameSurface, usageError } from '../../shared/errors.js';
import type { LocalSurfaceLookup } from './local-surfaces.js';
import {
  HOST,
  HttpWire,
  InProcessWire,
  isNoPage,
  type GameWire,
  type NoPage,
  type WireAnswer,
  type WireTarget,
} from './wire.js';
import type { FrameReading } from './restarts.js';

export { HOST };
/** A /state bigger than this is refused rather than buffered (a game may send 50 MB). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export type Health = { ok: boolean; frame?: number; [k: string]: unknown };

export interface CommandAnswer {
  accepted: true;
  commandId?: number;
  frame?: number;
  [k: string]: unknown;
}

export type State = Record<string, unknown>;

/*
 * What a game's answers are checked as. Only what the bridge reads is checked; the rest of an
 * answer is the game's own and passes through. A refusal is cut to what an agent can read.
 */
const MAX_REASON_CHARS = 2000;
const MAX_KNOWN = 200;
const MAX_NAME_CHARS = 200;
const clipped = (max: number) => (s: string) => (s.length > max ? `${s.slice(0, max)}…` : s);

const healthSchema = z.looseObject({ ok: z.literal(true), frame: z.number().optional().catch(undefined) });
const stateSchema = z.record(z.string(), z.unknown());
const acceptedSchema = z.looseObject({
  accepted: z.literal(true),
  commandId: z.number().optional().catch(undefined),
  frame: z.number().optional().catch(undefined),
});
const refusalSchema = z.object({
  error: z.string().catch('').transform(clipped(MAX_REASON_CHARS)),
  known: z
    .array(z.unknown())
    .transform((names) => names.slice(0, MAX_KNOWN).map((n) => clipped(MAX_NAME_CHARS)(String(n))))
    .optional()
    .catch(undefined),
});

export interface GameClientOptions {
  timeoutMs?: number;
  /** shown in GameOffline ("make run PORT={port}") */
  launchHint?: string;
  /** told of every answer that carried a frame, with its timing (restart detection) */
  onReading?: (reading: FrameReading) => void;
  /** the surfaces this process serves itself (local-surfaces.ts): a port found there is asked in-process */
  local?: LocalSurfaceLookup;
}

export class GameClient {
  private readonly http: HttpWire;
  timeoutMs: number;
  launchHint?: string;

  constructor(
    readonly port: number,
    private readonly opts: GameClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.launchHint = opts.launchHint;
    this.http = new HttpWire(this.target());
  }

  get baseUrl(): string {
    return `http://${HOST}:${this.port}`;
  }

  /** The wire to this port: in-process to a page this process carries (it may start carrying one later), else HTTP. */
  private wire(): GameWire {
    const local = this.opts.local?.get(this.port);
    return local ? new InProcessWire(local, this.target()) : this.http;
  }

  private target(): WireTarget {
    return { port: this.port, launchHint: this.launchHint, maxBytes: MAX_BODY_BYTES };
  }

  /** GET path → the game's answer, or no page (a page carrier with none to ask). Connection failures become GameOffline. */
  get(path: string, timeoutMs = this.timeoutMs, signal?: AbortSignal): Promise<WireAnswer | NoPage> {
    return this.wire().get(path, timeoutMs, signal);
  }

  private async getJson(
    path: string,
    timeoutMs?: number,
    signal?: AbortSignal,
  ): Promise<{ status: number; json: unknown }> {
    const ans = await this.get(path, timeoutMs, signal);
    const route = path.split('?')[0];
    if (isNoPage(ans)) {
      // A browser game's page carrier with no page behind it (docs/CONTRACT.md, "Browser games").
      if (ans.interrupted && route === '/command')
        throw callInterrupted(
          `The command on port ${this.port}`,
          "the game's page went away while the command was in flight",
        );
      throw gameOffline(this.port, this.launchHint);
    }
    if (ans.status === 404) return { status: 404, json: undefined };
    let json: unknown;
    try {
      json = JSON.parse(ans.body.toString('utf8'));
    } catch {
      throw notAGameSurface(this.port, `GET ${route} returned HTTP ${ans.status} that is not JSON`);
    }
    const frame = (json as { frame?: unknown } | null)?.frame;
    if (this.opts.onReading && typeof frame === 'number' && Number.isFinite(frame))
      this.opts.onReading({ frame, sentAt: ans.sentAt, receivedAt: ans.receivedAt });
    if (ans.status < 200 || ans.status >= 300) {
      // A page's own state seam that failed (web/stand-in.ts): the project's expression or the page's function.
      if (route === '/state' && typeof Object(json).stateError === 'string')
        throw usageError(String(Object(json).stateError).slice(0, 800));
      // A refusal from /command may come with a 4xx and a JSON body: let the caller read it.
      if (route === '/command' && json && typeof json === 'object') return { status: ans.status, json };
      throw notAGameSurface(this.port, `GET ${route} returned HTTP ${ans.status}`);
    }
    return { status: ans.status, json };
  }

  async health(timeoutMs?: number): Promise<Health> {
    const { status, json } = await this.getJson('/health', timeoutMs);
    if (status === 404) throw notAGameSurface(this.port, 'GET /health returned HTTP 404');
    const h = healthSchema.safeParse(json);
    if (!h.success) throw notAGameSurface(this.port, 'GET /health did not answer {"ok": true}');
    return h.data;
  }

  /** The snapshot; `timeoutMs` lets a caller with its own deadline spend no more than what is left. */
  async state(signal?: AbortSignal, timeoutMs?: number): Promise<State> {
    const { status, json } = await this.getJson('/state', timeoutMs, signal);
    if (status === 404) throw notAGameSurface(this.port, 'GET /state returned HTTP 404');
    const state = stateSchema.safeParse(json);
    if (!state.success) throw notAGameSurface(this.port, 'GET /state did not return a JSON object');
    return state.data;
  }

  /** Queue a command (fire and forget). Throws CommandRejected when the game says accepted: false. */
  async command(cmd: string, args: Record<string, unknown> = {}): Promise<CommandAnswer> {
    const q = new URLSearchParams();
    q.set('cmd', cmd);
    for (const [k, v] of Object.entries(args)) {
      if (v === undefined || k === 'cmd') continue;
      q.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    }
    const { status, json } = await this.getJson(`/command?${q.toString()}`);
    if (status === 404) throw notAGameSurface(this.port, 'GET /command returned HTTP 404');
    const accepted = acceptedSchema.safeParse(json);
    if (accepted.success) return accepted.data;
    const refusal = refusalSchema.safeParse(json);
    if (!refusal.success) throw notAGameSurface(this.port, 'GET /command did not return a JSON object');
    throw commandRejected(cmd, this.port, refusal.data.error, refusal.data.known);
  }

  /** The manifest as served, or null when the game publishes none (404). */
  async tools(): Promise<unknown | null> {
    const { status, json } = await this.getJson('/tools');
    return status === 404 ? null : json;
  }

  /** `GET /ui` or `GET /world` as served (docs/CONTRACT.md, "The UI and world trees"), or null when the game serves none (404). */
  async tree(which: 'ui' | 'world', signal?: AbortSignal, timeoutMs?: number): Promise<unknown> {
    return this.getJson(`/${which}`, timeoutMs, signal).then(({ status, json }) => (status === 404 ? null : json));
  }

  /** PNG bytes, or null when the game does not implement the extension. */
  async screenshot(): Promise<Buffer | null> {
    const ans = await this.get('/screenshot');
    if (isNoPage(ans)) throw gameOffline(this.port, this.launchHint);
    if (ans.status === 404 || ans.status === 501) return null;
    if (ans.status !== 200) throw notAGameSurface(this.port, `GET /screenshot returned HTTP ${ans.status}`);
    return ans.body;
  }

  close(): void {
    this.http.close();
  }
}
