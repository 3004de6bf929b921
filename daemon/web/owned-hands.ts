/**
 * Browser inputs with owners (docs/KITS.md, "Playing in time"): a held key, button or touch
 * belongs to the MCP session that holds it, ends when its lease runs out, and is released
 * when its owner goes, without touching another owner's. Two owners holding the same key
 * keep it down until the last of them lets go (the page sees one physical key).
 */
import { inputId, parseBrowserInput } from './inputs.js';

/** What OwnedHands drives: BrowserHands' hold/release of one physical input. */
export interface Hands {
  hold(name: string): Promise<void>;
  release(name?: string): Promise<void>;
}

export interface HeldBrowserInput {
  input: string;
  owner: string;
  leaseMsLeft: number;
}

interface Holder {
  until: number;
  timer: NodeJS.Timeout;
}

export class OwnedHands {
  /** physical input id → its name as first given, and each owner's lease */
  private inputs = new Map<string, { name: string; holders: Map<string, Holder> }>();

  /** `onChange(names)`: what is held changed (the launcher records it, so a successor can let go). */
  constructor(
    private readonly hands: Hands,
    private readonly onChange: (held: string[]) => void = () => {},
  ) {}

  private changed(): void {
    this.onChange([...this.inputs.values()].map((e) => e.name));
  }

  /** `owner` holds `name` for `leaseMs` (again: the lease restarts; a held button given another point moves there). */
  async hold(owner: string, name: string, leaseMs: number): Promise<void> {
    const id = inputId(parseBrowserInput(name));
    let entry = this.inputs.get(id);
    if (entry && entry.name !== name) {
      await this.hands.hold(name);
      entry.name = name;
    }
    const fresh = !entry;
    entry ??= { name, holders: new Map() };
    this.inputs.set(id, entry);
    clearTimeout(entry.holders.get(owner)?.timer);
    const timer = setTimeout(() => void this.release(owner, name).catch(() => undefined), leaseMs);
    timer.unref();
    // held in the books before the browser is asked, so a page that never takes the input can be let go of
    entry.holders.set(owner, { until: Date.now() + leaseMs, timer });
    if (fresh) {
      try {
        await this.hands.hold(name);
      } catch (e) {
        clearTimeout(timer);
        if (this.inputs.get(id) === entry) this.inputs.delete(id);
        throw e;
      }
    }
    this.changed();
  }

  /** `owner` lets go of `name`, or of everything it holds when `name` is undefined. */
  async release(owner: string, name?: string): Promise<string[]> {
    const ids = name === undefined ? [...this.inputs.keys()] : [inputId(parseBrowserInput(name))];
    const released: string[] = [];
    for (const id of ids) {
      const entry = this.inputs.get(id);
      const holder = entry?.holders.get(owner);
      if (!entry || !holder) continue;
      clearTimeout(holder.timer);
      entry.holders.delete(owner);
      released.push(entry.name);
      if (entry.holders.size === 0) {
        this.inputs.delete(id);
        await this.hands.release(entry.name);
      }
    }
    if (released.length) this.changed();
    return released;
  }

  /** Every owner lets go (the game is stopped, the daemon shuts down). */
  async releaseAll(): Promise<void> {
    const names = [...this.inputs.values()].map((e) => e.name);
    for (const e of this.inputs.values()) for (const h of e.holders.values()) clearTimeout(h.timer);
    this.inputs.clear();
    for (const name of names) await this.hands.release(name).catch(() => undefined);
    if (names.length) this.changed();
  }

  /** What is held now, per owner, with the time left on each lease. */
  held(): HeldBrowserInput[] {
    const now = Date.now();
    return [...this.inputs.values()].flatMap((e) =>
      [...e.holders.entries()].map(([owner, h]) => ({ input: e.name, owner, leaseMsLeft: Math.max(0, h.until - now) })),
    );
  }

  /** Is `name` a form the browser can send (a DOM key, mouse:…@x,y, tap@x,y)? */
  static accepts(name: string): boolean {
    try {
      parseBrowserInput(name);
      return true;
    } catch {
      return false;
    }
  }
}
