/**
 * `game-bridge-mcp launch [--profile P] [--count N] [--restart PORT]`: launch_instance for people.
 * It is an MCP client of the daemon like any agent (the SDK client spawns this package's proxy
 * from the current directory, so gamebridge.json is found the same way), shows the launch's
 * progress while the game builds and starts (a spinner on a terminal, plain lines otherwise),
 * and prints what came up. The game stays running, detached: the next session that uses it
 * adopts it (docs/LAUNCHING.md).
 */
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { readLaunchedFile } from '../daemon/launcher/persist.js';
import type { LaunchedInstance } from '../daemon/launcher/types.js';
import { sameProcess } from '../shared/daemon-file.js';
import { locateDeclaration } from '../shared/declaration-path.js';
import { stringEnv } from '../shared/env.js';
import { bridgeHome, homePaths } from '../shared/paths.js';
import { selfCommand } from '../shared/self-command.js';
import { VERSION } from '../shared/version.js';
import { launchInstanceAnswer } from '../shared/answers/instances.js';
import { printable } from './printable.js';
import { table } from './table.js';

export interface LaunchCliOptions {
  profile?: string;
  count?: number;
  restart?: number;
  config?: string;
}

const PROXY = join(dirname(fileURLToPath(import.meta.url)), '..', 'proxy', 'main.js');
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Progress on stderr: one rewritten spinner line on a terminal, one plain line per report otherwise. */
function progressDisplay(tty: boolean) {
  let message = 'Starting the launch…';
  let frame = 0;
  const t0 = Date.now();
  const draw = () =>
    process.stderr.write(
      `\r\x1b[2K${SPINNER[frame++ % SPINNER.length]} ${message.slice(0, (process.stderr.columns || 100) - 3)}`,
    );
  const timer = tty ? setInterval(draw, 80) : undefined;
  if (!tty) process.stderr.write(`launching from ${process.cwd()}…\n`);
  return {
    update(text: string) {
      message = text;
      if (!tty) process.stderr.write(`… ${text}\n`);
    },
    done(result: string) {
      if (timer) clearInterval(timer);
      process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${result} (${((Date.now() - t0) / 1000).toFixed(1)}s)\n`);
    },
  };
}

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** The games this home's daemon launched from the declaration `launch` would use, with the same profile, still running. */
function alreadyRunning(opts: LaunchCliOptions): LaunchedInstance[] {
  const file = locateDeclaration(process.cwd(), opts.config ?? process.env.GAME_BRIDGE_CONFIG).file;
  if (!file) return [];
  const paths = homePaths(bridgeHome());
  return readLaunchedFile(paths.launchedJson, paths.logsDir).instances.filter(
    (i) =>
      !i.starting && real(i.declaration) === real(file) && i.profile === opts.profile && sameProcess(i.pid, i.pidStart),
  );
}

export async function runLaunch(opts: LaunchCliOptions): Promise<number> {
  // A plain `launch` makes sure the game runs: a second one says where it already does rather
  // than quietly starting another copy. --count and --restart say what they want.
  if (opts.count === undefined && opts.restart === undefined) {
    const running = alreadyRunning(opts);
    if (running.length) {
      const self = selfCommand();
      const profile = opts.profile !== undefined ? ` --profile ${opts.profile}` : '';
      for (const i of running)
        process.stdout.write(
          `${printable(i.name)} is already running on port ${i.port} (pid ${i.pid}${i.profile !== undefined ? `, profile ${printable(i.profile)} #${i.index ?? 0}` : ''}), launched from ${printable(i.declaration)}.\n`,
        );
      const port = running[0].port;
      process.stdout.write(
        `Its output: ${self} logs ${port}; restart it: ${self} launch --restart ${port}; start another copy: ${self} launch${profile} --count 1\n`,
      );
      return 0;
    }
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PROXY, ...(opts.config ? ['--config', opts.config] : [])],
    cwd: process.cwd(),
    env: stringEnv(),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'game-bridge-mcp launch', version: VERSION });
  const show = progressDisplay(process.stderr.isTTY === true);
  const args: Record<string, unknown> = {};
  if (opts.restart !== undefined) args.restart = opts.restart;
  if (opts.profile !== undefined) args.profile = opts.profile;
  if (opts.count !== undefined) args.count = opts.count;
  try {
    await client.connect(transport);
    const res = (await client.callTool(
      { name: 'launch_instance', arguments: args },
      {
        timeout: 24 * 3600 * 1000, // the declaration's readyTimeoutMs is the deadline that matters
        resetTimeoutOnProgress: true,
        onprogress: (p) => p.message && show.update(printable(p.message)),
      },
    )) as { content: Array<{ type: string; text?: string }>; structuredContent?: unknown; isError?: boolean };
    const text = res.content.find((c) => c.type === 'text')?.text ?? '';
    if (res.isError) {
      show.done('✖ launch failed');
      // the daemon's answer quotes the game's last output: each line inert
      process.stderr.write(text.split('\n').map(printable).join('\n') + '\n');
      return 1;
    }
    const json = launchInstanceAnswer.parse(res.structuredContent ?? JSON.parse(text));
    const all = json.instances ?? [json];
    show.done(
      `✔ ${all.length === 1 ? `${printable(all[0].name)} is up on port ${printable(all[0].port)}` : `${all.length} instances are up`}`,
    );
    process.stdout.write(
      table(
        ['PORT', 'PID', 'GAME', 'VERSION', 'PROFILE', 'READY IN', 'LOG'],
        all.map((i) => [
          String(i.port),
          String(i.pid),
          String(i.name),
          String(i.version || '-'),
          i.profile !== undefined ? `${i.profile} #${i.index ?? 0}` : '-',
          `${i.readyInMs}ms`,
          String(i.logFile),
        ]),
        '',
      ),
    );
    if (json.previous)
      process.stdout.write(`  replaced pid ${printable(json.previous.pid)} (${printable(json.previous.how)})\n`);
    process.stdout.write(
      'It keeps running, detached: the next MCP session that uses it adopts it (unused, it is stopped after the detached TTL, 15 minutes by default).\n',
    );
    process.stdout.write(
      `Follow its output: ${selfCommand()} logs ${all[0].port} -f; see everything: ${selfCommand()} status\n`,
    );
    return 0;
  } catch (e) {
    show.done('✖ launch failed');
    process.stderr.write(`${(e as Error).message}\n`);
    return 1;
  } finally {
    await client.close().catch(() => undefined);
  }
}
