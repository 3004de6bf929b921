/**
 * `game-bridge-mcp status` and `stop`: talk to the running daemon over its authenticated HTTP
 * routes (GET /status, POST /stop). Small on purpose: only node builtins.
 */
import { clientCredentials, PROOF_HEADER, proofOk } from '../shared/auth.js';
import { pidAlive, processStart, readDaemonFile, sameProcess, type DaemonInfo } from '../shared/daemon-file.js';
import { bridgeHome, homePaths, type HomePaths } from '../shared/paths.js';
import { sleep } from '../shared/sleep.js';
import { printable } from './printable.js';

/** One authenticated request (the token never crosses the wire); the answer counts only when it proves the token too. */
async function call(info: DaemonInfo, method: 'GET' | 'POST', path: string): Promise<unknown> {
  const { authorization, nonce } = clientCredentials(info.token);
  const res = await fetch(`http://127.0.0.1:${info.port}${path}`, {
    method,
    headers: { authorization },
    signal: AbortSignal.timeout(3000),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  if (!proofOk(info.token, nonce, res.headers.get(PROOF_HEADER)))
    throw new Error(`whatever answers on port ${info.port} did not prove it knows daemon.json's token`);
  return res.json();
}

/** This home's paths and its running daemon; says so on stdout when none runs. */
function runningDaemon(): { paths: HomePaths; info?: DaemonInfo } {
  const paths = homePaths(bridgeHome());
  const info = readDaemonFile(paths.daemonJson);
  if (info && sameProcess(info.pid, info.pidStart)) return { paths, info };
  process.stdout.write(`no daemon is running for ${paths.home}\n`);
  return { paths };
}

/** Print the daemon's facts (tables, or JSON with `json`); exit code 1 when no daemon runs for this home. */
export async function runStatus(json = false): Promise<number> {
  const { paths, info } = runningDaemon();
  if (!info) return 1;
  try {
    const facts = await call(info, 'GET', '/status');
    if (!json) {
      const { statusText } = await import('./status.js');
      process.stdout.write(statusText(facts, paths.daemonLog));
      return 0;
    }
    process.stdout.write(JSON.stringify({ ...(facts as object), log: paths.daemonLog }, null, 2) + '\n');
    return 0;
  } catch (e) {
    process.stdout.write(
      JSON.stringify(
        {
          pid: info.pid,
          port: info.port,
          version: info.version,
          startedAt: info.startedAt,
          answering: false,
          error: String(e),
          log: paths.daemonLog,
        },
        null,
        2,
      ) + '\n',
    );
    return 1;
  }
}

/** Ask the daemon to stop (it reaps its games), SIGTERM as a fallback; wait until it is gone. */
export async function runStop(timeoutMs = 35000): Promise<number> {
  const { paths, info } = runningDaemon();
  if (!info) return 0;
  // What the daemon will reap, read before it goes: the person is told which games stopped.
  const games = await launchedGames(info);
  try {
    await call(info, 'POST', '/stop');
  } catch {
    // A signal only for the very process that wrote daemon.json: its pid and its start time.
    // Without a recorded start time the pid may by now be anyone's process.
    if (info.pidStart === undefined || processStart(info.pid) !== info.pidStart) {
      process.stderr.write(
        `daemon pid ${info.pid} did not answer /stop, and daemon.json cannot prove that pid is still the daemon; not signalling it. See ${paths.daemonLog}\n`,
      );
      return 1;
    }
    try {
      process.kill(info.pid, 'SIGTERM');
    } catch {
      /* gone already */
    }
  }
  const start = Date.now();
  while (pidAlive(info.pid)) {
    if (Date.now() - start > timeoutMs) {
      process.stderr.write(`daemon pid ${info.pid} did not exit within ${timeoutMs}ms; see ${paths.daemonLog}\n`);
      return 1;
    }
    await sleep(50);
  }
  // in the order it happened: the daemon stops its games, then itself
  if (games === undefined) process.stdout.write('(the daemon did not say which games it had launched)\n');
  else if (!games.length) process.stdout.write('no launched games to stop\n');
  else
    for (const g of games)
      process.stdout.write(
        `stopped game ${printable(g.name ?? '(unnamed)')} on port ${printable(g.port)} (pid ${printable(g.pid)})\n`,
      );
  process.stdout.write(`daemon pid ${info.pid} stopped\n`);
  return 0;
}

/** The games the daemon launched and will stop with it; undefined when it cannot say. */
async function launchedGames(
  info: DaemonInfo,
): Promise<Array<{ port: number; pid: number; name?: string }> | undefined> {
  try {
    const facts = (await call(info, 'GET', '/status')) as {
      instances?: Array<{ port: number; pid: number; name?: string }>;
    };
    return Array.isArray(facts.instances) ? facts.instances : undefined;
  } catch {
    return undefined;
  }
}
