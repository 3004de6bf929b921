/**
 * Filmstrips: frames of an action taken while it runs, handed back as one contact sheet
 * (film/sheet.ts). The tools that let frames pass (press, step, the gestures, watch) go from
 * one frame offset to the next through `advance`, which stops at each offset the film asked
 * for and takes a picture there: on a paused clock exactly at that frame (the step before it is
 * confirmed), on a running one as soon as the game reached it. Each tile is labelled with the
 * simFrame read beside its picture, so a label is the truth even when the clock ran on.
 */
import { ffmpegMissing } from '../../shared/errors.js';
import { contactSheet, MAX_TILES, NoFfmpeg } from '../film/sheet.js';
import type { ToolContext } from '../tool-framework/context.js';
import type { ToolAnswer } from '../tool-framework/types.js';
import { whole } from './args.js';
import { lacking } from './needs.js';
import { simFrameOf } from './play.js';

/** The `filmstrip` argument of a tool whose action lets frames pass. */
export const filmstripArg = () =>
  whole(1, MAX_TILES)
    .optional()
    .describe(
      `Add this many evenly spaced frames of the action to the answer as one image, each tile labelled with its simFrame (1-${MAX_TILES}). Needs a game that gives screenshots.`,
    );

/** One picture of the game on `port`: a page this daemon opened through the browser, any other by GET /screenshot; null when it gives none. */
export async function picture(ctx: ToolContext, port: number): Promise<Buffer | null> {
  const web = ctx.launcher.webGame(port);
  return web ? web.screenshot() : ctx.client(port).screenshot();
}

/** `count` offsets spread evenly over `total` frames, the last one at `total`: every frame when count ≥ total. */
export function evenly(total: number, count: number): number[] {
  const n = Math.min(count, total);
  return [...new Set(Array.from({ length: n }, (_, k) => Math.round(((k + 1) * total) / n)))];
}

interface Shot {
  png: Buffer;
  at: number;
  frame: { path: string; value: number } | undefined;
}

/** How a tool goes from frame offset `from` to `to`: a step of the difference, or a wait for the game to reach it. */
export type Go = (from: number, to: number) => Promise<unknown>;

export class Film {
  private readonly shots: Shot[] = [];

  private constructor(
    private readonly ctx: ToolContext,
    private readonly port: number,
    private readonly tool: string,
    private readonly offsets: readonly number[],
  ) {}

  /**
   * A film of the game on `port` at these frame offsets from the start of the action. A game that
   * gives no pictures is refused here, before the action sends anything.
   */
  static async of(ctx: ToolContext, port: number, tool: string, offsets: readonly number[]): Promise<Film> {
    if (!(await picture(ctx, port))) throw await lacking(ctx, port, 'screenshot', tool);
    return new Film(ctx, port, tool, offsets);
  }

  /** From offset `from` to `to` by `go`, stopping for a picture at each offset of the film on the way. */
  async advance(from: number, to: number, go: Go): Promise<void> {
    let at = from;
    for (const o of this.offsets) {
      if (o <= at || o > to) continue;
      await go(at, o);
      at = o;
      await this.shoot(o);
    }
    if (at < to) await go(at, to);
  }

  /** The picture at offset `at` when the action ended there before its last planned offset (step's `until`). */
  async endedAt(at: number): Promise<void> {
    const last = this.shots[this.shots.length - 1];
    if (!last || last.at < at) await this.shoot(at);
  }

  private async shoot(at: number): Promise<void> {
    const [png, state] = await Promise.all([picture(this.ctx, this.port), this.ctx.client(this.port).state()]);
    if (!png) throw await lacking(this.ctx, this.port, 'screenshot', this.tool);
    this.shots.push({ png, at, frame: simFrameOf(state) });
  }

  /** The answer with the contact sheet added: its image, and the frames of its tiles in order. */
  async addTo(answer: ToolAnswer): Promise<ToolAnswer> {
    // An action that let no frame pass still shows the frame it left.
    if (!this.shots.length) await this.shoot(0);
    const label = (s: Shot) => (s.frame ? `${s.frame.path} ${s.frame.value}` : `+${s.at}`);
    let sheet;
    try {
      sheet = await contactSheet(this.shots.map((s) => ({ png: s.png, label: label(s) })));
    } catch (e) {
      if (e instanceof NoFfmpeg) throw ffmpegMissing(this.port, this.tool);
      throw e;
    }
    const filmstrip = {
      frames: this.shots.map((s) => s.frame?.value ?? null),
      ...(this.shots[0].frame ? { path: this.shots[0].frame.path } : {}),
      mimeType: 'image/png',
      width: sheet.width,
      height: sheet.height,
      bytes: sheet.png.length,
    };
    return {
      ...answer,
      json: { ...answer.json, filmstrip },
      images: [...(answer.images ?? []), { data: sheet.png.toString('base64'), mimeType: 'image/png' }],
    };
  }
}

/** `film.advance` when there is a film, else straight from `from` to `to`. */
export const advance = (film: Film | undefined, from: number, to: number, go: Go): Promise<unknown> =>
  film ? film.advance(from, to, go) : go(from, to);

/** A film of `count` tiles over `total` frames when a filmstrip was asked for. */
export const filmFor = (
  ctx: ToolContext,
  port: number,
  tool: string,
  total: number,
  count: number | undefined,
): Promise<Film | undefined> =>
  count === undefined ? Promise.resolve(undefined) : Film.of(ctx, port, tool, evenly(total, count));

/** The answer, with the film's sheet when there is one. */
export const withFilm = (answer: ToolAnswer, film: Film | undefined): Promise<ToolAnswer> =>
  film ? film.addTo(answer) : Promise.resolve(answer);
