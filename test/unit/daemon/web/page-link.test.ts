/**
 * What a joined page may say on the carrier's WebSocket: a bounded hello first, then replies
 * to requests it was sent; anything else closes it with a log line saying what it sent.
 */
import { EventEmitter } from 'node:events';
import type WebSocket from 'ws';
import { PageLink } from '../../../../daemon/web/page-link.js';

/** A socket that records what the link does to it; `say` delivers a text frame from the page. */
class FakeSocket extends EventEmitter {
  sent: string[] = [];
  closedWith?: number;
  send(text: string): void {
    this.sent.push(text);
  }
  close(code: number): void {
    this.closedWith = code;
  }
  terminate(): void {}
  say(msg: unknown): void {
    this.emit('message', Buffer.from(typeof msg === 'string' ? msg : JSON.stringify(msg)), false);
  }
}

let links: PageLink[] = [];
afterEach(() => {
  for (const l of links) l.close(1000, 'test over');
  links = [];
});

function open() {
  const ws = new FakeSocket();
  const logs: string[] = [];
  const link = new PageLink(ws as unknown as WebSocket, { origin: null, join: 1, log: (l) => logs.push(l) });
  links.push(link);
  return { ws, link, logs };
}

test('a hello with a name and a version joins the page', () => {
  const { ws, link } = open();
  ws.say({ t: 'hello', name: 'Crate Stack', version: '1.0' });
  expect(link.info).toMatchObject({ name: 'Crate Stack', version: '1.0', join: 1 });
  expect(ws.closedWith).toBeUndefined();
});

test('a hello whose name is a megabyte is garbage, not a name', () => {
  const { ws, link, logs } = open();
  ws.say({ t: 'hello', name: 'x'.repeat(1024 * 1024), version: '1' });
  expect(link.info).toBeNull();
  expect(ws.closedWith).toBe(1008);
  expect(logs).toEqual([expect.stringMatching(/^closing the page: it sent garbage \(a first message that is not/)]);
  expect(logs[0].length).toBeLessThan(300);
});

test('a hello without a version is garbage', () => {
  const { ws, logs } = open();
  ws.say({ t: 'hello', name: 'g' });
  expect(ws.closedWith).toBe(1008);
  expect(logs[0]).toMatch(/a first message that is not \{"t":"hello","name","version"\}/);
});

test('a reply to a sent request resolves it with its status and body', async () => {
  const { ws, link } = open();
  ws.say({ t: 'hello', name: 'g', version: '1' });
  const answer = link.relay('/state', 5000);
  const { id } = JSON.parse(ws.sent[0]) as { id: number };
  ws.say({ t: 'reply', id, status: 200, body: { frame: 3 } });
  await expect(answer).resolves.toEqual({ status: 200, body: { frame: 3 } });
});

test('a reply whose status is not an HTTP status is garbage', async () => {
  const { ws, link, logs } = open();
  ws.say({ t: 'hello', name: 'g', version: '1' });
  const answer = link.relay('/state', 5000);
  const { id } = JSON.parse(ws.sent[0]) as { id: number };
  ws.say({ t: 'reply', id, status: 42, body: {} });
  await expect(answer).rejects.toThrow(/the page went away before answering \(it sent garbage\)/);
  expect(logs[0]).toMatch(/a reply without a numeric id, an HTTP status and a body/);
});

test('a reply without a body is garbage', () => {
  const { ws, link, logs } = open();
  ws.say({ t: 'hello', name: 'g', version: '1' });
  void link.relay('/state', 5000).catch(() => undefined);
  ws.say({ t: 'reply', id: 1, status: 200 });
  expect(logs[0]).toMatch(/a reply without a numeric id, an HTTP status and a body/);
});

test('a reply whose id is a fraction is garbage', () => {
  const { ws, link, logs } = open();
  ws.say({ t: 'hello', name: 'g', version: '1' });
  void link.relay('/state', 5000).catch(() => undefined);
  ws.say({ t: 'reply', id: 1.5, status: 200, body: {} });
  expect(ws.closedWith).toBe(1008);
  expect(logs[0]).toMatch(/a reply without a numeric id/);
});

test('a reply to a request never sent is garbage', () => {
  const { ws, logs } = open();
  ws.say({ t: 'hello', name: 'g', version: '1' });
  ws.say({ t: 'reply', id: 99, status: 200, body: {} });
  expect(logs[0]).toMatch(/a reply to request 99, which was never sent/);
});

test('a message of another kind after hello is garbage naming its kind', () => {
  const { ws, logs } = open();
  ws.say({ t: 'hello', name: 'g', version: '1' });
  ws.say({ t: 'shout' });
  expect(logs[0]).toMatch(/an unexpected message \(t="shout"\)/);
});
