/** The subcommands for setting a project up: check it (doctor), start it (init), see it work (demo). */
import { clientsFlag, subcommand, switchFlag, textFlag } from './subcommand.js';

export const projectCommands = [
  subcommand({
    command: 'doctor',
    describe:
      'Check the home directory, the daemon, gamebridge.json, the scan range and the registry; print each problem with its fix',
    options: {
      dir: textFlag('Resolve gamebridge.json from this directory (default: the current one)'),
      config: textFlag('Check this gamebridge.json instead of the one --dir resolves to'),
      'scan-range': textFlag('Check this scan range instead of GAME_BRIDGE_SCAN_RANGE / the default'),
    },
    run: async (a) => {
      const { runDoctor } = await import('../doctor.js');
      const { resolve } = await import('node:path');
      return runDoctor({ dir: resolve(String(a.dir ?? process.cwd())), config: a.config, scanRange: a['scan-range'] });
    },
    examples: [
      ['$0 doctor', 'check everything from the current directory'],
      ['$0 doctor --dir ~/games/orbital', 'which gamebridge.json that project resolves to, and whether it parses'],
    ],
    epilogue: 'Exit code 0: no problems; 1: at least one problem (each printed with "fix:").',
  }),
  subcommand({
    command: 'init',
    describe:
      'Write a starter gamebridge.json (asks for the name and command on a terminal; asks nothing otherwise) and register game-bridge in .mcp.json',
    options: {
      dir: textFlag('Write it in this directory (default: the current one)'),
      force: switchFlag('Overwrite an existing gamebridge.json'),
      name: textFlag('Game name (default: the directory name)'),
      command: textFlag('Shell command that starts the game, with {port} where its debug port goes'),
      'port-range': textFlag('Ports launches may use (default 7820-7839)'),
      template: {
        choices: ['single', 'multiplayer'],
        default: 'single',
        describe: 'multiplayer: add a server profile and a client profile',
      },
      web: textFlag('A browser game instead: the folder of its page (index.html), served by the bridge'),
      kit: switchFlag('With --web: --no-kit for a page without the web kit (opened as it is)', true),
      client: clientsFlag('Also register game-bridge with these MCP clients (see register); --no-register: none'),
      register: switchFlag('Register with the --client files', true),
    },
    run: async (a) => {
      const { runInit } = await import('../init.js');
      return runInit({
        dir: String(a.dir ?? process.cwd()),
        force: a.force === true,
        name: a.name,
        command: a.command,
        portRange: a['port-range'],
        template: a.template === 'multiplayer' ? 'multiplayer' : 'single',
        clients: a.register === false ? [] : a.client,
        web: a.web,
        kit: a.kit !== false,
      });
    },
    examples: [
      ['$0 init', 'write ./gamebridge.json with a placeholder command, and add game-bridge to ./.mcp.json'],
      ['$0 init --no-register', 'write only gamebridge.json'],
      ['$0 init --template multiplayer', 'with "server" and "client" launch profiles'],
      ['$0 init --name "Orbital Freight" --command "./gradlew run -PdebugPort={port}"', 'write it ready to use'],
      ['$0 init --dir ../mygame --force', 'overwrite the one in ../mygame'],
      ['$0 init --web dist --no-kit', 'a web game as it ships, its page in ./dist (no kit in it)'],
    ],
  }),
  subcommand({
    command: 'demo',
    describe:
      'Launch the bundled example game and drive it end to end through a real MCP client (what npm run demo runs)',
    options: {
      'port-range': textFlag('Ports the demo game may use (default 7820-7839)'),
      daemon: switchFlag('--no-daemon: the engine runs inside the proxy process', true),
      web: switchFlag('Play the Phaser example in headless Chromium instead, and save a screenshot'),
      screenshot: textFlag('With --web: where the screenshot goes (default: a new private folder in the temp folder)'),
    },
    run: async (a) => {
      const portRange = a['port-range'];
      if (a.web === true) {
        const { runWebDemo } = await import('../demo-web.js');
        return runWebDemo({ portRange, noDaemon: a.daemon === false, screenshot: a.screenshot });
      }
      const { runDemo } = await import('../demo.js');
      return runDemo({ portRange, noDaemon: a.daemon === false });
    },
    examples: [
      ['$0 demo', 'through the proxy and the daemon (started if needed)'],
      ['$0 demo --no-daemon', 'with the engine inside the proxy process instead'],
      ['$0 demo --web', 'a browser game (Phaser) in headless Chromium, with a screenshot'],
    ],
  }),
];
