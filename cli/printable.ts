/**
 * Text that came from a game or a file (a name, a version, a path, a log header) made safe to
 * print on a terminal: every control character is shown as a visible escape (`\x1b`, `\r`,
 * `\u202e`) instead of being interpreted, so a game cannot clear the screen, rewrite a line,
 * retitle the window or reverse the text of what the CLI prints about it. The CLI prints a
 * game's own log as the game wrote it, like `tail`; everything around it goes through here.
 */

// C0 and C1 controls, DEL, and the bidirectional overrides and isolates that reorder a line.
const CONTROL = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with its line breaks kept and every other control shown escaped, line by line. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/** `value` as one inert line. */
export function printable(value: unknown): string {
  return String(value).replace(CONTROL, (c) => {
    if (NAMED[c]) return NAMED[c];
    const code = c.codePointAt(0)!;
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
