/**
 * DaemonAccess's checks on a request's headers alone (no socket): the dashboard's page, which
 * skips the token but not the Host and browser checks, and the token door every other route
 * passes.
 */
import type { IncomingMessage } from 'node:http';
import { DaemonAccess } from '../../../../daemon/doors/access.js';

const PORT = 7900;
const TOKEN = 'ab'.repeat(32);
const access = new DaemonAccess(TOKEN, () => PORT);

const req = (url: string, headers: Record<string, string>, method = 'GET') =>
  ({ url, method, headers: { host: `127.0.0.1:${PORT}`, ...headers } }) as unknown as IncomingMessage;

test("the dashboard's page is served to a request with our Host and no browser origin", () => {
  expect(access.pageRefusal(req('/dashboard', {}))).toBeUndefined();
});

test("the dashboard's page is refused to another Host", () => {
  expect(access.pageRefusal(req('/dashboard', { host: 'evil.example:7900' }))?.status).toBe(403);
});

test("the dashboard's page is refused to a cross-site request", () => {
  expect(access.pageRefusal(req('/dashboard/app.js', { 'sec-fetch-site': 'cross-site' }))?.error).toMatch(/cross-site/);
});

test("the dashboard's key link opens from anywhere when it is a navigation", () => {
  const link = req('/dashboard?key=k', { 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site' });
  expect(access.pageRefusal(link)).toBeUndefined();
});

test("the dashboard's key link fetched by another page's script is refused", () => {
  const fetched = req('/dashboard?key=k', { 'sec-fetch-mode': 'cors', origin: 'http://127.0.0.1:9999' });
  expect(access.pageRefusal(fetched)?.status).toBe(403);
});

test('a route other than the page needs the token', () => {
  expect(access.refusal(req('/status', {}), false)?.status).toBe(401);
  expect(access.refusal(req('/status', { authorization: `Bearer ${TOKEN}` }), false)).toBeUndefined();
});
