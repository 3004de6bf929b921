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
  const { runDaemon } = await import('../daemon/life/main.js');
  await runDaemon({ foreground: true });
} else if (wantsCli) {
  const { runCli } = await import('../cli/cli.js');
  await runCli(argv);
} else if (argv.includes('--no-daemon')) {
  const { runStdioEngine } = await import('../daemon/doors/stdio.js');
  await runStdioEngine(argv);
} else {
  // A person who runs it in a terminal sees why nothing happens; stdout stays the client's.
  if (process.stdin.isTTY) {
    const { selfCommand } = await import('../shared/self-command.js');
    process.stderr.write(
      'game-bridge-mcp: this is an MCP server: an MCP client (Claude Code, Cursor, VS Code, …) starts it and speaks\n' +
        'JSON-RPC with it on stdin and stdout, so it waits here. To see it work: ' +
        `${selfCommand()} demo; its commands: ${selfCommand()} --help. Ctrl-C leaves.\n`,
    );
  }
  const proxy = await loadProxy();
  proxy.prestartDaemon(); // before anything else runs: on a cold start the daemon boots meanwhile
  await proxy.runProxy(argv);
}

/** The bundled proxy, unless a compile newer than it (tsc without `npm run bundle:proxy`) makes it stale. */
async function loadProxy(): Promise<typeof import('./entry.js')> {
  const { statSync } = await import('node:fs');
  const mtime = (rel: string) => statSync(new URL(rel, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
  if (mtime('./bundle.mjs') >= mtime('./run.js')) {
    // a path the type checker does not follow: the bundle exists only after a build
    const bundle = './bundle.mjs';
    return (await import(bundle)) as typeof import('./entry.js');
  }
  return import('./entry.js');
}
