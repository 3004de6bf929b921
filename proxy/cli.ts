/**
 * The CLI (SPEC §7), parsed with yargs. Loaded only for subcommands, --help and --version:
 * the bare proxy never pays for it.
 */
import yargs from 'yargs';
import { withSessionOptions } from '../shared/config.js';
import { VERSION } from '../shared/version.js';

export async function runCli(argv: string[]): Promise<void> {
  let exitCode = 0;
  const cli = withSessionOptions(yargs(argv))
    .scriptName('game-bridge-mcp')
    .usage('$0 [options]\n\nThe stdio MCP server an MCP client spawns: it finds or starts the game-bridge daemon and forwards MCP to it.')
    .command('daemon', 'Run the daemon in the foreground', {}, async () => {
      const { runDaemon } = await import('../daemon/main.js');
      await runDaemon();
    })
    .command('status', 'Show the daemon: pid, port, version, uptime, sessions, launched games', {}, async () => {
      const { runStatus } = await import('./admin.js');
      exitCode = await runStatus();
    })
    .command('stop', 'Stop the daemon; it reaps every game it launched', {}, async () => {
      const { runStop } = await import('./admin.js');
      exitCode = await runStop();
    })
    .example('$0', 'serve MCP on stdio (what clients run)')
    .example('$0 --port 7820', 'default every call to the game on port 7820')
    .example('$0 --no-daemon', 'run the engine in this process, no daemon')
    .alias('h', 'help')
    .version(VERSION)
    .alias('v', 'version')
    .strict()
    .recommendCommands()
    .fail((msg, err, y) => {
      process.stderr.write(`game-bridge-mcp: ${msg || err?.message}\n`);
      process.exitCode = 2;
      void y;
    });
  await cli.parseAsync();
  if (exitCode) process.exitCode = exitCode;
}
