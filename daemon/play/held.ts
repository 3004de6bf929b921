/**
 * Which inputs each MCP session holds on which game port (docs/KITS.md, "Playing in time").
 * The game enforces each lease itself; this record exists so the daemon can release a
 * session's inputs the moment that session ends, its game is stopped, or the daemon shuts
 * down, with `input.releaseAll {owner}`, which never touches another owner's inputs.
 */
import type { GameClient } from '../game/client.js';

type ClientFor = (port: number) => GameClient;

export class HeldInputs {
  /** port → owner → input → when its lease runs out (ms since the epoch) */
  private ports = new Map<number, Map<string, Map<string, number>>>();
  /** "port owner" → where that owner last put the pointer and which of its buttons are down */
  private pointers = new Map<string, { x: number; y: number; buttons: number }>();

  /** Where `owner` last put the pointer on `port` and the buttons it holds (0: none). */
  pointerOf(port: number, owner: string): { x: number; y: number; buttons: number } | undefined {
    return this.pointers.get(`${port} ${owner}`);
  }

  /** `owner` put the pointer at x,y with these buttons down; while any is down, it is held like an input. */
  pointerAt(port: number, owner: string, x: number, y: number, buttons: number): void {
    this.pointers.set(`${port} ${owner}`, { x, y, buttons });
    if (buttons) this.hold(port, owner, 'pointer', 3_600_000);
    else this.released(port, owner, 'pointer');
  }

  hold(port: number, owner: string, input: string, leaseMs: number): void {
    let owners = this.ports.get(port);
    if (!owners) this.ports.set(port, (owners = new Map()));
    let inputs = owners.get(owner);
    if (!inputs) owners.set(owner, (inputs = new Map()));
    inputs.set(input, Date.now() + leaseMs);
  }

  /** Forget one input of `owner` on `port`, or all of them when `input` is undefined. */
  released(port: number, owner: string, input?: string): void {
    if (input === undefined) this.pointers.delete(`${port} ${owner}`);
    const owners = this.ports.get(port);
    if (!owners) return;
    if (input === undefined) owners.delete(owner);
    else owners.get(owner)?.delete(input);
    if (owners.get(owner)?.size === 0) owners.delete(owner);
    if (owners.size === 0) this.ports.delete(port);
  }

  /** The game on `port` came or went: nothing is held there any more. */
  forget(port: number): void {
    this.ports.delete(port);
    for (const k of [...this.pointers.keys()]) if (k.startsWith(`${port} `)) this.pointers.delete(k);
  }

  /** Owners with a lease still running on `port`. */
  ownersOn(port: number): string[] {
    const now = Date.now();
    return [...(this.ports.get(port) ?? new Map<string, Map<string, number>>()).entries()]
      .filter(([, inputs]) => [...inputs.values()].some((t) => t > now))
      .map(([o]) => o);
  }

  /** Release everything `owner` holds on every port (its session ended). */
  async releaseOwner(owner: string, clientFor: ClientFor): Promise<void> {
    const ports = [...this.ports.keys()].filter((p) => this.ownersOn(p).includes(owner));
    await Promise.all(ports.map((port) => this.send(port, owner, clientFor)));
  }

  /** Release every owner's inputs on `port` (the game is being stopped). */
  async releasePort(port: number, clientFor: ClientFor): Promise<void> {
    await Promise.all(this.ownersOn(port).map((owner) => this.send(port, owner, clientFor)));
    this.ports.delete(port);
  }

  /** Release everything on every port (daemon shutdown). */
  async releaseEverything(clientFor: ClientFor): Promise<void> {
    await Promise.all([...this.ports.keys()].map((port) => this.releasePort(port, clientFor)));
  }

  /** Fire `input.releaseAll` (queued is enough: the game applies commands in order); a game already gone has nothing held. */
  private async send(port: number, owner: string, clientFor: ClientFor): Promise<void> {
    this.released(port, owner);
    this.pointers.delete(`${port} ${owner}`);
    await clientFor(port)
      .command('input.releaseAll', { owner })
      .catch(() => undefined);
  }
}
