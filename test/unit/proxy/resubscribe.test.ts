/**
 * What the proxy remembers of a 2025-era client's resource subscriptions (proxy/resubscribe.ts),
 * as pure logic: only answered subscriptions count, an unsubscribe forgets, and a refused
 * re-subscription is dropped with its reason.
 */
import { requestKey, type ClientRequest } from '../../../proxy/replay.js';
import { Subscriptions } from '../../../proxy/resubscribe.js';

const req = (id: number, method: string): ClientRequest => ({ id, key: requestKey(id), method, line: '' });
const A = 'gamebridge://game/7820/state';
const B = 'gamebridge://game/7821/ui';

test('a subscription counts only once the daemon said yes', () => {
  const s = new Subscriptions();
  s.noteRequest(req(1, 'resources/subscribe'), { uri: A });
  s.noteRequest(req(2, 'resources/subscribe'), { uri: B });
  expect(s.uris()).toEqual([]);
  s.noteAnswer(req(1, 'resources/subscribe'), { result: {} });
  s.noteAnswer(req(2, 'resources/subscribe'), { error: { code: -32602, message: 'BridgeUsageError: no' } });
  expect(s.uris()).toEqual([A]);
});

test('an unsubscribe forgets the subscription', () => {
  const s = new Subscriptions();
  s.noteRequest(req(1, 'resources/subscribe'), { uri: A });
  s.noteAnswer(req(1, 'resources/subscribe'), { result: {} });
  expect(s.uris()).toEqual([A]);
  s.noteRequest(req(3, 'resources/unsubscribe'), { uri: A });
  expect(s.uris()).toEqual([]);
});

/** Two subscriptions made, then replayed to a new daemon that takes A and refuses B. */
function replayedOnce(): { s: Subscriptions; refused: unknown } {
  const s = new Subscriptions();
  for (const [id, uri] of [
    [1, A],
    [2, B],
  ] as const) {
    s.noteRequest(req(id, 'resources/subscribe'), { uri });
    s.noteAnswer(req(id, 'resources/subscribe'), { result: {} });
  }
  s.replaying('"gbp-sub-1"', A);
  s.replaying('"gbp-sub-2"', B);
  expect(s.replayAnswer('"gbp-sub-1"', { result: {} })).toBeUndefined();
  const refused = s.replayAnswer('"gbp-sub-2"', { error: { message: 'BridgeUsageError: full' } });
  return { s, refused };
}

test('after a restart only the re-subscriptions the new daemon takes stay', () => {
  expect(replayedOnce().s.uris()).toEqual([A]);
});

test('a re-subscription the new daemon refuses is reported with its reason', () => {
  expect(replayedOnce().refused).toEqual({ uri: B, why: 'BridgeUsageError: full' });
});
