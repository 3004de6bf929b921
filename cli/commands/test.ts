/** `game-bridge-mcp test`: run saved tests with no agent (docs/TESTS.md). */
import { numberFlag, subcommand, switchFlag, textFlag } from './subcommand.js';

export const testCommands = [
  subcommand({
    command: 'test [paths..]',
    describe:
      'Run saved tests (gamebridge-tests/**/*.jsonl) with no agent: each on a fresh game launched through the daemon; exit 1 when any failed',
    positionals: {
      paths: { type: 'string', array: true, describe: 'Test files or folders (default: below this one)' },
    },
    options: {
      reporter: {
        type: 'string',
        choices: ['list', 'junit', 'html', 'json'],
        default: 'list',
        describe: 'Also write a report: junit (XML for CI), html (a folder a person opens), json',
      },
      output: textFlag('Where the report goes: a file (junit, json) or a folder (html)'),
      shard: textFlag('Run the i-th of n disjoint parts of the tests, e.g. 2/4 (a CI matrix)'),
      workers: numberFlag('Run this many tests at once, each on its own game (default 1)'),
      retries: numberFlag('Run a failed test again up to this many times; one that then passes is reported flaky'),
      update: switchFlag("Re-record expected values and screenshot baselines from this build's run"),
      config: textFlag("Run against this gamebridge.json (another build) instead of each test's own"),
      grep: textFlag('Only tests whose name or path matches this regular expression'),
      compare: {
        type: 'string',
        array: true,
        requiresArg: true,
        describe:
          'Two gamebridge.json files: run one test on both builds and report the first step where their states part',
      },
    },
    builder: (y) =>
      y
        .example('$0 test', 'every saved test below this folder')
        .example('$0 test --shard 1/4 --reporter junit --output results.xml', 'a CI machine’s quarter, as JUnit XML')
        .example('$0 test --config ../build-b/gamebridge.json', 'the same tests against another build')
        .example(
          '$0 test --compare a/gamebridge.json b/gamebridge.json gamebridge-tests/menu.jsonl',
          'where two builds part',
        ),
    run: async (a) => {
      const { runTests } = await import('../test/run.js');
      return runTests({
        paths: ((a.paths as string[] | undefined) ?? []).map(String),
        reporter: a.reporter as 'list' | 'junit' | 'html' | 'json',
        output: a.output,
        shard: a.shard,
        workers: a.workers,
        retries: a.retries,
        update: a.update === true,
        grep: a.grep,
        compare: a.compare,
        config: a.config,
      });
    },
  }),
];
