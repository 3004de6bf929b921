/** GAME_BRIDGE_START_PAUSED in a launch's environment: set for a launch with `paused`, never inherited from the client. */
import { planLaunch, START_PAUSED_ENV } from '../../../../daemon/launcher/profiles.js';

const decl = (env: Record<string, string> = {}) =>
  ({ file: '/p/gamebridge.json', command: 'game', env, readyTimeoutMs: 1000, profiles: {} }) as never;

test('a launch with paused gives the game GAME_BRIDGE_START_PAUSED=1', () => {
  expect(planLaunch(decl(), 9000, { env: { HOME: '/h' }, paused: true }).env).toEqual({
    HOME: '/h',
    [START_PAUSED_ENV]: '1',
  });
});

test("a launch without paused drops GAME_BRIDGE_START_PAUSED from the client's environment", () => {
  expect(planLaunch(decl(), 9000, { env: { HOME: '/h', [START_PAUSED_ENV]: '1' } }).env).toEqual({ HOME: '/h' });
});

test('a declaration that sets it itself keeps it: the game author asked', () => {
  expect(planLaunch(decl({ [START_PAUSED_ENV]: '1' }), 9000, { env: {} }).env[START_PAUSED_ENV]).toBe('1');
});
