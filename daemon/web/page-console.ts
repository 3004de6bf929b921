/**
 * A page's console as lines of text, read over a CDP session of its own rather than through
 * Playwright's console event: that event hands over a handle for each argument, which lives in
 * the daemon (and in Chromium) until disposed, and disposing them one by one costs the page a
 * round trip per argument, which a page logging thousands of lines a second cannot spare. Here
 * only the text is made, and the session's console objects are let go in one command a second.
 */
import type { Page } from 'playwright-core';

/** The part of CDP's Runtime.RemoteObject the text is made from. */
interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  preview?: { properties: Array<{ name: string; value?: string }> };
}

const RELEASE_EVERY_MS = 1000;

/** One argument as Playwright's console text shows it. */
function textOf(o: RemoteObject): string {
  if (o.type === 'undefined') return 'undefined';
  if ('value' in o) return String(o.value);
  if (o.unserializableValue) return o.unserializableValue;
  const props = o.preview?.properties;
  if (props && o.description === 'Object') return `{${props.map((p) => `${p.name}: ${p.value}`).join(', ')}}`;
  if (props && o.subtype === 'array') return `[${props.map((p) => p.value).join(', ')}]`;
  return o.description ?? o.type;
}

/**
 * Calls `line` with each console call of the page (its type as Playwright names it, e.g. 'log',
 * 'error', 'warning', and its text). Answers what stops the reading.
 */
export async function readConsole(page: Page, line: (type: string, text: string) => void): Promise<() => void> {
  const cdp = await page.context().newCDPSession(page);
  let held = false;
  cdp.on('Runtime.consoleAPICalled', (e) => {
    held = true;
    line(e.type, (e.args as RemoteObject[]).map(textOf).join(' '));
  });
  await cdp.send('Runtime.enable');
  const timer = setInterval(() => {
    if (!held) return;
    held = false;
    cdp.send('Runtime.releaseObjectGroup', { objectGroup: 'console' }).catch(() => undefined);
  }, RELEASE_EVERY_MS).unref();
  return () => {
    clearInterval(timer);
    cdp.detach().catch(() => undefined);
  };
}
