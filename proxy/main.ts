#!/usr/bin/env node
/**
 * The bin. Dispatches lazily so the bare stdio proxy (what MCP clients spawn) loads nothing
 * heavy: no SDK, no yargs. Subcommands, help and --no-daemon import what they need.
 */
const argv = process.argv.slice(2);
// A first word that is not a flag is a subcommand, or a typo of one: the CLI says which.
const wantsCli =
  (argv[0] !== undefined && !argv[0].startsWith('-')) ||
  argv.some((a) => a === '-h' || a === '--help' || a === '-v' || a === '--version');

if (argv[0] === 'daemon' && argv.length === 1) {
  const { runDaemon } = await import('../daemon/main.js');
  await runDaemon({ foreground: true });
} else if (wantsCli) {
  const { runCli } = await import('../cli/cli.js');
  await runCli(argv);
} else if (argv.includes('--no-daemon')) {
  const { runStdioEngine } = await import('../daemon/stdio.js');
  await runStdioEngine(argv);
} else {
  (await import('./spawn.js')).prestartDaemon();
  const { runProxy } = await import('./run.js');
  await runProxy(argv);
}
