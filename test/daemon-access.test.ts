/**
 * The daemon's door against a captured credential: a nonce proof it has accepted once is refused
 * the next time, so a header read off the wire (or out of a process listing) cannot be replayed.
 */
import { clientCredentials } from '../shared/auth.js';
import { endHttpDaemon, startHttpDaemon, type HttpDaemon } from './helpers/http-daemon.js';
import { Reaper } from './helpers/procs.js';

const reaper = new Reaper();
let d: HttpDaemon | undefined;

beforeAll(async () => {
  d = await startHttpDaemon(reaper);
}, 30000);

afterAll(() => endHttpDaemon(reaper, d));

const status = (authorization: string) =>
  fetch(`http://127.0.0.1:${d!.port}/status`, { headers: { authorization } }).then((r) => r.status);

test('a nonce proof is accepted once and refused when replayed', async () => {
  const { authorization } = clientCredentials(d!.token);
  expect(await status(authorization)).toBe(200);
  expect(await status(authorization)).toBe(401);
  // a fresh proof still works: the refusal is of the replay, not of the client
  expect(await status(clientCredentials(d!.token).authorization)).toBe(200);
});
