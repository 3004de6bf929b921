/** GAME_BRIDGE_STANDBY → which standby a daemon keeps: light unless asked otherwise. */
import { standbyKind, standbySettingWarning } from '../../../../daemon/life/standby.js';

test.each([
  [undefined, 'light'],
  ['', 'light'],
  ['light', 'light'],
  ['1', 'warm'],
  ['0', 'none'],
  ['yes', 'light'],
])('GAME_BRIDGE_STANDBY=%s → %s', (value, kind) => {
  const env: NodeJS.ProcessEnv = value === undefined ? {} : { GAME_BRIDGE_STANDBY: value };
  expect(standbyKind(env)).toBe(kind);
});

test('a value the daemon does not know is said, naming the ones it does', () => {
  expect(standbySettingWarning({})).toBeUndefined();
  for (const v of ['', '0', '1', 'light']) expect(standbySettingWarning({ GAME_BRIDGE_STANDBY: v })).toBeUndefined();
  expect(standbySettingWarning({ GAME_BRIDGE_STANDBY: 'off' })).toMatch(
    /^GAME_BRIDGE_STANDBY="off" is not 0 \(no standby\), 1 \(a warm one\) or light .*keeping a light standby$/,
  );
});
