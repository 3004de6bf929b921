/**
 * The pointer, the wheel, touch points and typed text on a page this daemon opened, as real
 * Chromium events at viewport pixels (the screenshot's grid): the mouse and keyboard through
 * Playwright, touches through CDP (Input.dispatchTouchEvent), which needs no touch-enabled
 * context. Buttons held across calls belong to their session through OwnedHands (hands.ts);
 * these are the moves in between and the gestures a call starts and ends itself.
 */
import type { CDPSession, Page } from 'playwright-core';

const touchSessions = new WeakMap<Page, Promise<CDPSession>>();

function touchSession(page: Page): Promise<CDPSession> {
  let s = touchSessions.get(page);
  if (!s) {
    s = page
      .context()
      .newCDPSession(page)
      .then(async (cdp) => {
        await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 10 });
        return cdp;
      });
    touchSessions.set(page, s);
    s.catch(() => touchSessions.delete(page));
  }
  return s;
}

/** The grid screenshots are taken on: the viewport, in CSS pixels. */
export function pageGrid(page: Page): { width: number; height: number } | null {
  return page.viewportSize();
}

export const mouseMove = (page: Page, x: number, y: number): Promise<void> => page.mouse.move(x, y);

export async function mouseWheel(page: Page, dx: number, dy: number): Promise<void> {
  await page.mouse.wheel(dx, dy);
}

/**
 * The touch points down after this change (`points`, by id) and which of them changed: a
 * touchStart or touchMove lists every point down; a touchEnd lists those still down.
 */
export async function touch(
  page: Page,
  type: 'touchStart' | 'touchMove' | 'touchEnd',
  points: { id: number; x: number; y: number }[],
): Promise<void> {
  const cdp = await touchSession(page);
  await cdp.send('Input.dispatchTouchEvent', {
    type,
    touchPoints: points.map((p) => ({ x: p.x, y: p.y, id: p.id })),
  });
}

/** Key events for each character (a canvas game's keydown handler sees them) and the text into a focused field. */
export const typeText = (page: Page, text: string): Promise<void> => page.keyboard.type(text);

/** Clicks `count` times at x,y with `button` (a double click is one gesture the page sees as dblclick). */
export const mouseClick = (
  page: Page,
  x: number,
  y: number,
  button: 'left' | 'right' | 'middle',
  count: number,
): Promise<void> => page.mouse.click(x, y, { button, clickCount: count });
