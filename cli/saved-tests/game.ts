/**
 * A test's game as the runner holds it: launched fresh through the driver, paused from its start
 * when the test is frame-exact, and its clock stepped to each step's recorded frame.
 */
import type { TestFile, DoStep, ExpectStep } from '../../shared/test-file.js';
import { ToolFailed, type Driver } from './driver.js';

/** A game up and paused (when frame-exact), with the clock kept in step. */
export class Game {
  sim = 0;
  /** simFrame as counted since it was last read; undefined: read it before relying on it */
  private known?: number;
  /**
   * Frames this game ran before its first pause beyond the other compared game's: a game whose
   * kit does not start paused runs frames between its launch and the runner's pause that are not
   * the test's, so a comparison steps each game the same frames from its own pause (0 outside
   * --compare, and for two games that started paused).
   */
  offset = 0;
  constructor(
    readonly driver: Driver,
    readonly port: number,
    readonly frameExact: boolean,
  ) {}

  async readSim(): Promise<number> {
    const r = await this.driver.game(this.port, 'get_state', { path: 'simFrame' });
    this.sim = typeof r.value === 'number' ? r.value : this.sim;
    return this.sim;
  }

  /**
   * After a replayed call: on the paused clock the bridge's press and step move simFrame by
   * exactly their frames, so it is counted, not read (a round trip less per step); any other
   * call may have changed it, and it is read again when next needed.
   */
  after(name: string, args: Record<string, unknown>, answer: Record<string, unknown>): void {
    if (this.known === undefined || !this.frameExact) return;
    if (name === 'bridge.press') this.known += Number(args.frames ?? 1);
    else if (name === 'bridge.step' && typeof answer.stepped === 'number') this.known += answer.stepped;
    else this.known = undefined;
  }

  /** Step the paused clock to `target` (never backwards: a late step runs where the game is). */
  async advanceTo(recorded: number): Promise<void> {
    const target = recorded + this.offset;
    let now = this.known ?? (await this.readSim());
    this.known = now;
    while (now < target) {
      const frames = Math.min(10000, target - now);
      await this.driver.game(this.port, 'bridge.step', { frames });
      const before = now;
      now = await this.readSim();
      this.known = now;
      if (now <= before)
        throw new ToolFailed(
          `stepping the clock ${frames} frames left simFrame at ${now}, short of the step's atSimFrame ${target}: this game does not count these frames (a menu, say); give the step the frame the game shows, or none`,
          {},
        );
    }
  }

  async stateAt(path?: string): Promise<unknown> {
    try {
      const r = await this.driver.game(this.port, 'get_state', path ? { path } : {});
      return path ? r.value : r.state;
    } catch {
      return undefined;
    }
  }
}

/** Launch the test's game through the driver; paused from its start when the test is frame-exact. */
export async function launchFor(t: TestFile, driver: Driver): Promise<Game> {
  const { profile, seed } = t.header.launch;
  const frameExact = t.header.timing === 'frame-exact';
  // Frame-exact: launched paused, so the game's frame 0 is the test's (a game whose kit does not
  // start paused is paused below, where it got to).
  const launched = await driver.tool('launch_instance', {
    ...(profile ? { profile } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(frameExact ? { paused: true } : {}),
  });
  const port = Number(launched.port);
  const health = await driver.game(port, 'health');
  const clock = Array.isArray(health.capabilities) && health.capabilities.includes('clock');
  const game = new Game(driver, port, frameExact);
  if (frameExact) {
    if (!clock)
      throw new ToolFailed(
        `the test is frame-exact but the game on port ${port} has no agent clock (capability "clock"); record it again, or make it "real-time"`,
        {},
      );
    await driver.game(port, 'bridge.pause');
  }
  return game;
}

/** Frame-exact: step the paused clock to the step's frame. Real time: wait out the recorded gap. */
export async function placeInTime(
  game: Game,
  s: DoStep | ExpectStep,
  started: number,
  signal?: AbortSignal,
): Promise<void> {
  if (game.frameExact) {
    if (s.atSimFrame !== undefined) await game.advanceTo(s.atSimFrame);
  } else if (s.atMs !== undefined) {
    const wait = started + s.atMs - Date.now();
    if (wait > 0 && !signal?.aborted)
      await new Promise<void>((r) => {
        // the listener goes with the wait: a test of many timed steps shares one signal
        const done = () => (clearTimeout(t), signal?.removeEventListener('abort', done), r());
        const t = setTimeout(done, wait);
        signal?.addEventListener('abort', done, { once: true });
      });
  }
}
