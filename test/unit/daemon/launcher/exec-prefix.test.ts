/**
 * Which declared commands get `exec` in front of the game, and which are left as written.
 * What exec then does is checked with real processes in test/game-life.test.ts.
 */
import { execPrefixed } from '../../../../daemon/launcher/exec-prefix.js';

test.each([
  ['node game.js --port 7777', 'exec node game.js --port 7777'],
  ['FOO=1 BAR="a b" ./game --port 1', 'FOO=1 BAR="a b" exec ./game --port 1'],
  ['node game.js --name "a;b|c&d"', 'exec node game.js --name "a;b|c&d"'],
  ["node game.js --name 'x && y'", "exec node game.js --name 'x && y'"],
  ['cd build && ./game --port 1', 'cd build && exec ./game --port 1'],
  ['cd "my dir" && A=1 ./game', 'cd "my dir" && A=1 exec ./game'],
  ['export A=1; ./game', 'export A=1; exec ./game'],
  ['./build.sh || ./game', './build.sh || exec ./game'],
  ['cd x && ./game > out.log 2>&1', 'cd x && exec ./game > out.log 2>&1'],
])('%s → %s', (command, expected) => {
  expect(execPrefixed(command, 'linux')).toBe(expected);
});

test.each([
  ['exec ./game'],
  ['./game | tee log'],
  ['./game &'],
  ['./server & ./game'],
  ['(cd x && ./game)'],
  ['{ cd x; ./game; }'],
  ['cd $(dirname x) && ./game'],
  ['cd `pwd` && ./game'],
  ['if true; then ./game; fi'],
  ['trap "rm -f x" EXIT; ./game'],
  ['./game; exit 0'],
  ['./game; echo done'],
  ['./game && '],
  ['./game "unterminated'],
  ['cd x # && ./game'],
  ['cat <<EOF | ./game'],
  ['./game\n./other'],
  [''],
])('%j is left as written', (command) => {
  expect(execPrefixed(command, 'linux')).toBe(command);
});

test('on Windows nothing is prefixed', () => {
  expect(execPrefixed('node game.js', 'win32')).toBe('node game.js');
});
