/**
 * Input names the browser understands, so a page gets real events with no game code:
 * a DOM key name (`ArrowLeft`, `a`, `Space`, `Enter`), `mouse:<left|right|middle>@x,y`, or
 * `tap@x,y` (a touch), coordinates in CSS pixels of the page's viewport.
 */
import { usageError } from '../../shared/errors.js';

export type BrowserInput =
  | { kind: 'key'; key: string }
  | { kind: 'mouse'; button: 'left' | 'right' | 'middle'; x: number; y: number }
  | { kind: 'tap'; x: number; y: number };

export const INPUT_FORMS =
  "a DOM key name ('ArrowLeft', 'a', 'Space'), 'mouse:left@x,y' (left, right or middle) or 'tap@x,y'";

/** One character, or a key's name or code as Chromium knows it (a word is not a key: it is text to type). */
const KEY = new RegExp(
  '^(?:[^\\s]|' +
    [
      'F(?:[1-9]|1\\d|2[0-4])',
      'Arrow(?:Up|Down|Left|Right)',
      'Enter|Tab|Escape|Backspace|Delete|Insert|Home|End|PageUp|PageDown|Space',
      '(?:Shift|Control|Alt|Meta)(?:Left|Right)?|CapsLock|NumLock|ScrollLock|Pause|PrintScreen|ContextMenu',
      'Key[A-Z]|Digit\\d|Numpad(?:\\d|Add|Subtract|Multiply|Divide|Decimal|Enter)',
      'Backquote|Minus|Equal|BracketLeft|BracketRight|Backslash|Semicolon|Quote|Comma|Period|Slash|IntlBackslash',
    ].join('|') +
    ')$',
  'u',
);
const AT = /^(?:mouse:(left|right|middle)|tap)@(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/;

/** Parses one input name; throws with the accepted forms when it is none of them. */
export function parseBrowserInput(name: string): BrowserInput {
  const text = name.trim();
  if (text.startsWith('mouse:') || text.startsWith('tap@')) {
    const m = AT.exec(text);
    if (!m) throw usageError(`'${name}' is not an input the browser can send; use ${INPUT_FORMS}`);
    const [x, y] = [Number(m[2]), Number(m[3])];
    return m[1] ? { kind: 'mouse', button: m[1] as 'left' | 'right' | 'middle', x, y } : { kind: 'tap', x, y };
  }
  if (!KEY.test(text)) {
    throw usageError(`'${name}' is not an input the browser can send; use ${INPUT_FORMS} (one key, no combinations)`);
  }
  return { kind: 'key', key: text };
}

/** One name per physical input, so holding `tap@1,2` twice is one hold. */
export function inputId(input: BrowserInput): string {
  return input.kind === 'key'
    ? `key:${input.key}`
    : input.kind === 'mouse'
      ? `mouse:${input.button}`
      : `tap@${input.x},${input.y}`;
}
