/** The proxy's replay rules (docs/ARCHITECTURE.md) as pure functions: what is re-sent, what is answered. */
import { isOlder } from '../../../proxy/link.js';
import {
  failureAnswer,
  interruptedAnswer,
  PendingTable,
  planReplay,
  requestKey,
  type ClientRequest,
} from '../../../proxy/replay.js';

const req = (id: number, method: string, tool?: string): ClientRequest => ({
  id,
  key: JSON.stringify(id),
  method,
  line: '{}',
  tool,
});

test('unacked and acked-safe requests are re-sent, acked-unsafe ones are not', () => {
  const t = new PendingTable();
  t.add(req(1, 'tools/list'), 1);
  t.add(req(2, 'tools/call', 'call_tool'), 2);
  t.add(req(3, 'tools/call', 'call_tool'), 3);
  t.add(req(4, 'tools/call', 'call_tool'), 4);
  t.ack(2, 'safe');
  t.ack(3, 'unsafe');
  expect(t.settle(JSON.stringify(4))?.seq).toBe(4); // answered: gone
  const { resend, interrupted } = planReplay(t.drain());
  expect(resend.map((p) => p.id)).toEqual([1, 2]);
  expect(interrupted.map((p) => p.id)).toEqual([3]);
  expect(t.size).toBe(0);
});

test('ids 1 and "1" are different requests', () => {
  expect(requestKey(1)).not.toBe(requestKey('1'));
  const t = new PendingTable();
  t.add({ id: 1, key: requestKey(1), method: 'ping', line: '{}' }, 1);
  t.add({ id: '1', key: requestKey('1'), method: 'ping', line: '{}' }, 2);
  expect(t.settle(requestKey('1'))?.seq).toBe(2);
  expect(t.hasKey(requestKey(1))).toBe(true);
});

test('an interrupted tools/call is answered as a tool result with isError', () => {
  const call = JSON.parse(interruptedAnswer(req(7, 'tools/call', 'call_tool')));
  expect(call.id).toBe(7);
  expect(call.result.isError).toBe(true);
  expect(call.result.content[0].text).toMatch(/^CallInterrupted: The call to 'call_tool' was interrupted/);
});

test('a failed method other than tools/call is answered as a JSON-RPC error', () => {
  const other = JSON.parse(failureAnswer(req(8, 'resources/read'), 'nope'));
  expect(other.error).toEqual({ code: -32000, message: 'nope' });
});

test('versions are ordered numerically with a pre-release older than its release', () => {
  expect(isOlder('0.0.1-old', '0.1.0')).toBe(true);
  expect(isOlder('0.1.0-rc.1', '0.1.0')).toBe(true);
  expect(isOlder('0.10.0', '0.9.0')).toBe(false);
  expect(isOlder('0.1.0', '0.1.0')).toBe(false);
  expect(isOlder('1.0.0', '0.9.9')).toBe(false);
});
