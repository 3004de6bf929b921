/**
 * The pure parts of every loopback door's guard (shared/loopback.ts): which peers are local,
 * which Host headers name the door, which browser requests come from its own pages, and how
 * often a refusal is logged.
 */
import { jest } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { browserRefusal, hostRefusal, isLoopback, ownOrigins, RefusalLog } from '../../../shared/loopback.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const OWN = ownOrigins(7900);

test.each(['127.0.0.1', '127.4.5.6', '::1', '::ffff:127.0.0.1'])('%s is a loopback peer', (address) => {
  expect(isLoopback(address)).toBe(true);
});

test.each(['10.0.0.1', '::ffff:192.168.1.2', '128.0.0.1', '', undefined])('%s is not a loopback peer', (address) => {
  expect(isLoopback(address)).toBe(false);
});

test("a door's own origins are 127.0.0.1 and localhost on its port", () => {
  expect(OWN).toEqual(['http://127.0.0.1:7900', 'http://localhost:7900']);
});

test.each(['127.0.0.1:7900', 'localhost:7900'])('Host %s names the door', (host) => {
  expect(hostRefusal(req({ host }), 7900)).toBeUndefined();
});

test.each(['127.0.0.1:7901', 'evil.example:7900', '127.0.0.1', 'LOCALHOST:7900'])(
  'Host %s is refused (DNS rebinding)',
  (host) => {
    expect(hostRefusal(req({ host }), 7900)).toEqual({
      status: 403,
      error: `Forbidden: unexpected Host header '${host}' (this port answers 127.0.0.1:7900 only)`,
    });
  },
);

test('two Host headers are refused with 400, even when both name the door', () => {
  const two = { headers: { host: '127.0.0.1:7900' }, rawHeaders: ['Host', '127.0.0.1:7900', 'host', 'localhost:7900'] };
  expect(hostRefusal(two as unknown as IncomingMessage, 7900)).toEqual({
    status: 400,
    error: 'Bad Request: more than one Host header',
  });
});

test('a missing Host is refused', () => {
  expect(hostRefusal(req({}), 7900)?.status).toBe(403);
});

test('a Host header in an error is cut to 80 printable characters', () => {
  const error = hostRefusal(req({ host: `\u0000${'h'.repeat(500)}` }), 7900)!.error;
  expect(error).toContain(`'?${'h'.repeat(79)}…'`);
});

test('a request with neither Origin nor Sec-Fetch-Site (a tool, curl) passes', () => {
  expect(browserRefusal(req({}), OWN)).toBeUndefined();
});

test("a request from the door's own page passes", () => {
  expect(browserRefusal(req({ origin: OWN[0], 'sec-fetch-site': 'same-origin' }), OWN)).toBeUndefined();
});

test('a navigation a person typed (Sec-Fetch-Site: none) passes', () => {
  expect(browserRefusal(req({ 'sec-fetch-site': 'none' }), OWN)).toBeUndefined();
});

test('a cross-site request is refused whatever its Origin', () => {
  expect(browserRefusal(req({ origin: OWN[0], 'sec-fetch-site': 'cross-site' }), OWN)?.error).toBe(
    'Forbidden: cross-site browser requests are refused here',
  );
});

test('another origin is refused and named', () => {
  expect(browserRefusal(req({ origin: 'http://127.0.0.1:9999' }), OWN)?.error).toBe(
    "Forbidden: requests from origin 'http://127.0.0.1:9999' are refused (only this port's own pages may call it)",
  );
});

test('a same-site request without an Origin of ours is refused (another local port)', () => {
  expect(browserRefusal(req({ 'sec-fetch-site': 'same-site' }), OWN)?.status).toBe(403);
});

test('a trusted origin beside the own ones passes', () => {
  expect(browserRefusal(req({ origin: 'http://127.0.0.1:5173' }), [...OWN, 'http://127.0.0.1:5173'])).toBeUndefined();
});

describe('RefusalLog', () => {
  afterEach(() => jest.useRealTimers());

  test('logs at most its limit a minute', () => {
    const lines: string[] = [];
    const log = new RefusalLog((l) => lines.push(l), 3);
    for (let i = 0; i < 10; i++) log.note(`refused ${i}`);
    expect(lines).toEqual(['refused 0', 'refused 1', 'refused 2']);
  });

  test('counts what it left out in one line when the next minute starts', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const lines: string[] = [];
    const log = new RefusalLog((l) => lines.push(l), 1);
    for (let i = 0; i < 5; i++) log.note(`refused ${i}`);
    jest.setSystemTime(1_000_000 + 60_000);
    log.note('later');
    expect(lines).toEqual(['refused 0', '4 more refusals in the last minute were not logged one by one', 'later']);
  });
});
