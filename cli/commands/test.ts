/** `game-bridge-mcp test`: run saved tests with no agent (docs/TESTS.md). */
import { existsSync } from 'node:fs';
import { usageError } from '../../shared/errors.js';
import { numberFlag, subcommand, textFlag } from './subcommand.js';

/**
 * `--update` alone rewrites everything, `--update=locators` only re-binds renamed nodes. The flag
 * takes an optional value, so in `--update gamebridge-tests/a.jsonl` the path is read as its
 * value: a value that is not a mode but names a file or folder goes back to the paths.
 */
function updateMode(value: string | undefined, paths: string[]): boolean | 'locators' | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === 'all') return true;
  if (value === 'locators') return 'locators';
  if (existsSync(value)) {
    paths.unshift(value);
    return true;
  }
  throw usageError(`test: --update takes no value or =locators, not '${value}'.`);
}

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
        choices: ['list', 'junit', 'html', 'json', 'blob'],
        default: 'list',
        describe:
          "Also write a report: junit (XML for CI), html (a folder a person opens), json, blob (this shard's part, for merge-reports)",
      },
      output: textFlag('Where the report goes: a file (junit, json) or a folder (html, blob)'),
      shard: textFlag('Run the i-th of n disjoint parts of the tests, e.g. 2/4 (a CI matrix)'),
      workers: numberFlag('Run this many tests at once, each on its own game (default 1)'),
      retries: numberFlag('Run a failed test again up to this many times; one that then passes is reported flaky'),
      update: {
        type: 'string',
        describe:
          "Re-record expected values, screenshot baselines and renamed nodes from this build's run; --update=locators: only re-bind steps whose node was renamed, never an expected value",
      },
      config: textFlag("Run against this gamebridge.json (another build) instead of each test's own"),
      grep: textFlag('Only tests whose name or path matches this regular expression'),
      trace: {
        type: 'string',
        choices: ['on', 'retain-on-failure', 'off'],
        default: 'retain-on-failure',
        describe:
          "Write each test's trace (every step: call, answer, state changes, screenshot) as one HTML file in the report folder's traces/: on, retain-on-failure (failed tests only), off",
      },
      debug: {
        type: 'boolean',
        describe:
          'Run one test to its failing step (or its end) and leave its game running there, paused; prints its port, for an agent or the dashboard',
      },
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
        .example('$0 test --shard 1/4 --reporter blob --output blob-report', 'a quarter’s blob, for merge-reports')
        .example('$0 test --config ../build-b/gamebridge.json', 'the same tests against another build')
        .example('$0 test --trace on', "every test's trace in gamebridge-report/traces/")
        .example('$0 test --update=locators', 'follow renamed buttons; a changed value still fails')
        .example(
          '$0 test gamebridge-tests/menu.jsonl --debug',
          'leave its game at the failing step, and print its port',
        )
        .example(
          '$0 test --compare a/gamebridge.json b/gamebridge.json gamebridge-tests/menu.jsonl',
          'where two builds part',
        ),
    run: async (a) => {
      const { runTests } = await import('../saved-tests/run.js');
      const paths = ((a.paths as string[] | undefined) ?? []).map(String);
      if (a.debug === true) return (await import('../saved-tests/debug.js')).runDebug(paths, a.config);
      return runTests({
        paths,
        update: updateMode(a.update as string | undefined, paths),
        reporter: a.reporter as 'list' | 'junit' | 'html' | 'json' | 'blob',
        output: a.output,
        shard: a.shard,
        workers: a.workers,
        retries: a.retries,
        grep: a.grep,
        compare: a.compare,
        config: a.config,
        trace: a.trace as 'on' | 'retain-on-failure' | 'off',
      });
    },
  }),
  subcommand({
    command: 'merge-reports [blobs..]',
    describe:
      'Merge the blobs of a sharded run (test --shard i/n --reporter blob) into one report: each test once, its shard named',
    positionals: {
      blobs: { type: 'string', array: true, describe: 'Folders holding blob-<i>-of-<n>.jsonl files (or the files)' },
    },
    options: {
      reporter: {
        type: 'string',
        choices: ['html', 'junit', 'json'],
        default: 'html',
        describe: 'The merged report: html (a folder a person opens), junit (XML for CI), json',
      },
      output: textFlag('Where the report goes: a folder (html) or a file (junit, json); default gamebridge-report/'),
    },
    examples: [
      ['$0 merge-reports all-blobs --reporter html --output report', 'one HTML report of every shard'],
      ['$0 merge-reports shard-1 shard-2 shard-3 --reporter junit --output results.xml', 'one JUnit file of three'],
    ],
    run: async (a) => {
      const { mergeReports } = await import('../saved-tests/merge.js');
      return mergeReports({
        paths: ((a.blobs as string[] | undefined) ?? []).map(String),
        reporter: a.reporter as 'html' | 'junit' | 'json',
        output: a.output,
      });
    },
  }),
  subcommand({
    command: 'show-trace <file>',
    describe:
      "Open a test's or a session's trace (a .trace.html file) in the browser; with no display, print where it is and how to open it",
    positionals: {
      file: { type: 'string', describe: 'The trace file, e.g. gamebridge-report/traces/first-drop.trace.html' },
    },
    run: async (a) => {
      const { runShowTrace } = await import('../show-trace.js');
      return runShowTrace(String(a.file));
    },
    examples: [['$0 show-trace gamebridge-report/traces/first-drop.trace.html', 'step through a failed test']],
  }),
];
