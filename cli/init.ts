/**
 * `game-bridge-mcp init`: write a starter gamebridge.json (docs/CONTRACT.md). On a terminal it
 * asks for the name and the launch command (Enter keeps the default); with stdin not a
 * terminal (CI, scripts, an agent) it asks nothing and writes the template. A gamebridge.json
 * that is a link (even one to nothing) is refused, and the file is written as register writes.
 * With `web` it declares a browser page served from that folder instead of a command, with or
 * without the web kit (docs/BROWSER.md).
 */
import { existsSync, lstatSync, mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parsePortList } from '../shared/config.js';
import { DECLARATION_FILE, DEFAULT_PORT_RANGE, SCHEMA_FILE } from '../daemon/launcher/index.js';
import { VERSION } from '../shared/version.js';
import { isBridgeError } from '../shared/errors.js';
import { writeProjectFile } from '../shared/project-files.js';
import { selfCommand } from '../shared/self-command.js';
import { runRegister, type ClientKind } from './client-config.js';

/** The template's command: a shell that runs it says "your-game-command: not found", which is the hint. */
export const PLACEHOLDER_COMMAND = 'your-game-command --debug-port {port}';
export const STARTER_READY_TIMEOUT_MS = 60000;

export type InitTemplate = 'single' | 'multiplayer';

export interface InitOptions {
  dir: string;
  /** multiplayer: with a server and a client launch profile */
  template?: InitTemplate;
  force?: boolean;
  name?: string;
  command?: string;
  portRange?: string;
  /** ask on a terminal (default: when stdin is a TTY) */
  interactive?: boolean;
  out?: (line: string) => void;
  /** MCP clients to register the bridge with once the file is written (cli/client-config.ts) */
  clients?: ClientKind[];
  /** a browser game: the folder of its page, relative to `dir`, served by the bridge */
  web?: string;
  /** with `web`: false for a page without the web kit (default true) */
  kit?: boolean;
}

/**
 * What the file's `"$schema"` names, so an editor completes and checks it: the schema of the
 * package installed in the project when there is one (it matches the version that reads the
 * file), else this version's copy as published.
 */
export function schemaReference(dir: string): string {
  const local = `node_modules/game-bridge-mcp/dist/${SCHEMA_FILE}`;
  return existsSync(join(dir, local))
    ? `./${local}`
    : `https://unpkg.com/game-bridge-mcp@${VERSION}/dist/${SCHEMA_FILE}`;
}

export function starterDeclaration(
  name: string,
  command = PLACEHOLDER_COMMAND,
  portRange = DEFAULT_PORT_RANGE,
  template: InitTemplate = 'single',
  schema?: string,
): Record<string, unknown> {
  const launch: Record<string, unknown> = {
    command,
    cwd: '.',
    portRange,
    readyTimeoutMs: STARTER_READY_TIMEOUT_MS,
    env: {},
  };
  if (template === 'multiplayer') launch.profiles = multiplayerProfiles(portRange);
  return { ...(schema ? { $schema: schema } : {}), name, launch };
}

/** A browser page served from `folder` (relative to the file), with or without the web kit. */
export function webDeclaration(
  name: string,
  folder: string,
  kit = true,
  portRange = DEFAULT_PORT_RANGE,
  schema?: string,
): Record<string, unknown> {
  const web = { static: folder, ...(kit ? {} : { kit: false }) };
  return {
    ...(schema ? { $schema: schema } : {}),
    name,
    launch: { portRange, readyTimeoutMs: STARTER_READY_TIMEOUT_MS, web },
  };
}

/**
 * A server and its clients (docs/LAUNCHING.md): `launch --profile server` first takes the first
 * port of the range, so clients connect there; `{index}` numbers the clients.
 */
function multiplayerProfiles(portRange: string): Record<string, unknown> {
  const serverPort = parsePortList(portRange)[0];
  return {
    server: { args: '--server', env: { GAME_ROLE: 'server' } },
    client: {
      args: `--connect 127.0.0.1:${serverPort} --player {index}`,
      env: { GAME_ROLE: 'client', PLAYER_INDEX: '{index}' },
      readyTimeoutMs: 30000,
    },
  };
}

const lstatOf = (p: string) => {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
};

export async function runInit(opts: InitOptions): Promise<number> {
  const out = opts.out ?? ((l: string) => process.stdout.write(l + '\n'));
  const dir = resolve(opts.dir);
  const file = join(dir, DECLARATION_FILE);
  const st = lstatOf(file);
  if (st?.isSymbolicLink()) {
    process.stderr.write(
      `game-bridge-mcp: ${file} is a symbolic link; nothing was written. Replace it with a plain file (or remove it), then run this again.\n`,
    );
    return 1;
  }
  if (st && !opts.force) {
    process.stderr.write(`game-bridge-mcp: ${file} already exists; use --force to overwrite it\n`);
    return 1;
  }
  const portRange = opts.portRange ?? DEFAULT_PORT_RANGE;
  parsePortList(portRange); // a bad range is a usage error before anything is written
  let name = opts.name ?? basename(dir);
  let command = opts.command ?? PLACEHOLDER_COMMAND;
  if (opts.interactive ?? process.stdin.isTTY === true) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      name = (await rl.question(`Game name [${name}]: `)).trim() || name;
      if (opts.web === undefined)
        command =
          (await rl.question(`Command that starts the game, {port} = its debug port [${command}]: `)).trim() || command;
    } finally {
      rl.close();
    }
  }
  mkdirSync(dir, { recursive: true });
  try {
    const declaration =
      opts.web === undefined
        ? starterDeclaration(name, command, portRange, opts.template, schemaReference(dir))
        : webDeclaration(name, opts.web, opts.kit !== false, portRange, schemaReference(dir));
    writeProjectFile(file, JSON.stringify(declaration, null, 2) + '\n');
  } catch (e) {
    if (!isBridgeError(e)) throw e;
    process.stderr.write(`game-bridge-mcp: ${e.message}\n`);
    return 1;
  }
  out(`wrote ${file}`);
  if (opts.web !== undefined) webNext(dir, opts.web, opts.kit !== false, out);
  else if (command === PLACEHOLDER_COMMAND)
    out('next: replace launch.command with the command that starts your game; {port} is where its debug port goes');
  if (opts.template === 'multiplayer') {
    out(
      'profiles: "server" and "client" append their args to launch.command; start them with launch_instance {profile: "server"} then {profile: "client", count: N}',
    );
  }
  out(`check it with: ${selfCommand()} doctor` + (resolve(opts.dir) === process.cwd() ? '' : ` --dir ${dir}`));
  if (opts.clients?.length) return runRegister({ dir, clients: opts.clients, out });
  return 0;
}

/** What to do next with a browser page: where its page must be, and how the bridge plays it. */
function webNext(dir: string, folder: string, kit: boolean, out: (line: string) => void): void {
  if (!existsSync(join(resolve(dir, folder), 'index.html')))
    out(
      `note: ${join(resolve(dir, folder), 'index.html')} does not exist yet; the bridge serves the page from ${folder}/ (launch.web.url names another page)`,
    );
  out(
    kit
      ? 'next: the page imports the web kit (game-bridge-mcp/web) and calls createGameSurface; see docs/BROWSER.md'
      : 'next: launch_instance opens the page as it is, on the bridge\'s clock and seed; see docs/BROWSER.md, "Any web game, unmodified"',
  );
}
