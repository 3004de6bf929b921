/**
 * A page's own WebMCP tools (docs/BROWSER.md, "Two doors"): what the page registers through
 * `document.modelContext.registerTool`, read and called through playwright-core's `page.webmcp`.
 * The daemon's Chromium runs with the feature on (chromium.ts); a browser without it has none.
 *
 *   const tools = new PageTools(page)
 *   await tools.list()           the tools registered now (read once per change, then kept)
 *   tools.known()                the last list read, without reading (the replay verdict)
 *   await tools.call(name, input, timeoutMs, signal)   {text, structured} or a thrown failure
 *
 * The page's `toolchange` event reaches the daemon through a binding the init script calls, so
 * a list is read again only after the page changed it (or navigated). Everything the page says
 * is bounded here: names, descriptions and schemas are the page's, not ours.
 */
import type { BrowserContext, Page } from 'playwright-core';

/** One tool as the daemon shows it. */
export interface PageTool {
  name: string;
  description: string;
  /** the page's own JSON Schema of its input (an empty object schema when it gave none) */
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
  /** the page says its output may hold third-party content */
  untrustedContent: boolean;
}

/** What a call answered: the text parts joined, and the structured content when there is one. */
export interface PageToolResult {
  text: string;
  structured?: unknown;
  /** why the structured content the tool answered was left out */
  refused?: string;
}

/** A tool's `execute` threw or answered `isError`: its own words. */
export class PageToolFailed extends Error {}

export const WEBMCP_FEATURE = '--enable-features=WebMCP';
const BINDING = '__gameBridgeToolchange';
const MAX_TOOLS = 64;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_DESCRIPTION = 2000;
const MAX_SCHEMA_CHARS = 32_000;
const MAX_TEXT = 64_000;
/** Characters of JSON a tool's structured answer may have: as many as a page's state. */
export const MAX_STRUCTURED_CHARS = 1_000_000;
const LIST_TIMEOUT_MS = 5000;

/**
 * The init script: tells the daemon when the page's tool set changes, and turns a tool that
 * throws into an error result carrying its message (the browser reports only that it threw).
 * Source text, as page-clock.ts explains.
 */
const SCRIPT = `(() => {
if (window.top !== window) return;
const mc = document.modelContext;
if (!mc) return;
mc.addEventListener('toolchange', () => { try { window.${BINDING}(); } catch {} });
const proto = Object.getPrototypeOf(mc);
const register = proto.registerTool;
proto.registerTool = function (tool, options) {
  if (!tool || typeof tool.execute !== 'function') return register.call(this, tool, options);
  const execute = tool.execute;
  const wrapped = Object.assign({}, tool, {
    execute: async function (...args) {
      try {
        return await execute.apply(this, args);
      } catch (e) {
        const text = e && typeof e === 'object' && 'message' in e ? String(e.message) : String(e);
        return { isError: true, content: [{ type: 'text', text }] };
      }
    },
  });
  return register.call(this, wrapped, options);
};
})();`;

/** Before the page's first script: the binding and the init script (browser.ts). */
export async function installPageTools(context: BrowserContext, changed: () => void): Promise<void> {
  await context.exposeBinding(BINDING, () => changed());
  await context.addInitScript({ content: SCRIPT });
}

export class PageTools {
  private reading?: Promise<PageTool[]>;
  private last: PageTool[] = [];
  private off = false;
  private listeners = new Set<() => void>();

  constructor(private readonly page: Page) {
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) this.changed();
    });
  }

  /** The page's set changed (its toolchange, or a navigation): the next list reads it again. */
  changed(): void {
    this.reading = undefined;
    for (const l of this.listeners) l();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  known(): PageTool[] {
    return this.last;
  }

  /** False once the browser said it has no WebMCP (it then never has). */
  get enabled(): boolean {
    return !this.off;
  }

  list(): Promise<PageTool[]> {
    if (this.off) return Promise.resolve([]);
    this.reading ??= this.read().catch((e: Error) => {
      this.reading = undefined;
      if (/not enabled/i.test(e.message)) this.off = true;
      return [];
    });
    return this.reading;
  }

  private async read(): Promise<PageTool[]> {
    const raw = await this.page.webmcp.tools({ timeout: LIST_TIMEOUT_MS });
    const seen = new Set<string>();
    const out: PageTool[] = [];
    for (const t of raw) {
      if (out.length >= MAX_TOOLS) break;
      if (typeof t.name !== 'string' || !NAME.test(t.name) || seen.has(t.name)) continue;
      seen.add(t.name);
      out.push({
        name: t.name,
        description: String(t.description ?? '').slice(0, MAX_DESCRIPTION),
        inputSchema: schemaOf(t.inputSchema),
        readOnly: t.annotations?.readOnly === true,
        untrustedContent: t.annotations?.untrustedContent === true,
      });
    }
    this.last = out;
    return out;
  }

  /** Calls the page's tool; a throw or an `isError` answer is a PageToolFailed with its text. */
  async call(
    name: string,
    input: Record<string, unknown>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PageToolResult> {
    signal?.throwIfAborted();
    const call = this.page.webmcp.callTool(name, input as never, { timeout: timeoutMs });
    const raw = signal
      ? await Promise.race([
          call,
          new Promise<never>((_, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
          ),
        ])
      : await call;
    return resultOf(raw);
  }
}

/** An object schema as the page gave it, or an empty object schema when it gave none, another kind, or too much. */
function schemaOf(raw: unknown): Record<string, unknown> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { type: 'object', properties: {} };
  if (JSON.stringify(raw).length > MAX_SCHEMA_CHARS) return { type: 'object', properties: {} };
  return raw as Record<string, unknown>;
}

/** What an MCP-shaped answer (content parts, structuredContent, isError) or a bare value says. */
function resultOf(raw: unknown): PageToolResult {
  if (raw === null || typeof raw !== 'object' || !('content' in raw || 'structuredContent' in raw)) {
    const text = typeof raw === 'string' ? raw : raw === undefined ? '' : JSON.stringify(raw);
    return { text: text.slice(0, MAX_TEXT) };
  }
  const r = raw as { content?: unknown; structuredContent?: unknown; isError?: unknown };
  const parts = Array.isArray(r.content) ? r.content : [];
  const text = parts
    .map((p: { type?: unknown; text?: unknown }) =>
      p && p.type === 'text' && typeof p.text === 'string' ? p.text : '',
    )
    .filter(Boolean)
    .join('\n')
    .slice(0, MAX_TEXT);
  if (r.isError === true) throw new PageToolFailed(text || 'the tool reported an error without a message');
  if (r.structuredContent === undefined) return { text };
  // measured here, not by the page: its answer is whatever its code made it. The tool ran, so
  // the call is answered (an error would have the agent run it again), its structure left out
  let size: number;
  try {
    size = JSON.stringify(r.structuredContent)?.length ?? 0;
  } catch (e) {
    return { text, refused: `it is not JSON (${(e as Error).message.slice(0, 200)})` };
  }
  if (size > MAX_STRUCTURED_CHARS)
    return {
      text,
      refused: `it is ${size} characters of JSON, over the ${MAX_STRUCTURED_CHARS} the bridge takes; have the tool answer less (a page of a list, a summary)`,
    };
  return { text, structured: r.structuredContent };
}
