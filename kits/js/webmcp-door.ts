/**
 * The web kit's second door (docs/KITS.md, "WebMCP"): where the browser offers
 * `document.modelContext`, the game's player tools are registered there, so an agent inside the
 * browser (the browser's own, an extension, Playwright MCP) plays the game with no bridge. What a
 * player has, nothing more:
 *   - the manifest's tools marked `"player": true`, under their own names, each passing on only
 *     the arguments it declares;
 *   - with a UI tree: `snapshot` (the tree as shown, hidden nodes left out), `click {ref}` and
 *     `set_value {ref, value}`;
 *   - with held inputs: `press {input, ms}`, a hold on a lease owned by the page's caller.
 * Every call is a command like a /command: queued, applied on the game's tick, answered with its
 * result (by its command id) and the state after it as a player sees it. Debug tools are never
 * registered. The option `webmcp: false` turns the door off.
 */
import type { SurfaceCore } from './core.js';
import { RESERVED_PREFIXES } from './builtins.js';
import type { UiNode, UiTree } from './trees.js';
import { uiContent } from './trees.js';

/** What this file needs of WebMCP's `document.modelContext`. */
interface ModelContext {
  registerTool(tool: PageTool, options?: { signal?: AbortSignal }): void;
}

interface PageTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
  execute(input: Record<string, unknown>): Promise<unknown>;
}

/** The owner of the inputs a page caller holds (the bridge's sessions own theirs under their own names). */
export const PAGE_OWNER = 'webmcp-page';
/** How long a page call waits for the game's tick before it says the game is not running. */
const APPLY_TIMEOUT_MS = 10_000;
const MAX_PRESS_MS = 5000;

type Row = { name?: unknown; type?: unknown; description?: unknown; required?: unknown };

/** The names a manifest tool declares as its arguments. */
function argNames(args: unknown): string[] {
  return (Array.isArray(args) ? (args as Row[]) : []).flatMap((a) => (a && typeof a.name === 'string' ? [a.name] : []));
}

/** A manifest tool's arguments (rows, as in docs/CONTRACT.md) as a JSON Schema. */
function schemaOf(args: unknown): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const a of Array.isArray(args) ? (args as Row[]) : []) {
    if (!a || typeof a.name !== 'string') continue;
    const p: Record<string, unknown> = {};
    if (typeof a.type === 'string' && a.type !== 'any') p.type = a.type;
    if (typeof a.description === 'string' && a.description) p.description = a.description;
    properties[a.name] = p;
    if (a.required === true) required.push(a.name);
  }
  return required.length ? { type: 'object', properties, required } : { type: 'object', properties };
}

/** The manifest's tools marked `"player": true` (the kit's reserved commands are never the game's). */
function playerTools(
  manifest: Record<string, unknown> | undefined,
): { name: string; description: string; args: unknown; readOnly: boolean }[] {
  const sets = Array.isArray(manifest?.toolsets) ? (manifest.toolsets as { tools?: unknown }[]) : [];
  const out = [];
  for (const ts of sets) {
    for (const t of Array.isArray(ts?.tools) ? (ts.tools as Record<string, unknown>[]) : []) {
      if (t?.player !== true || typeof t.name !== 'string') continue;
      if (t.name === 'close' || RESERVED_PREFIXES.some((p) => (t.name as string).startsWith(p))) continue;
      const readOnly = t.readOnly === true || t.readonly === true || t.read_only === true;
      // the browser refuses a tool without a description
      const description =
        typeof t.description === 'string' && t.description.trim() ? t.description : `The game's '${t.name}' command.`;
      out.push({ name: t.name, description, args: t.args, readOnly });
    }
  }
  return out;
}

/** The tree as a player sees it: a hidden node, and all inside it, is left out. */
function shown(tree: UiTree): UiTree {
  const keep = (nodes: UiNode[] | undefined): UiNode[] =>
    (nodes ?? [])
      .filter((n) => n.visible !== false)
      .map((n) => (n.children ? { ...n, children: keep(n.children) } : n));
  return { ...tree, nodes: keep(tree.nodes) };
}

const text = (value: unknown) => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value,
});

/**
 * Registers the game's player tools with the page's model context, if there is one. Returns
 * what unregisters them (the surface's close), or null when nothing was registered.
 */
export function exportPlayerTools(
  core: SurfaceCore,
  opts: { manifest?: Record<string, unknown> | (() => Record<string, unknown>); ui?: () => UiTree; inputs?: string[] },
  log: (line: string) => void,
): (() => void) | null {
  const mc = (globalThis as { document?: { modelContext?: ModelContext } }).document?.modelContext;
  if (!mc || typeof mc.registerTool !== 'function') return null;
  const manifest = typeof opts.manifest === 'function' ? opts.manifest() : opts.manifest;

  /**
   * One command through the queue, as /command takes it: its result once applied, and the state
   * after. `args` holds only what this door puts there (a tool's declared arguments, or the
   * door's own owner): a caller's other keys never reach the query, and the command's name is
   * set last, so no argument can name another command.
   */
  async function run(cmd: string, args: Record<string, unknown>): Promise<unknown> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(args))
      if (v !== undefined && v !== null) q.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    q.set('cmd', cmd);
    const sent = core.answer(`/command?${q}`).body as { accepted?: boolean; commandId?: number; error?: string };
    if (!sent.accepted || sent.commandId === undefined) throw new Error(sent.error ?? `'${cmd}' was refused`);
    const id = sent.commandId;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const result = await Promise.race([
      core.applied(id),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `command ${id} '${cmd}' was not applied within ${APPLY_TIMEOUT_MS} ms: is the game's loop running?`,
              ),
            ),
          APPLY_TIMEOUT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    // applied and failed: an error result (as MCP tools fail) with the game's words and the command's id
    if (!result.ok) {
      const error = result.error ?? `'${cmd}' failed`;
      return {
        ...text({ commandId: id, ok: false, error, state: core.playerState() }),
        isError: true,
        content: [{ type: 'text', text: error }],
      };
    }
    return text({ commandId: id, ok: true, state: core.playerState() });
  }

  const tools: PageTool[] = [];
  for (const t of playerTools(manifest)) {
    const names = argNames(t.args);
    tools.push({
      name: t.name,
      description: t.description,
      inputSchema: schemaOf(t.args),
      annotations: { readOnlyHint: t.readOnly },
      execute: (input) => run(t.name, Object.fromEntries(names.map((n) => [n, input?.[n]]))),
    });
  }
  const ui = opts.ui;
  if (ui) {
    const ref = { type: 'string', description: 'The id of a node, as snapshot shows it.' };
    tools.push(
      {
        name: 'snapshot',
        description: 'What the player sees now: the UI tree (screen and nodes, each with its id).',
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
        execute: async () => text({ frame: core.frame, ...uiContent(shown(ui())) }),
      },
      {
        name: 'click',
        description: 'Press a node of the UI tree by its id, as a player would (applied on the next frame).',
        inputSchema: { type: 'object', properties: { ref }, required: ['ref'] },
        execute: (input) => run('ui.activate', { id: input?.ref }),
      },
      {
        name: 'set_value',
        description:
          'Set the value of a slider, checkbox or text field of the UI tree by its id (applied on the next frame).',
        inputSchema: {
          type: 'object',
          properties: { ref, value: { type: ['string', 'number', 'boolean'], description: 'The new value.' } },
          required: ['ref', 'value'],
        },
        execute: (input) => run('ui.setValue', { id: input?.ref, value: input?.value }),
      },
    );
  }
  if (opts.inputs?.length) {
    tools.push({
      name: 'press',
      description: `Hold one of the game's inputs (${opts.inputs.join(', ')}) for ms milliseconds (default 100, at most ${MAX_PRESS_MS}), then let go.`,
      inputSchema: {
        type: 'object',
        properties: {
          input: { type: 'string', enum: opts.inputs },
          ms: { type: 'number', minimum: 1, maximum: MAX_PRESS_MS },
        },
        required: ['input'],
      },
      execute: (input) =>
        run('input.hold', {
          input: input?.input,
          owner: PAGE_OWNER,
          leaseMs: Math.min(MAX_PRESS_MS, Math.max(1, Number(input?.ms ?? 100) || 100)),
        }),
    });
  }
  const stop = new AbortController();
  const registered = new Set<string>();
  // the game's own tool of a name comes first and wins
  for (const t of tools) {
    if (registered.has(t.name)) continue;
    registered.add(t.name);
    try {
      mc.registerTool(t, { signal: stop.signal });
    } catch (e) {
      log(`WebMCP: could not register '${t.name}': ${(e as Error).message}`);
    }
  }
  // The page's caller owns what it holds; its holds go when the page does.
  const release = () => void core.answer(`/command?cmd=input.releaseAll&owner=${PAGE_OWNER}`);
  if (opts.inputs?.length) globalThis.addEventListener?.('pagehide', release);
  return () => {
    stop.abort();
    if (opts.inputs?.length) {
      globalThis.removeEventListener?.('pagehide', release);
      release();
    }
  };
}
