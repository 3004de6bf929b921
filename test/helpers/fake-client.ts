/**
 * A scripted stand-in for GameClient, for unit tests of the sync logic: each /state read returns
 * the next snapshot of a script (the last one repeats), and every call is recorded.
 */
import { gameOffline } from '../../shared/errors.js';
import type { GameClient, State } from '../../daemon/game/client.js';

export interface FakeClient {
  client: GameClient;
  /** /state reads so far */
  reads: number;
  /** commands sent, as [name, args] */
  commands: Array<[string, Record<string, unknown>]>;
  /** the timeouts each /state read was given */
  stateTimeouts: Array<number | undefined>;
  /** the timeouts each /health read was given */
  healthTimeouts: Array<number | undefined>;
  destroyed: boolean;
}

export interface Script {
  /** what /command answers (default accepted, commandId 1, frame 10) */
  ack?: Record<string, unknown>;
  /** snapshots, or errors to throw, in order; the last one repeats */
  states: Array<State | Error>;
  /** /health answers in order (an Error is thrown); the last one repeats */
  health?: Array<Record<string, unknown> | Error>;
  port?: number;
  timeoutMs?: number;
}

export function fakeClient(script: Script): FakeClient {
  const fake: FakeClient = {
    reads: 0,
    commands: [],
    stateTimeouts: [],
    healthTimeouts: [],
    destroyed: false,
    client: undefined as unknown as GameClient,
  };
  let healthReads = 0;
  const at = <T>(xs: T[], i: number) => xs[Math.min(i, xs.length - 1)];
  fake.client = {
    port: script.port ?? 7777,
    timeoutMs: script.timeoutMs ?? 5000,
    close: () => void (fake.destroyed = true),
    async command(cmd: string, args: Record<string, unknown> = {}) {
      fake.commands.push([cmd, args]);
      return { accepted: true, commandId: 1, frame: 10, ...script.ack };
    },
    async state(_signal?: AbortSignal, timeoutMs?: number) {
      fake.stateTimeouts.push(timeoutMs);
      const s = at(script.states, fake.reads++);
      if (s instanceof Error) throw s;
      return structuredClone(s);
    },
    async health(timeoutMs?: number) {
      fake.healthTimeouts.push(timeoutMs);
      const h = at(script.health ?? [gameOffline(script.port ?? 7777)], healthReads++);
      if (h instanceof Error) throw h;
      return h;
    },
  } as unknown as GameClient;
  return fake;
}
