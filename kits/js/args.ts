/** Command arguments as they arrive on the wire (strings), with small coercion helpers. */

/** Thrown by a coercion helper; inside `validate` it becomes the refusal text. */
export class ArgError extends Error {}

export class CommandArgs {
  /** Every query parameter except `cmd`, exactly as sent (last one wins on a repeated key). */
  readonly raw: Readonly<Record<string, string>>;

  constructor(raw: Record<string, string>) {
    this.raw = Object.freeze({ ...raw });
  }

  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.raw, name);
  }

  /** The raw string; `fallback` when absent; ArgError when absent and no fallback. */
  string(name: string, fallback?: string): string {
    if (this.has(name)) return this.raw[name];
    if (fallback !== undefined) return fallback;
    throw new ArgError(`missing argument '${name}'`);
  }

  /** A finite number ("12", "-0.5", "1e3"); ArgError otherwise. */
  number(name: string, fallback?: number): number {
    if (!this.has(name) || this.raw[name].trim() === '') {
      if (fallback !== undefined) return fallback;
      throw new ArgError(`missing argument '${name}' (a number)`);
    }
    const n = Number(this.raw[name]);
    if (!Number.isFinite(n)) throw new ArgError(`argument '${name}' must be a number, got '${clip(this.raw[name])}'`);
    return n;
  }

  /** true/false, 1/0, yes/no, on/off (any case); ArgError otherwise. */
  boolean(name: string, fallback?: boolean): boolean {
    if (!this.has(name) || this.raw[name].trim() === '') {
      if (fallback !== undefined) return fallback;
      throw new ArgError(`missing argument '${name}' (a boolean)`);
    }
    const v = this.raw[name].trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    throw new ArgError(`argument '${name}' must be true or false, got '${clip(this.raw[name])}'`);
  }

  /** JSON.parse of the raw string; ArgError when it does not parse. */
  json<T = unknown>(name: string, fallback?: T): T {
    if (!this.has(name)) {
      if (fallback !== undefined) return fallback;
      throw new ArgError(`missing argument '${name}' (JSON)`);
    }
    try {
      return JSON.parse(this.raw[name]) as T;
    } catch {
      throw new ArgError(`argument '${name}' must be JSON, got '${clip(this.raw[name])}'`);
    }
  }
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

/** One game command: how its arguments are checked on arrival and how it is applied on the tick. */
export interface CommandHandler {
  /**
   * Runs when the command arrives (on the carrier's side, before queueing). Return a reason (or
   * throw an ArgError, e.g. from `args.number('x')`) to refuse it with `accepted: false`.
   * Must not touch game state: it is not on the game's tick.
   */
  validate?: (args: CommandArgs) => string | undefined | void;
  /** Runs on the game's tick, in arrival order. */
  apply: (args: CommandArgs, info: { commandId: number; frame: number }) => void;
}
