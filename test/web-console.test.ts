/**
 * What a page's console puts in its game's log (daemon/web/browser.ts): the browser's own request
 * for /favicon.ico, which a page need not answer, is not the game's error. Real Chromium on a page
 * served over HTTP with no favicon.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openBrowser, type WebBrowser } from '../daemon/web/browser.js';
import { CHROMIUM } from './helpers/browser.js';
import { waitFor } from './helpers/procs.js';

const chromiumMissing = existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`;
let server: Server;
let browser: WebBrowser | undefined;
const lines: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/' || req.url === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>page</title><script>console.log("ready")</script>');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server.close(r));
});

(chromiumMissing && process.env.CI !== 'true' ? test.skip : test)(
  "a page without a favicon logs no console.error for the browser's request of one",
  async () => {
    const { port } = server.address() as AddressInfo;
    const asked: string[] = [];
    server.on('request', (req) => asked.push(req.url ?? ''));
    browser = await openBrowser({ url: `http://127.0.0.1:${port}/`, onConsole: (l) => lines.push(l) });
    await waitFor(
      'the page and its favicon asked',
      () => asked.includes('/favicon.ico') && lines.includes('console.log: ready'),
      30_000,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(lines.filter((l) => l.startsWith('console.error'))).toEqual([]);
    expect(browser.consoleErrors()).toEqual([]);
  },
  90_000,
);
