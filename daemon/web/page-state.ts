/**
 * A page's own state, read through a seam the page offers (docs/CONTRACT.md, "Browser games"):
 * the expression `launch.web.state` declares, else the first convention the page follows of
 * `window.gameAPI.getState()`, `window.render_game_to_text()` (its text read as JSON when it is
 * JSON) and `window.__GAME_DIAGNOSTICS__`; and its reset, `window.gameAPI.reset()`.
 *
 *   await pageState(page, declared?)   {source, value} | {source, error} | null (no seam)
 *   await pageReset(page)              true once reset() ran; false when the page has none
 *
 * The value crosses as JSON text, at most MAX_STATE_CHARS (a bigger one is an error naming its
 * size), so a page cannot hand the daemon an unbounded or cyclic object. The page measures it
 * first, to spare sending what would be refused; the daemon measures it again on arrival, since
 * the page's code (its JSON.stringify) can be anything.
 */
import type { Page } from 'playwright-core';

export type PageStateRead = { source: string; value: unknown } | { source: string; error: string };

export const MAX_STATE_CHARS = 1_000_000;

export const GET_STATE = 'window.gameAPI.getState()';
export const RENDER_TO_TEXT = 'window.render_game_to_text()';
export const DIAGNOSTICS = 'window.__GAME_DIAGNOSTICS__';

// In the page: one value as JSON text, or why it cannot be one.
const OUT = `const out = (source, value) => {
  let text;
  try { text = JSON.stringify(value === undefined ? null : value); }
  catch (e) { return { source, error: 'its value is not JSON (' + e.message + ')' }; }
  if (text.length > ${MAX_STATE_CHARS}) return { source, error: 'its value is ' + text.length + ' characters of JSON, over the ${MAX_STATE_CHARS} the bridge reads' };
  return { source, text };
};
const threw = (source, e) => ({ source, error: 'it threw ' + (e && e.name ? e.name + ': ' + e.message : String(e)) });`;

const FOUND = `(async () => {
${OUT}
const w = window;
if (w.gameAPI && typeof w.gameAPI.getState === 'function') {
  try { return out(${JSON.stringify(GET_STATE)}, await w.gameAPI.getState()); } catch (e) { return threw(${JSON.stringify(GET_STATE)}, e); }
}
if (typeof w.render_game_to_text === 'function') {
  try {
    const t = await w.render_game_to_text();
    if (typeof t === 'string') { try { return out(${JSON.stringify(RENDER_TO_TEXT)}, JSON.parse(t)); } catch {} }
    return out(${JSON.stringify(RENDER_TO_TEXT)}, t);
  } catch (e) { return threw(${JSON.stringify(RENDER_TO_TEXT)}, e); }
}
if (w.__GAME_DIAGNOSTICS__ !== undefined) return out(${JSON.stringify(DIAGNOSTICS)}, w.__GAME_DIAGNOSTICS__);
return null;
})()`;

// The project's own expression is put in the source as written: it is the project's code, as
// trusted as its launch command, and Playwright runs it past the page's content security policy.
const declaredSource = (expression: string) => `(async () => {
${OUT}
try { return out(${JSON.stringify(expression)}, await (
${expression}
)); } catch (e) { return threw(${JSON.stringify(expression)}, e); }
})()`;

/** The page's state through its seam; null when it offers none (and declares none). */
export async function pageState(page: Page, declared?: string): Promise<PageStateRead | null> {
  let r: { source: string; text?: string; error?: string } | null;
  try {
    r = (await page.evaluate(declared === undefined ? FOUND : declaredSource(declared))) as typeof r;
  } catch (e) {
    // a declared expression that does not parse; the page navigating away is the caller's to report
    const message = (e as Error).message.split('\n')[0];
    if (declared !== undefined && /SyntaxError/.test(message))
      return { source: declared, error: `it is not a JavaScript expression (${message})` };
    throw e;
  }
  if (!r) return null;
  const source = String(r.source).slice(0, 500);
  if (r.error !== undefined) return { source, error: String(r.error).slice(0, 500) };
  if (typeof r.text !== 'string') {
    const got = Array.isArray(r.text) ? 'an array' : typeof r.text;
    return {
      source,
      error: `its value came back as ${got} where JSON text was expected (does the page replace JSON.stringify?)`,
    };
  }
  if (r.text.length > MAX_STATE_CHARS)
    return {
      source,
      error: `its value is ${r.text.length} characters of JSON, over the ${MAX_STATE_CHARS} the bridge reads`,
    };
  try {
    return { source, value: JSON.parse(r.text) };
  } catch (e) {
    return { source, error: `its value did not come back as JSON (${(e as Error).message.slice(0, 200)})` };
  }
}

/** Runs the page's `window.gameAPI.reset()`; false when it has none. */
export async function pageReset(page: Page): Promise<boolean> {
  return (await page.evaluate(
    `(async () => { const a = window.gameAPI; if (!a || typeof a.reset !== 'function') return false; await a.reset(); return true; })()`,
  )) as boolean;
}

/** Does the page offer a reset? */
export async function hasReset(page: Page): Promise<boolean> {
  return (await page.evaluate(`!!(window.gameAPI && typeof window.gameAPI.reset === 'function')`)) as boolean;
}
