/**
 * The game contract for a page without the kit (`"web": {"static": "…", "kit": false}`): the
 * page carrier answers it itself, through the browser. The page runs on the bridge's clock
 * (page-clock.ts): `/health`'s frame and `/state`'s simFrame count its virtual frames (a reload
 * starts them again, as a new process would), and the reserved `clock.pause`, `clock.resume`
 * and `clock.step` drive it, so the page declares the "clock" capability as a kit does.
 * `/state` holds the title, the URL and the page's tree, or, under `game`, the page's own
 * state read through a seam (page-state.ts); `/ui` the tree; `/command` takes the reserved
 * `ui.activate`, `ui.setValue` and `ui.focus`, done as a person would (web/ax-tree.ts), and
 * `reset` when the page offers one, each with its result. Keys, the mouse and screenshots go
 * through the browser as for any page this daemon opened.
 */
import type { Page } from 'playwright-core';
import { usageError } from '../../shared/errors.js';
import type { CarrierAnswer } from './carrier.js';
import { cdpOf, clickNode, pageTree, setNodeValue, type PageNode } from './ax-tree.js';
import { clockOf, clockPause, clockResume, clockStep } from './page-clock.js';
import { hasReset, pageReset, pageState } from './page-state.js';

export interface StandIn {
  /** The page to act through, once the browser has it. */
  attach(page: Page): void;
  answer(target: string): Promise<CarrierAnswer>;
  /** What /state holds but the page's tree (its screen only): what an input's answer reports. */
  brief(): Promise<Record<string, unknown>>;
}

const UI_COMMANDS = ['ui.activate', 'ui.setValue', 'ui.focus'];
const CLOCK_COMMANDS = ['clock.pause', 'clock.resume', 'clock.step'];
const COMMANDS = [...UI_COMMANDS, ...CLOCK_COMMANDS];
const RESULTS_KEPT = 32;
const MAX_STEP_FRAMES = 10_000;
/** A step's /command answer waits this long for its frames, so the first look after it usually finds it done. */
const STEP_ANSWER_WAIT_MS = 2000;
const MAX_SPEED = 16;

export interface StandInOptions {
  /** launch.web.state: an expression evaluated in the page, its value the state's `game` */
  state?: string;
}

export function createStandIn(options: StandInOptions = {}): StandIn {
  return new PageStandIn(options);
}

/** A command's arguments as checked before it runs: its frames or speed, or why it is refused. */
type Checked = { frames: number; speed?: number } | { refused: string };

class PageStandIn implements StandIn {
  private page: Page | undefined;
  private nextId = 1;
  private completed = 0;
  private readonly results: Array<{ id: number; ok: boolean; error?: string }> = [];
  private lastTree = '';
  private revision = 0;
  private sequence = 0;
  /** the step in flight: later commands wait behind it, as they do behind a kit's */
  private stepping: Promise<void> = Promise.resolve();

  constructor(private readonly options: StandInOptions) {}

  attach(p: Page): void {
    this.page = p;
  }

  async brief(): Promise<Record<string, unknown>> {
    if (!this.page) throw new Error('the page is still opening in Chromium');
    try {
      return await this.state(this.page, false);
    } catch (e) {
      throw e instanceof StateError ? usageError(e.message) : e;
    }
  }

  async answer(target: string): Promise<CarrierAnswer> {
    const p = this.page;
    if (!p) return { noPage: 'the page is still opening in Chromium; try again' };
    const url = new URL(target, 'http://127.0.0.1');
    try {
      switch (url.pathname) {
        case '/health':
          return { status: 200, body: await this.health(p) };
        case '/state':
          return { status: 200, body: await this.state(p, true) };
        case '/ui': {
          const [title, t] = await Promise.all([p.title(), this.tree(p)]);
          return {
            status: 200,
            body: { frameSequence: t.sequence, revision: t.revision, screen: title, nodes: t.nodes, source: 'browser' },
          };
        }
        case '/command':
          return await this.command(p, url.searchParams);
        default:
          return { status: 404, body: { error: `a page without the kit serves no ${url.pathname}` } };
      }
    } catch (e) {
      if (e instanceof StateError) return { status: 500, body: { ok: false, stateError: e.message } };
      // the page navigating or reloading under the request
      return { noPage: `the page did not answer: ${firstLine(e as Error)}` };
    }
  }

  private async health(p: Page): Promise<Record<string, unknown>> {
    const frame = (await clock(p)).frame;
    return { ok: true, frame, name: (await p.title()) || 'web page', capabilities: ['ui', 'clock'] };
  }

  private async tree(p: Page): Promise<{ nodes: PageNode[]; revision: number; sequence: number }> {
    const nodes = await pageTree(p);
    const text = JSON.stringify(nodes);
    if (text !== this.lastTree) this.revision++;
    this.lastTree = text;
    this.sequence++;
    return { nodes, revision: this.revision, sequence: this.sequence };
  }

  private done(id: number, error?: string): void {
    this.results.push(error === undefined ? { id, ok: true } : { id, ok: false, error });
    if (this.results.length > RESULTS_KEPT) this.results.shift();
    this.completed = Math.max(this.completed, id);
  }

  /** /command: refused with what the page takes, or accepted with an id its result is later found by. */
  private async command(p: Page, q: URLSearchParams): Promise<CarrierAnswer> {
    const cmd = q.get('cmd') ?? '';
    const resettable = cmd === 'reset' || !COMMANDS.includes(cmd) ? await hasReset(p) : false;
    const known = resettable ? [...COMMANDS, 'reset'] : COMMANDS;
    const checked = checkCommand(cmd, q, known);
    if ('refused' in checked) return { status: 400, body: { accepted: false, error: checked.refused, known } };
    const commandId = this.nextId++;
    await this.stepping;
    const at = (await clock(p)).frame;
    if (cmd === 'clock.step') {
      const run = clockStep(p, commandId, checked.frames).then(
        () => this.done(commandId),
        (e: Error) => this.done(commandId, firstLine(e)),
      );
      this.stepping = run;
      await Promise.race([run, new Promise((r) => setTimeout(r, STEP_ANSWER_WAIT_MS))]);
    } else {
      this.done(commandId, await runCommand(p, cmd, q, checked.speed));
    }
    return { status: 200, body: { accepted: true, commandId, frame: at } };
  }

  /** The state's `game`: the page's own through its seam, else its title and URL. */
  private async game(p: Page, title: string): Promise<Record<string, unknown>> {
    const { state: expression } = this.options;
    const read = await pageState(p, expression);
    if (read === null) return { game: { title, url: p.url() } };
    if ('error' in read) {
      const what =
        expression !== undefined
          ? `launch.web.state (${read.source}) failed in the page: ${read.error}. Fix the expression in gamebridge.json, or remove it to let the bridge find the page's own state`
          : `the page's ${read.source} failed: ${read.error}. Fix it in the page, or declare launch.web.state in gamebridge.json to read something else`;
      throw new StateError(what);
    }
    return { game: read.value, gameSource: read.source };
  }

  /** /state: the clock, the commands' results, the title (and the tree), the page's own state. */
  private async state(p: Page, withTree: boolean): Promise<Record<string, unknown>> {
    const [c, title, t] = await Promise.all([clock(p), p.title(), withTree ? this.tree(p) : undefined]);
    return {
      frame: c.frame,
      simFrame: c.frame,
      clock: { paused: c.paused, stepFramesLeft: c.stepLeft, speed: c.speed },
      completedCommandId: this.completed,
      commandResults: this.results,
      ui: t ? { screen: title, nodes: t.nodes } : { screen: title },
      ...(await this.game(p, title)),
    };
  }
}

async function clock(p: Page) {
  const c = await clockOf(p);
  if (!c) throw new Error('the page has no clock yet (it is loading)');
  return c;
}

/** A command the page takes, its arguments in range; else the refusal's words. */
function checkCommand(cmd: string, q: URLSearchParams, known: string[]): Checked {
  if (!known.includes(cmd))
    return {
      refused:
        cmd === 'close'
          ? 'this page has no kit to close it: stop_instance ends its browser'
          : `this page has no game kit, so it takes only ${known.join(', ')} (keys and the mouse: press, hold, release)`,
    };
  if (cmd === 'clock.step') {
    const frames = Number(q.get('frames'));
    if (!Number.isInteger(frames) || frames < 1 || frames > MAX_STEP_FRAMES)
      return {
        refused: `argument 'frames' must be a whole number from 1 to ${MAX_STEP_FRAMES}, got ${q.get('frames')}`,
      };
    return { frames };
  }
  if (cmd === 'clock.resume' && q.has('speed')) {
    const speed = Number(q.get('speed'));
    if (!(speed > 0 && speed <= MAX_SPEED))
      return { refused: `argument 'speed' must be a number above 0 and at most ${MAX_SPEED}, got ${q.get('speed')}` };
    return { frames: 0, speed };
  }
  return { frames: 0 };
}

/** Runs a command other than a step, as a person would; its error, if any. */
async function runCommand(p: Page, cmd: string, q: URLSearchParams, speed?: number): Promise<string | undefined> {
  const id = q.get('id') ?? '';
  try {
    if (cmd === 'ui.activate') await clickNode(p, id);
    else if (cmd === 'ui.setValue') await setNodeValue(p, id, q.get('value') ?? '');
    else if (cmd === 'ui.focus') {
      const cdp = await cdpOf(p);
      await cdp.send('DOM.focus', { backendNodeId: Number(id.replace(/^dom-/, '')) });
    } else if (cmd === 'clock.pause') await clockPause(p);
    else if (cmd === 'clock.resume') await clockResume(p, speed);
    else if (!(await pageReset(p))) return 'the page no longer offers window.gameAPI.reset()';
  } catch (e) {
    return firstLine(e as Error);
  }
  return undefined;
}

/** The page's state seam failed: the project's expression, or the page's own function. */
class StateError extends Error {}

const firstLine = (e: Error) => e.message.split('\n')[0].slice(0, 300);
