/**
 * The layers of docs/ARCHITECTURE.md ("Who may import what"), checked by `npm run depcheck`
 * (part of `npm test`). Each rule forbids one kind of upward or sideways edge; type-only
 * imports count too, because a type import is still knowledge of the layer above.
 */
// The daemon's top floors: its life (life/), its doors (doors/), the state they share (state/), the library (index.ts).
const DAEMON_TOP = '^daemon/(life|doors|state)/|^daemon/index\\.ts$';

/** One forbidden edge: a module matching `from` may not import one matching `to` (dependency-cruiser's rule shape). */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

module.exports = {
  forbidden: [
    forbid(
      'no-cycles',
      'A cycle makes two modules one; split the shared part out, or pass it in.',
      {},
      { circular: true },
    ),
    forbid(
      'shared-is-the-floor',
      'shared/ is used by the proxy, the CLI and the daemon alike: it imports none of them.',
      { path: '^shared/' },
      { path: '^(proxy|cli|daemon|kits|examples|bench|test)/' },
    ),
    forbid(
      'proxy-knows-no-games',
      'What a client spawn runs (every file but the bin) relays bytes; it never loads the engine or the CLI.',
      { path: '^proxy/', pathNot: '^proxy/main\\.ts$' },
      { path: '^(cli|daemon|kits|examples|bench)/' },
    ),
    forbid(
      'bin-dispatches-only',
      'proxy/main.ts (the bin) lazily picks one entry: the CLI, the daemon, or the in-process engine.',
      { path: '^proxy/main\\.ts$' },
      { path: '^(cli|daemon|kits|examples|bench)/', pathNot: '^(cli/cli|daemon/life/main|daemon/doors/stdio)\\.ts$' },
    ),
    forbid(
      'proxy-stays-light',
      'The bare proxy must start fast: no SDK and no yargs on its path (test/proxy-start.test.ts proves it at run time).',
      { path: '^proxy/', pathNot: '^proxy/main\\.ts$' },
      { path: 'node_modules/(yargs|@modelcontextprotocol)/' },
    ),
    forbid(
      'cli-uses-the-lower-floors',
      'The subcommands read what the daemon reads (gamebridge.json, the registry) or start it; they never reach into sessions or tools.',
      { path: '^cli/' },
      {
        path:
          '^(proxy|kits|examples|bench)/|^daemon/(sessions|tools|tool-framework|bridge|composites|sync)/|' + DAEMON_TOP,
        pathNot: '^daemon/life/main\\.ts$',
      },
    ),
    forbid(
      'daemon-is-not-a-client',
      'The daemon never imports the proxy, the CLI, the kits, the examples or the benchmarks.',
      { path: '^daemon/' },
      { path: '^(proxy|cli|kits|examples|bench|test)/' },
    ),
    forbid(
      'game-is-the-daemon-floor',
      'game/ speaks the HTTP contract and nothing else.',
      { path: '^daemon/game/' },
      { path: '^daemon/', pathNot: '^daemon/game/' },
    ),
    forbid(
      'film-stands-alone',
      'film/ composes pictures with ffmpeg; it knows no game, tool or session.',
      { path: '^daemon/film/' },
      { path: '^daemon/', pathNot: '^daemon/film/' },
    ),
    forbid(
      'services-stand-side-by-side',
      'sync/ and discovery/ use game/ only, never each other or anything above.',
      { path: '^daemon/(sync|discovery)/' },
      { path: '^daemon/', pathNot: ['^daemon/game/', '^daemon/$1/'] },
    ),
    forbid(
      'launcher-starts-games',
      'launcher/ uses game/ (readiness, close) and web/ (a browser game: carrier, static server, Chromium), never sync/, discovery/ or anything above.',
      { path: '^daemon/launcher/' },
      { path: '^daemon/', pathNot: ['^daemon/game/', '^daemon/launcher/', '^daemon/web/'] },
    ),
    forbid(
      'composites-below-tools',
      'composites/ may run commands (sync/) and find a project (launcher/), but knows no tool or session.',
      { path: '^daemon/composites/' },
      { path: '^daemon/(discovery|tools|tool-framework|bridge|sessions)/|' + DAEMON_TOP },
    ),
    forbid(
      'state-below-tools',
      'DaemonState holds clients, caches, the launcher and owners; it knows nothing of MCP, tools or sessions.',
      { path: '^daemon/state/' },
      {
        path: '^daemon/(discovery|composites|sync|tools|tool-framework|bridge|sessions)/|' + DAEMON_TOP,
        pathNot: '^daemon/state/',
      },
    ),
    forbid(
      'tools-see-a-context',
      'Tools see the ToolContext interface (tool-framework/context.ts), which sessions implement: never sessions or the daemon-wide objects above them.',
      { path: '^daemon/(tools|tool-framework)/' },
      { path: '^daemon/sessions/|' + DAEMON_TOP },
    ),
    forbid(
      'bridge-below-tools',
      'The bridge toolset (daemon/bridge/) is what call_tool reaches: it is declared with the tool framework and sees the same ToolContext, never the MCP tools, sessions or the daemon-wide objects above them.',
      { path: '^daemon/bridge/' },
      { path: '^daemon/(tools|sessions|resources|prompts)/|' + DAEMON_TOP },
    ),
    forbid(
      'tool-framework-below-every-tool',
      'daemon/tool-framework/ is what every tool is made of (defineTool, ToolContext, answers): it knows no MCP tool, bridge tool or session.',
      { path: '^daemon/tool-framework/' },
      { path: '^daemon/(tools|bridge|sessions|resources|prompts)/|' + DAEMON_TOP },
    ),
    forbid(
      'sessions-below-transports',
      'A session is transport-agnostic: the server, the ws transport and the stdio engine connect to it, not the other way.',
      { path: '^daemon/sessions/' },
      { path: DAEMON_TOP, pathNot: '^daemon/state/' },
    ),
    forbid(
      'play-holds-inputs-only',
      'daemon/play/ (the inputs a session holds down, let go when it ends) sends through game/ and nothing else.',
      { path: '^daemon/play/' },
      { path: '^daemon/', pathNot: ['^daemon/game/', '^daemon/play/'] },
    ),
    forbid(
      'recording-is-a-model',
      "daemon/recording/ (a session's recorded steps, saved as a test file) is pure bookkeeping over shared/test-file.ts: no other daemon module.",
      { path: '^daemon/recording/' },
      { path: '^daemon/', pathNot: '^daemon/recording/' },
    ),
    forbid(
      'resources-see-a-context',
      'daemon/resources/ reads games through the ToolContext and the tools the session already has: never sessions, transports or the daemon-wide objects above them.',
      { path: '^daemon/resources/' },
      { path: '^daemon/(sessions|http|dashboard|feed)/|' + DAEMON_TOP },
    ),
    forbid(
      'prompts-are-text',
      'daemon/prompts/ are texts with arguments filled in: shared/ at most.',
      { path: '^daemon/prompts/' },
      { path: '^daemon/', pathNot: '^daemon/prompts/' },
    ),
    forbid(
      'http-is-a-transport',
      'daemon/http/ carries MCP over HTTP to sessions, as the ws transport does: the server mounts it, and it knows no tool, game or launcher.',
      { path: '^daemon/http/' },
      {
        path:
          '^daemon/(tools|tool-framework|bridge|game|launcher|composites|sync|discovery|dashboard|web)/|' + DAEMON_TOP,
      },
    ),
    forbid(
      'feed-is-a-model',
      'daemon/feed/ (the calls the dashboard shows) is an event stream the state writes and the dashboard reads: it imports no daemon module.',
      { path: '^daemon/feed/' },
      { path: '^daemon/', pathNot: '^daemon/feed/' },
    ),
    forbid(
      'ui-trees-are-a-model',
      'daemon/ui/ (the UI and world trees: reading, rendering, refs) is pure logic over what a game published: shared/ at most.',
      { path: '^daemon/ui/' },
      { path: '^daemon/', pathNot: '^daemon/ui/' },
    ),
    forbid(
      'web-is-self-contained',
      'daemon/web/ (page carrier, Chromium, static files) is a service of its own: shared/ at most from the rest of the tree.',
      { path: '^daemon/web/' },
      { path: '^daemon/', pathNot: '^daemon/web/' },
    ),
    forbid(
      'kit-core-is-platform-neutral',
      'The game kit core runs in Node and in a browser page: no node builtins (the carriers index.ts and registry.ts may).',
      { path: '^kits/js/(core|args|input|clock|builtins|types|web|webmcp)\\.ts$' },
      { dependencyTypes: ['core'] },
    ),
    forbid(
      'dashboard-works-through-its-host',
      'daemon/dashboard/ is loaded from disk on first use, outside the bundle: a run-time import of daemon or shared code would load a second copy of it (two error classes, two caches). It sees the daemon through DashboardHost, with type-only imports.',
      { path: '^daemon/dashboard/' },
      { path: '^(daemon|shared)/', pathNot: '^daemon/dashboard/', dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'page-is-browser-code',
      "dashboard/ (the page) runs in the browser: it takes only types from the daemon (the event stream's shapes).",
      { path: '^dashboard/' },
      { path: '^(proxy|cli|daemon|shared|kits|examples|bench|test)/', dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'examples-use-the-package-surface',
      'The game kits and the example games are what a game author writes: they use shared/ helpers at most, never the daemon.',
      { path: '^(kits|examples)/' },
      { path: '^(proxy|cli|daemon|bench|test)/' },
    ),
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
