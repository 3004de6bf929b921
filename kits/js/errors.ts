/**
 * The errors the kit caught (a command's apply that threw), each with its frame and stack, in a
 * bounded ring served on `GET /errors?since=N` (docs/CONTRACT.md). Each sighting is listed as it
 * came: the bridge counts the repeats.
 */

export interface KitError {
  seq: number;
  frame: number;
  message: string;
  stack?: string;
  source: 'command' | 'tick';
}

/** The sightings kept; older ones go first. */
const KEPT = 64;
const MAX_STACK_CHARS = 2000;

export class ErrorRing {
  private readonly ring: KitError[] = [];
  private seq = 0;

  /** One error the kit caught at `frame`. */
  note(frame: number, e: unknown, source: KitError['source']): void {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    const stack = e instanceof Error && e.stack ? e.stack.split('\n').slice(1).join('\n').trim() : '';
    this.ring.push({
      seq: ++this.seq,
      frame,
      message,
      ...(stack ? { stack: stack.slice(0, MAX_STACK_CHARS) } : {}),
      source,
    });
    if (this.ring.length > KEPT) this.ring.shift();
  }

  /** `/errors`' answer: the sightings after `since`, oldest first, and the latest number. */
  since(since: number): { seq: number; errors: KitError[] } {
    return { seq: this.seq, errors: this.ring.filter((e) => e.seq > since) };
  }
}
