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
