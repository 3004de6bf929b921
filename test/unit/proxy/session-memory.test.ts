/**
 * The rest of the proxy's replay bookkeeping as pure logic: the pending table's edges (reused
 * ids, take, drain order, the send count), the send cap, every answer the proxy writes itself,
 * and the session memory a new daemon is told again.
 */
// The pending table and its replay plan; then the answers the proxy writes itself, and the session memory.
import {
  MAX_SENDS,
  PendingTable,
  planReplay,
  requestKey,
  type ClientRequest,
  type Pending,
} from '../../../proxy/replay.js';
import { failureAnswer, refusedAnswer, SessionMemory, unavailableAnswer } from '../../../proxy/replay.js';

const req = (id: string | number, method = 'tools/call', extra: Partial<ClientRequest> = {}): ClientRequest => ({
  id,
  key: requestKey(id),
  method,
  line: `{"id":${JSON.stringify(id)}}`,
  ...extra,
});

describe('PendingTable', () => {
  test('an entry keeps what the client sent, starts unacked and counts its first send', () => {
    const t = new PendingTable();
    t.add(req(1, 'tools/call', { tool: 'call_tool', modern: true }), 10);
    const [p] = t.drain();
    expect(p).toEqual({
      id: 1,
      key: '1',
      method: 'tools/call',
      line: '{"id":1}',
      tool: 'call_tool',
      modern: true,
      seq: 10,
      state: 'unacked',
      sends: 1,
    });
  });

  test('a re-sent entry counts one more send each time it is added again', () => {
    const t = new PendingTable();
    t.add(req(1), 1);
    let [p] = t.drain();
    t.add(p, 2);
    [p] = t.drain();
    t.add(p, 3);
    [p] = t.drain();
    expect(p.sends).toBe(3);
    expect(p.seq).toBe(3);
  });

  test('an ack sets the verdict of the entry with its seq only', () => {
    const t = new PendingTable();
    t.add(req(1), 1);
    t.add(req(2), 2);
    t.ack(1, 'unsafe');
    t.ack(99, 'safe');
    expect(t.drain().map((p) => p.state)).toEqual(['unsafe', 'unacked']);
    t.add(req(3), 3);
    t.ack(3, 'safe');
    expect(t.drain()[0].state).toBe('safe');
  });

  test('a reused id is settled oldest first and stays known until its last entry', () => {
    const t = new PendingTable();
    t.add(req(7), 1);
    t.add(req(7), 2);
    expect(t.size).toBe(2);
    expect(t.settle('7')?.seq).toBe(1);
    expect(t.hasKey('7')).toBe(true);
    expect(t.size).toBe(1);
    expect(t.settle('7')?.seq).toBe(2);
    expect(t.hasKey('7')).toBe(false);
    expect(t.settle('7')).toBeUndefined();
    expect(t.size).toBe(0);
  });

  test('take removes only what it picks, oldest first', () => {
    const t = new PendingTable();
    t.add(req('b', 'ping'), 5);
    t.add(req('a', 'tools/list'), 2);
    t.add(req('a', 'ping'), 9);
    t.add(req('c', 'ping'), 1);
    const taken = t.take((p) => p.method === 'ping');
    expect(taken.map((p) => p.seq)).toEqual([1, 5, 9]);
    expect(t.size).toBe(1);
    expect(t.hasKey(requestKey('a'))).toBe(true);
    expect(t.hasKey(requestKey('b'))).toBe(false);
    expect(t.hasKey(requestKey('c'))).toBe(false);
    expect(t.settle(requestKey('a'))?.method).toBe('tools/list');
    expect(t.take(() => true)).toEqual([]);
  });

  test('drain empties the table oldest first and forgets every id', () => {
    const t = new PendingTable();
    t.add(req(3), 30);
    t.add(req(1), 10);
    t.add(req(2), 20);
    expect(t.drain().map((p) => p.id)).toEqual([1, 2, 3]);
    expect(t.size).toBe(0);
    expect(t.hasKey('1')).toBe(false);
    expect(t.settle('2')).toBeUndefined();
  });
});

describe('planReplay', () => {
  const pending = (state: Pending['state'], sends: number, id: number): Pending => ({
    ...req(id),
    seq: id,
    state,
    sends,
  });

  test('a request sent MAX_SENDS times is exhausted, one send fewer still goes out', () => {
    expect(MAX_SENDS).toBe(8);
    const plan = planReplay([
      pending('unacked', MAX_SENDS - 1, 1),
      pending('unacked', MAX_SENDS, 2),
      pending('safe', MAX_SENDS - 1, 3),
      pending('safe', MAX_SENDS + 1, 4),
      pending('unsafe', 1, 5),
      pending('unsafe', MAX_SENDS, 6),
    ]);
    expect(plan.resend.map((p) => p.id)).toEqual([1, 3]);
    expect(plan.exhausted.map((p) => p.id)).toEqual([2, 4]);
    expect(plan.interrupted.map((p) => p.id)).toEqual([5, 6]);
  });

  test('nothing pending, nothing to do', () => {
    expect(planReplay([])).toEqual({ resend: [], interrupted: [], exhausted: [] });
  });
});

describe('answers the proxy writes itself', () => {
  test('a tools/call failure is an isError tool result, which in the 2026 era also says it is complete', () => {
    expect(JSON.parse(failureAnswer(req(1, 'tools/call'), 'why'))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'why' }], isError: true },
    });
    expect(JSON.parse(failureAnswer(req('x', 'tools/call', { modern: true }), 'why'))).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      result: { content: [{ type: 'text', text: 'why' }], isError: true, resultType: 'complete' },
    });
  });

  test('any other method gets a JSON-RPC error with the text, whatever its era', () => {
    expect(JSON.parse(failureAnswer(req(2, 'tools/list', { modern: true }), 'down'))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32000, message: 'down' },
    });
  });

  test('an unavailable tool call names the tool and the detail, with the next step', () => {
    const call = JSON.parse(
      unavailableAnswer(req(3, 'tools/call', { tool: 'launch_instance' }), 'no daemon came back'),
    );
    expect(call.result.content[0].text).toBe(
      "CallInterrupted: The call to 'launch_instance' was interrupted: no daemon came back. " +
        'It may or may not have been applied; read the state (get_state) before retrying.',
    );
  });

  test('an unavailable request other than a tool call names its method', () => {
    const other = JSON.parse(unavailableAnswer(req(4, 'resources/list'), 'gone'));
    expect(other.error.message).toMatch(/^CallInterrupted: The 'resources\/list' request was interrupted: gone\./);
  });

  test("a refused home is the client's usage error, with the reason", () => {
    const a = JSON.parse(refusedAnswer(req(5, 'tools/call'), 'the home is owned by uid 1000'));
    expect(a.result.isError).toBe(true);
    expect(a.result.content[0].text).toBe('BridgeUsageError: the home is owned by uid 1000');
    expect(JSON.parse(refusedAnswer(req(6, 'initialize'), 'no')).error.message).toBe('BridgeUsageError: no');
  });
});

describe('SessionMemory', () => {
  test('initialize is remembered with its key and marks the session as not yet answered', () => {
    const m = new SessionMemory();
    m.initializeAnswered = true;
    m.initializedSent = true;
    const params = { protocolVersion: '2025-11-25' };
    m.noteRequest(req(1, 'initialize'), params);
    expect(m.initialize).toEqual({ params, key: '1' });
    expect(m.initializeAnswered).toBe(false);
    expect(m.initializedSent).toBe(false);
    m.noteAnswer(req(1, 'initialize'), { error: { code: 1 } });
    expect(m.initializeAnswered).toBe(false);
    m.noteAnswer(req(1, 'initialize'), { result: {} });
    expect(m.initializeAnswered).toBe(true);
  });

  test('only the first page of tools/list is captured', () => {
    const m = new SessionMemory();
    m.noteRequest(req(2, 'tools/list'), { cursor: 'p2' });
    m.noteAnswer(req(2, 'tools/list'), { result: { tools: [{ name: 'page2' }] } });
    expect(m.toolsSeen).toBeUndefined();
  });

  test('tools/list is captured only from a result of that method', () => {
    const m = new SessionMemory();
    m.noteRequest(req(3, 'tools/list'), undefined);
    m.noteAnswer(req(3, 'tools/list'), { error: { code: 1 } });
    expect(m.toolsSeen).toBeUndefined();
    expect(m.toolsListKeys.has('3')).toBe(false);
    m.noteRequest(req(4, 'tools/list'), {});
    m.noteAnswer(req(4, 'tools/list'), { result: { tools: [{ name: 'a' }] } });
    expect(m.toolsSeen).toBe('[{"name":"a"}]');
    // another method's answer under a remembered key changes nothing
    m.noteAnswer(req(4, 'ping'), { result: { tools: [{ name: 'b' }] } });
    expect(m.toolsSeen).toBe('[{"name":"a"}]');
  });

  test("server/discover's last result is kept for answering while the daemon is down", () => {
    const m = new SessionMemory();
    m.noteAnswer(req(5, 'server/discover'), { error: {} });
    expect(m.discover).toBeUndefined();
    m.noteAnswer(req(5, 'server/discover'), { result: { supportedVersions: ['2026-07-28'] } });
    expect(m.discover).toEqual({ supportedVersions: ['2026-07-28'] });
  });

  test('hidden ids are fresh and never a client id shape', () => {
    const m = new SessionMemory();
    expect(m.hiddenId('initialize', 'abcdef0123456789')).toBe('gbp-init-1-abcdef01');
    expect(m.hiddenId('tools/list', 'abcdef0123456789')).toBe('gbp-tools-2-abcdef01');
  });

  test('a hidden id is taken once', () => {
    const m = new SessionMemory();
    const a = m.hiddenId('initialize', 'abcdef0123456789');
    const b = m.hiddenId('tools/list', 'abcdef0123456789');
    expect(m.isHidden(requestKey(a))).toBe(true);
    expect(m.isHidden(a)).toBe(false); // keys, not ids
    expect(m.takeHidden(requestKey(b))).toBe('tools/list');
    expect(m.takeHidden(requestKey(b))).toBeUndefined();
    expect(m.isHidden(requestKey(b))).toBe(false);
    m.clearHidden();
    expect(m.isHidden(requestKey(a))).toBe(false);
  });

  test('a new tool list counts as changed only against the last one seen', () => {
    const m = new SessionMemory();
    expect(m.toolsChanged({ tools: [{ name: 'a' }] })).toBe(false); // nothing seen yet
    expect(m.toolsSeen).toBe('[{"name":"a"}]');
    expect(m.toolsChanged({ tools: [{ name: 'a' }] })).toBe(false);
    expect(m.toolsChanged({ tools: [{ name: 'b' }] })).toBe(true);
    expect(m.toolsChanged({ tools: [{ name: 'b' }] })).toBe(false);
    expect(m.toolsChanged({})).toBe(false);
    expect(m.toolsChanged(undefined)).toBe(false);
    expect(m.toolsSeen).toBe('[{"name":"b"}]');
  });
});
