/** The browser opener: the URL is one argument of a program, never a line a shell reads. */
import { opener } from '../../../cli/dashboard.js';

const URL_WITH_AMP = 'file:///C:/Users/me/a&calc/gamebridge-report/traces/drop.trace.html';

test('on Windows the URL is one argument of an opener that is no shell, & and all', () => {
  const [cmd, args] = opener(URL_WITH_AMP, 'win32', {})!;
  expect(cmd).toBe('rundll32');
  expect(args).toEqual(['url.dll,FileProtocolHandler', URL_WITH_AMP]);
});

test('on macOS and on Linux with a display the URL is the opener’s one argument', () => {
  expect(opener(URL_WITH_AMP, 'darwin', {})).toEqual(['open', [URL_WITH_AMP]]);
  expect(opener(URL_WITH_AMP, 'linux', { DISPLAY: ':0' })).toEqual(['xdg-open', [URL_WITH_AMP]]);
});

test('on Linux with no display there is no opener', () => {
  expect(opener(URL_WITH_AMP, 'linux', {})).toBeUndefined();
});
