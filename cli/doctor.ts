/**
 * `game-bridge-mcp doctor`: check what usually goes wrong, print each finding with its fix,
 * exit 1 when anything is a problem. Read-only: it never deletes, starts or stops anything.
 * Here the machine's side (the home, the daemon); doctor-project.ts checks the project's.
 */
import { clientCredentials, PROOF_HEADER, proofOk } from '../shared/auth.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { bridgeHome, homePaths, type Env } from '../shared/paths.js';
import { pidAlive } from '../shared/daemon-file.js';
import { selfCommand } from '../shared/self-command.js';
import { printFindings, type Finding } from './findings.js';
import { checkDeclaration, checkRegistry, checkScanRange } from './doctor-project.js';

export interface DoctorOptions {
  /** where to resolve gamebridge.json from (default cwd) */
  dir: string;
  /** an explicit gamebridge.json (--config / GAME_BRIDGE_CONFIG) */
  config?: string;
  /** the scan range to check (--scan-range, else the environment, else the default) */
  scanRange?: string;
  env?: Env;
  out?: (line: string) => void;
}

/** The home directory: present, a directory, mode 700 (it holds the token). */
function checkHome(home: string, f: Finding[]): void {
  if (!existsSync(home)) {
    f.push({
      level: 'note',
      what: `home ${home} does not exist yet (it is created, mode 0700, when the first daemon starts)`,
    });
    return;
  }
  const st = statSync(home);
  if (!st.isDirectory()) {
    f.push({
      level: 'problem',
      what: `home ${home} is not a directory`,
      fix: `move it away, or point GAME_BRIDGE_HOME at a directory`,
    });
    return;
  }
  const mode = st.mode & 0o777;
  if (mode !== 0o700) {
    f.push({
      level: 'problem',
      what: `home ${home} has mode ${mode.toString(8)}, not 700 (it holds the daemon's token)`,
      fix: `chmod 700 ${home}`,
    });
  } else {
    f.push({ level: 'ok', what: `home ${home} (mode 700)` });
  }
}

/** daemon.json: readable, private, naming a live pid that answers /status and proves the token. */
async function checkDaemon(home: string, f: Finding[]): Promise<void> {
  const paths = homePaths(home);
  if (!existsSync(paths.daemonJson)) {
    f.push({ level: 'note', what: 'no daemon is running (the proxy starts one when an MCP client connects)' });
    return;
  }
  let info: { pid?: unknown; port?: unknown; token?: unknown; version?: unknown };
  try {
    info = JSON.parse(readFileSync(paths.daemonJson, 'utf8'));
  } catch (e) {
    f.push({
      level: 'problem',
      what: `${paths.daemonJson} is unreadable (${(e as Error).message})`,
      fix: `make sure no daemon runs (ps -p <pid>), then rm ${paths.daemonJson}; the next client starts a fresh daemon`,
    });
    return;
  }
  const mode = statSync(paths.daemonJson).mode & 0o777;
  if (mode & 0o077) {
    f.push({
      level: 'problem',
      what: `${paths.daemonJson} has mode ${mode.toString(8)}: other users can read the token`,
      fix: `chmod 600 ${paths.daemonJson}`,
    });
  }
  const pid = Number(info.pid);
  if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid)) {
    f.push({
      level: 'problem',
      what: `daemon.json names pid ${String(info.pid)}, which is not running (the daemon died without cleaning up)`,
      fix: `nothing is required (the next client replaces it); to tidy up now: rm ${paths.daemonJson}`,
    });
    return;
  }
  try {
    const { authorization, nonce } = clientCredentials(String(info.token));
    const res = await fetch(`http://127.0.0.1:${Number(info.port)}/status`, {
      headers: { authorization },
      signal: AbortSignal.timeout(3000),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    if (!proofOk(String(info.token), nonce, res.headers.get(PROOF_HEADER)))
      throw new Error('the answer did not prove it knows the token: another program may hold the port');
    const s = (await res.json()) as { sessions?: unknown[]; instances?: unknown[] };
    f.push({
      level: 'ok',
      what: `daemon pid ${pid} v${String(info.version)} answers on 127.0.0.1:${Number(info.port)} (${s.sessions?.length ?? 0} session(s), ${s.instances?.length ?? 0} launched game(s))`,
    });
  } catch (e) {
    f.push({
      level: 'problem',
      what: `daemon pid ${pid} is alive but does not answer on 127.0.0.1:${Number(info.port)} (${(e as Error).message})`,
      fix: `read ${paths.daemonLog}, then ${selfCommand()} stop (or kill ${pid}); the next client starts a fresh daemon`,
    });
  }
}

/** Run every check, print the findings, return the exit code (1 when anything is a problem). */
export async function runDoctor(opts: DoctorOptions): Promise<number> {
  const env = opts.env ?? process.env;
  const out = opts.out ?? ((l: string) => process.stdout.write(l + '\n'));
  const home = bridgeHome(env);
  const findings: Finding[] = [];
  checkHome(home, findings);
  await checkDaemon(home, findings);
  await checkDeclaration(opts.dir, opts.config ?? (env.GAME_BRIDGE_CONFIG || undefined), findings);
  checkScanRange(opts.scanRange, env, findings);
  await checkRegistry(env, findings);
  return printFindings(findings, out) ? 1 : 0;
}
