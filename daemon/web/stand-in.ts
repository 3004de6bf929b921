/**
 * The game contract for a page without the kit (`"web": {"static": "…", "kit": false}`): the
 * page carrier answers it itself, through the browser. `/health`'s frame counts the page's
 * animation frames (a counter the stand-in adds to the page, so a reload starts it again, as
 * a new process would); `/state` holds the title, the URL and the page's tree; `/ui` the tree;
 * `/command` takes the reserved `ui.activate`, `ui.setValue` and `ui.focus`, done as a person
 * would (web/ax-tree.ts), each with its result. Keys, the mouse and screenshots go through the
 * browser as for any page this daemon opened.
 */
import type { Page } from 'playwright-core';
import { cdpOf, clickNode, pageTree, setNodeValue, type PageNode } from './ax-tree.js';

export interface CarrierAnswer {
  status: number;
  body: unknown;
}

export interface StandIn {
  /** The page to act through, once the browser has it. */
  attach(page: Page): void;
  answer(target: string): Promise<CarrierAnswer>;
}

const COMMANDS = ['ui.activate', 'ui.setValue', 'ui.focus'];
const RESULTS_KEPT = 32;

/** Counts the page's animation frames; installed again after a reload (the count then starts over). */
const FRAMES = `(() => {
  const g = globalThis;
  if (!g.__gameBridgeFrames) {
    g.__gameBridgeFrames = { n: 0 };
    const tick = () => { g.__gameBridgeFrames.n++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  }
  return g.__gameBridgeFrames.n;
})()`;

export function createStandIn(): StandIn {
  let page: Page | undefined;
  let nextId = 1;
  let completed = 0;
  const results: Array<{ id: number; ok: boolean; error?: string }> = [];
  let lastTree = '';
  let revision = 0;
  let sequence = 0;

  const frame = async (p: Page): Promise<number> => Number(await p.evaluate(FRAMES));

  async function tree(p: Page): Promise<{ nodes: PageNode[]; revision: number; sequence: number }> {
    const nodes = await pageTree(p);
    const text = JSON.stringify(nodes);
    if (text !== lastTree) revision++;
    lastTree = text;
    sequence++;
    return { nodes, revision, sequence };
  }

  async function command(p: Page, q: URLSearchParams): Promise<CarrierAnswer> {
    const cmd = q.get('cmd') ?? '';
    const id = q.get('id') ?? '';
    if (!COMMANDS.includes(cmd))
      return {
        status: 400,
        body: {
          accepted: false,
          error:
            cmd === 'close'
              ? 'this page has no kit to close it: stop_instance ends its browser'
              : `this page has no game kit, so it takes only ${COMMANDS.join(', ')} (keys and the mouse: press, hold, release)`,
          known: COMMANDS,
        },
      };
    const commandId = nextId++;
    const at = await frame(p);
    let error: string | undefined;
    try {
      if (cmd === 'ui.activate') await clickNode(p, id);
      else if (cmd === 'ui.setValue') await setNodeValue(p, id, q.get('value') ?? '');
      else {
        const cdp = await cdpOf(p);
        await cdp.send('DOM.focus', { backendNodeId: Number(id.replace(/^dom-/, '')) });
      }
    } catch (e) {
      error = (e as Error).message.split('\n')[0].slice(0, 300);
    }
    results.push(error === undefined ? { id: commandId, ok: true } : { id: commandId, ok: false, error });
    if (results.length > RESULTS_KEPT) results.shift();
    completed = commandId;
    return { status: 200, body: { accepted: true, commandId, frame: at } };
  }

  async function answer(target: string): Promise<CarrierAnswer> {
    const p = page;
    if (!p)
      return {
        status: 503,
        body: { ok: false, error: 'GameOffline: the page is still opening in Chromium; try again' },
      };
    const url = new URL(target, 'http://127.0.0.1');
    try {
      switch (url.pathname) {
        case '/health':
          return {
            status: 200,
            body: { ok: true, frame: await frame(p), name: (await p.title()) || 'web page', capabilities: ['ui'] },
          };
        case '/state': {
          const [f, title, t] = await Promise.all([frame(p), p.title(), tree(p)]);
          return {
            status: 200,
            body: {
              frame: f,
              completedCommandId: completed,
              commandResults: results,
              ui: { screen: title, nodes: t.nodes },
              game: { title, url: p.url() },
            },
          };
        }
        case '/ui': {
          const [title, t] = await Promise.all([p.title(), tree(p)]);
          return {
            status: 200,
            body: { frameSequence: t.sequence, revision: t.revision, screen: title, nodes: t.nodes, source: 'browser' },
          };
        }
        case '/command':
          return await command(p, url.searchParams);
        default:
          return { status: 404, body: { error: `a page without the kit serves no ${url.pathname}` } };
      }
    } catch (e) {
      // the page navigating or reloading under the request
      return {
        status: 503,
        body: { ok: false, error: `GameOffline: the page did not answer: ${(e as Error).message.split('\n')[0]}` },
      };
    }
  }

  return {
    attach(p) {
      page = p;
    },
    answer,
  };
}
