/**
 * The layers of docs/ARCHITECTURE.md ("Who may import what"), checked by `npm run depcheck`
 * (part of `npm test`). Each rule forbids one kind of upward or sideways edge; type-only
 * imports count too, because a type import is still knowledge of the layer above.
 */
const DAEMON_TOP = '^daemon/[^/]+\\.ts$'; // main, entry, server, transport, stdio, state, index

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle makes two modules one; split the shared part out, or pass it in.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-is-the-floor',
      comment: 'shared/ is used by the proxy, the CLI and the daemon alike: it imports none of them.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(proxy|cli|daemon|examples|bench|test)/' },
    },
    {
      name: 'proxy-knows-no-games',
      comment:
        'What a client spawn runs (run, link, replay, spawn) relays bytes; it never loads the engine or the CLI.',
      severity: 'error',
      from: { path: '^proxy/', pathNot: '^proxy/main\\.ts$' },
      to: { path: '^(cli|daemon|examples|bench)/' },
    },
    {
      name: 'bin-dispatches-only',
      comment: 'proxy/main.ts (the bin) lazily picks one entry: the CLI, the daemon, or the in-process engine.',
      severity: 'error',
      from: { path: '^proxy/main\\.ts$' },
      to: { path: '^(cli|daemon|examples|bench)/', pathNot: '^(cli/cli|daemon/main|daemon/stdio)\\.ts$' },
    },
    {
      name: 'proxy-stays-light',
      comment:
        'The bare proxy must start fast: no SDK and no yargs on its path (test/proxy-start.test.ts proves it at run time).',
      severity: 'error',
      from: { path: '^proxy/', pathNot: '^proxy/main\\.ts$' },
      to: { path: 'node_modules/(yargs|@modelcontextprotocol)/' },
    },
    {
      name: 'cli-uses-the-lower-floors',
      comment:
        'The subcommands read what the daemon reads (gamebridge.json, the registry) or start it; they never reach into sessions or tools.',
      severity: 'error',
      from: { path: '^cli/' },
      to: {
        path: '^(proxy|examples|bench)/|^daemon/(sessions|tools|composites|sync)/|' + DAEMON_TOP,
        pathNot: '^daemon/main\\.ts$',
      },
    },
    {
      name: 'daemon-is-not-a-client',
      comment: 'The daemon never imports the proxy, the CLI, the examples or the benchmarks.',
      severity: 'error',
      from: { path: '^daemon/' },
      to: { path: '^(proxy|cli|examples|bench|test)/' },
    },
    {
      name: 'game-is-the-daemon-floor',
      comment: 'game/ speaks the HTTP contract and nothing else.',
      severity: 'error',
      from: { path: '^daemon/game/' },
      to: { path: '^daemon/', pathNot: '^daemon/game/' },
    },
    {
      name: 'services-stand-side-by-side',
      comment: 'sync/ and discovery/ use game/ only, never each other or anything above.',
      severity: 'error',
      from: { path: '^daemon/(sync|discovery)/' },
      to: { path: '^daemon/', pathNot: ['^daemon/game/', '^daemon/$1/'] },
    },
    {
      name: 'launcher-starts-games',
      comment:
        'launcher/ uses game/ (readiness, close) and web/ (a browser game: carrier, static server, Chromium), never sync/, discovery/ or anything above.',
      severity: 'error',
      from: { path: '^daemon/launcher/' },
      to: { path: '^daemon/', pathNot: ['^daemon/game/', '^daemon/launcher/', '^daemon/web/'] },
    },
    {
      name: 'composites-below-tools',
      comment: 'composites/ may run commands (sync/) and find a project (launcher/), but knows no tool or session.',
      severity: 'error',
      from: { path: '^daemon/composites/' },
      to: { path: '^daemon/(discovery|tools|sessions)/|' + DAEMON_TOP },
    },
    {
      name: 'state-below-tools',
      comment:
        'DaemonState holds clients, caches, the launcher and owners; it knows nothing of MCP, tools or sessions.',
      severity: 'error',
      from: { path: '^daemon/state\\.ts$' },
      to: { path: '^daemon/(discovery|composites|sync|tools|sessions)/|' + DAEMON_TOP, pathNot: '^daemon/state\\.ts$' },
    },
    {
      name: 'tools-see-a-context',
      comment:
        'Tools see the ToolContext interface (tools/context.ts), which sessions implement: never sessions or the daemon-wide objects above them.',
      severity: 'error',
      from: { path: '^daemon/tools/' },
      to: { path: '^daemon/sessions/|' + DAEMON_TOP },
    },
    {
      name: 'sessions-below-transports',
      comment:
        'A session is transport-agnostic: the server, the ws transport and the stdio engine connect to it, not the other way.',
      severity: 'error',
      from: { path: '^daemon/sessions/' },
      to: { path: DAEMON_TOP, pathNot: '^daemon/state\\.ts$' },
    },
    {
      name: 'web-is-self-contained',
      comment:
        'daemon/web/ (page carrier, Chromium, static files) is a service of its own: shared/ at most from the rest of the tree.',
      severity: 'error',
      from: { path: '^daemon/web/' },
      to: { path: '^daemon/', pathNot: '^daemon/web/' },
    },
    {
      name: 'kit-core-is-platform-neutral',
      comment:
        'The game kit core runs in Node and in a browser page: no node builtins (the carriers index.ts and registry.ts may).',
      severity: 'error',
      from: { path: '^examples/game-kit/(core|args|input|clock|builtins|types|web)\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'dashboard-works-through-its-host',
      comment:
        'daemon/dashboard/ is loaded from disk on first use, outside the bundle: a run-time import of daemon or shared code would load a second copy of it (two error classes, two caches). It sees the daemon through DashboardHost, with type-only imports.',
      severity: 'error',
      from: { path: '^daemon/dashboard/' },
      to: { path: '^(daemon|shared)/', pathNot: '^daemon/dashboard/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'page-is-browser-code',
      comment:
        "dashboard/ (the page) runs in the browser: it takes only types from the daemon (the event stream's shapes).",
      severity: 'error',
      from: { path: '^dashboard/' },
      to: { path: '^(proxy|cli|daemon|shared|examples|bench|test)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'examples-use-the-package-surface',
      comment:
        'The game kit and the example game are what a game author writes: they use shared/ helpers at most, never the daemon.',
      severity: 'error',
      from: { path: '^examples/' },
      to: { path: '^(proxy|cli|daemon|bench|test)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs'],
    },
  },
};
