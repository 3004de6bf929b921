/** The saved-test tools of the bridge toolset (docs/TESTS.md): check the state, save the session as a test, run a saved test. */
import { OPERATORS } from '../../shared/test-file.js';
import type { ArgType, BridgeToolName, GameTool, ToolArg } from './types.js';

const arg = (name: string, type: ArgType, description: string, required = false): ToolArg => ({
  name,
  type,
  description,
  required,
});

type Make = (name: BridgeToolName, description: string, args: ToolArg[], readOnly: boolean) => GameTool;

export function testTools(t: Make): GameTool[] {
  return [
    t(
      'assert',
      `Check the state now: the value at \`path\` must meet one condition (${OPERATORS.join(', ')}, as wait_for takes them); fails with AssertionFailed, the value and the frame when it does not. It becomes an expect of the test save_test writes.`,
      [
        arg('path', 'string', "Dotted path into the state, e.g. 'game.score'.", true),
        arg('equals', 'any', 'The value must equal this.'),
        arg(
          'gte',
          'number',
          'The value must be a number at least this (gt, lt, lte, notEquals, exists, contains, matches work too).',
        ),
      ],
      true,
    ),
    t(
      'save_test',
      "Save what this session did to this game (its launch, every call, every check that held) as a test: gamebridge-tests/<name>.jsonl beside the project's gamebridge.json, replayable with run_test or `game-bridge-mcp test`. Answers the path and a summary.",
      [
        arg('name', 'string', "The test's name: letters, digits, '.', '_', '-' (e.g. 'first-drop').", true),
        arg('overwrite', 'boolean', 'Replace a test of that name (default false: an existing test is never replaced).'),
        arg('ignore', 'array', "State paths a build comparison leaves out, e.g. ['game.startedAt']."),
      ],
      false,
    ),
    t(
      'run_test',
      'Run a saved test as `game-bridge-mcp test` does, on a fresh game it launches and stops itself (no port needed); answers passed or failed, and for a failure the step, the condition, expected and actual.',
      [arg('name', 'string', 'The saved test (gamebridge-tests/<name>.jsonl).', true)],
      false,
    ),
  ];
}
