/**
 * Real keyboard, mouse and touch events sent into one page through playwright-core: press,
 * hold (optionally for a time), release. Keys and mouse buttons go through Playwright's
 * input API; touches through CDP (Input.dispatchTouchEvent), which needs no touch-enabled
 * context, so a page we did not create (a re-adopted one) can be touched too.
 */
import type { CDPSession, Page } from 'playwright-core';
import { inputId, parseBrowserInput, type BrowserInput } from './inputs.js';

interface Held {
  input: BrowserInput;
  timer?: NodeJS.Timeout;
}

export class BrowserHands {
  private held = new Map<string, Held>();
  private cdp: CDPSession | null = null;

  constructor(private readonly page: Page) {}

  /** Down, wait `holdMs` (default 50, long enough for a 60 fps game to see a frame of it), up. */
  async press(name: string, holdMs = 50): Promise<void> {
    await this.hold(name);
    await new Promise((r) => setTimeout(r, holdMs));
    await this.release(name);
  }

  /**
   * Holds `name` down until release(), or for `ms` when given. Holding it again only resets the
   * timer; a mouse button held again at another point moves there, still down (a drag).
   */
  async hold(name: string, ms?: number): Promise<void> {
    const input = parseBrowserInput(name);
    const id = inputId(input);
    const already = this.held.get(id);
    if (already) {
      clearTimeout(already.timer);
      if (input.kind === 'mouse') await this.page.mouse.move(input.x, input.y);
    } else await this.down(input);
    const entry: Held = { input };
    if (ms !== undefined) entry.timer = setTimeout(() => void this.release(name).catch(() => undefined), ms).unref();
    this.held.set(id, entry);
  }

  /** Releases `name`, or everything held when no name is given. Releasing what is not held is a no-op. */
  async release(name?: string): Promise<void> {
    const ids = name === undefined ? [...this.held.keys()] : [inputId(parseBrowserInput(name))];
    for (const id of ids) {
      const h = this.held.get(id);
      if (!h) continue;
      clearTimeout(h.timer);
      this.held.delete(id);
      await this.up(h.input);
    }
  }

  /** The names held now, in the form they were given. */
  heldNow(): string[] {
    return [...this.held.values()].map((h) => describe(h.input));
  }

  private async down(input: BrowserInput): Promise<void> {
    if (input.kind === 'key') return this.page.keyboard.down(input.key);
    if (input.kind === 'mouse') {
      await this.page.mouse.move(input.x, input.y);
      return this.page.mouse.down({ button: input.button });
    }
    await this.touch('touchStart', input);
  }

  private async up(input: BrowserInput): Promise<void> {
    if (input.kind === 'key') return this.page.keyboard.up(input.key);
    if (input.kind === 'mouse') return this.page.mouse.up({ button: input.button });
    await this.touch('touchEnd', input);
  }

  // A touch start lists every finger down (the new one included); a touch end lists those still down.
  private async touch(type: 'touchStart' | 'touchEnd', input: BrowserInput & { kind: 'tap' }): Promise<void> {
    if (!this.cdp) {
      this.cdp = await this.page.context().newCDPSession(this.page);
      await this.cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
    }
    const others = [...this.held.values()]
      .map((h) => h.input)
      .filter((i): i is BrowserInput & { kind: 'tap' } => i.kind === 'tap' && inputId(i) !== inputId(input));
    const points = (type === 'touchStart' ? [...others, input] : others).map((t) => ({ x: t.x, y: t.y }));
    await this.cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points });
  }
}

function describe(input: BrowserInput): string {
  return input.kind === 'key'
    ? input.key
    : input.kind === 'mouse'
      ? `mouse:${input.button}@${input.x},${input.y}`
      : `tap@${input.x},${input.y}`;
}
