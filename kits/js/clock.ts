/**
 * The game clock the agent controls (the "clock" capability): pause, resume, and step exactly
 * N simulation frames. The surface asks it, once per frame, how many frames the game should
 * simulate; `simFrame` counts those frames and stops while paused.
 */

export interface ClockGrant {
  /** Simulation frames to run this frame: 0 (paused), 1, or up to the batch while a step runs. */
  frames: number;
  /** The id of a `clock.step` whose last frame is this one (it completes now). */
  stepDone?: number;
}

export class GameClock {
  paused = false;
  simFrame = 0;
  private step: { commandId: number; left: number } | null = null;
  /** frames of a step one tick may grant (whole numbers from 1; the game opts in) */
  private readonly batch: number;

  /** `startPaused`: the bridge launched the game paused, so its first simulated frame is one it steps. */
  constructor(stepFramesPerTick = 1, startPaused = false) {
    this.paused = startPaused;
    this.batch = Math.max(1, Math.floor(Number.isFinite(stepFramesPerTick) ? stepFramesPerTick : 1));
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  /** Simulate exactly `frames` frames from this frame on, then stay paused. */
  startStep(commandId: number, frames: number): void {
    this.paused = true;
    this.step = { commandId, left: frames };
  }

  /** A step still has frames to run (the command queue waits behind it). */
  get stepping(): boolean {
    return this.step !== null;
  }

  get stepFramesLeft(): number {
    return this.step?.left ?? 0;
  }

  /** This frame's share of simulation; called once per frame, after the commands. */
  grant(): ClockGrant {
    if (this.step) {
      const frames = Math.min(this.batch, this.step.left);
      this.step.left -= frames;
      this.simFrame += frames;
      if (this.step.left > 0) return { frames };
      const stepDone = this.step.commandId;
      this.step = null;
      return { frames, stepDone };
    }
    if (this.paused) return { frames: 0 };
    this.simFrame += 1;
    return { frames: 1 };
  }
}
