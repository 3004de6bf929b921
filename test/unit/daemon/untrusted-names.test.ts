/**
 * Names that come from outside are taken as names only: a launch profile called `constructor`
 * or `__proto__` is an unknown profile (not the object's prototype), and the call feed's
 * summary strings (client, session, tool names) are cut to a bound.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallFeed } from '../../../daemon/feed/calls.js';
import { parseDeclaration } from '../../../daemon/launcher/declaration.js';
import { planLaunch } from '../../../daemon/launcher/profiles.js';

/** The profiles of a gamebridge.json whose launch.profiles is `profiles` (its JSON text). */
const parseProfiles = (profiles: string) =>
  parseDeclaration(
    JSON.parse(`{"launch": {"command": "game", "profiles": ${profiles}}}`),
    join(tmpdir(), 'gamebridge.json'),
  ).profiles;

test.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
  "launch profile '%s' is unknown unless the declaration names it",
  (name) => {
    const decl = {
      file: '/p/gamebridge.json',
      command: 'game',
      env: {},
      readyTimeoutMs: 1000,
      profiles: parseProfiles('{"server": {"args": "--server"}}'),
    };
    expect(() => planLaunch(decl as never, 9000, { profile: name, env: {} })).toThrow(
      `declares no launch profile '${name}'. Its profiles: server.`,
    );
  },
);

test('a profile the declaration does name __proto__ is its own profile', () => {
  const profiles = parseProfiles('{"__proto__": {"args": "--odd"}}');
  const decl = { file: '/p/gamebridge.json', command: 'game', env: {}, readyTimeoutMs: 1000, profiles };
  expect(planLaunch(decl as never, 9000, { profile: '__proto__', env: {} }).command).toBe('game --odd');
});

test("the call feed's summary strings are bounded", () => {
  const feed = new CallFeed();
  const long = 'x'.repeat(100_000);
  const s = feed.record({
    at: Date.now(),
    session: long,
    client: long,
    tool: 'call_tool',
    args: { name: long },
    ms: 1,
    isError: true,
    text: `${'A'.repeat(5000)}: boom`,
    images: 0,
  });
  expect(JSON.stringify(s).length).toBeLessThan(2000);
  expect(s.errorClass).toBe('Error');
});
