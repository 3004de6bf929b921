/* eslint-disable max-lines -- over 250 lines once formatted; to be split (docs/DECISIONS.md, "Formatting") */
/**
 * `game-bridge-mcp doctor`: check what usually goes wrong, print each finding with its fix,
 * exit 1 when anything is a problem. Read-only: it never deletes, starts or stops anything.
 */
import { clientCredentials, PROOF_HEADER, proofOk } from '../shared/auth.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { DEFAULT_SCAN_RANGE, parsePortList } from '../shared/config.js';
import { isBridgeError } from '../shared/errors.js';
import { bridgeHome, homePaths, registryDir, type Env } from '../shared/paths.js';
import { findDeclaration } from '../daemon/launcher/index.js';
import { readRegistry } from '../daemon/discovery/registry.js';
import { answersHealth } from '../daemon/game/probe.js';
import { PLACEHOLDER_COMMAND } from './init.js';
import { pidAlive as alive } from '../shared/daemon-file.js';
import { selfCommand } from '../shared/self-command.js';

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

type Level = 'ok' | 'note' | 'problem';

interface Finding {
  level: Level;
  what: string;
  fix?: string;
}

const MARK: Record<Level, string> = { ok: '✔', note: '·', problem: '✖' };

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
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) {
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

async function checkDeclaration(opts: DoctorOptions, f: Finding[]): Promise<void> {
  let decl;
  try {
    decl = findDeclaration({ cwd: opts.dir, configPath: opts.config });
  } catch (e) {
    const text = isBridgeError(e) ? e.message : String(e);
    if (isBridgeError(e) && e.data.kind === 'BridgeUsageError' && e.data.looked) {
      f.push({
        level: 'note',
        what: `no gamebridge.json above ${opts.dir}, so launch_instance has nothing to launch there (list_instances still finds running games)`,
        fix: `${selfCommand()} init --dir ${opts.dir}`,
      });
    } else {
      f.push({ level: 'problem', what: text });
    }
    return;
  }
  f.push({
    level: 'ok',
    what: `${opts.dir} resolves to ${decl.file}: "${decl.command}" in ${decl.cwd}, ports ${decl.portRange[0]}-${decl.portRange[decl.portRange.length - 1]}, ready within ${decl.readyTimeoutMs}ms`,
  });
  if (decl.command === PLACEHOLDER_COMMAND) {
    f.push({
      level: 'problem',
      what: `${decl.file}: launch.command is still the template's placeholder`,
      fix: 'replace it with the command that starts your game, {port} where its debug port goes',
    });
  } else if (!decl.command.includes('{port}') && !Object.values(decl.env).some((v) => v.includes('{port}'))) {
    f.push({
      level: 'problem',
      what: `${decl.file}: launch.command has no {port}, so every launch would use the same debug port`,
      fix: 'put {port} where the game takes its debug port, e.g. "./run --debug-port {port}"',
    });
  }
  if (decl.composites) {
    if (!existsSync(decl.composites)) {
      f.push({
        level: 'problem',
        what: `${decl.file}: "composites" names ${decl.composites}, which does not exist`,
        fix: 'create the module or remove the "composites" field',
      });
    } else {
      try {
        const mod = await import(`${pathToFileURL(decl.composites).href}?doctor=${Date.now()}`);
        const raw = mod.default ?? mod.composites ?? Object.values(mod);
        const list = (Array.isArray(raw) ? raw : Object.values(raw as object)).filter(
          (c) => c && typeof c.name === 'string' && typeof c.run === 'function',
        );
        f.push({
          level: list.length ? 'ok' : 'problem',
          what: `composites module ${decl.composites}: ${list.length} composite(s)${list.length ? ` (${list.map((c) => c.name).join(', ')})` : ''}`,
          ...(list.length ? {} : { fix: 'export default an array of {name, description, args, run(ctx)}' }),
        });
      } catch (e) {
        f.push({
          level: 'problem',
          what: `composites module ${decl.composites} fails to load: ${(e as Error).message}`,
          fix: `node ${decl.composites} shows the error; fix the module`,
        });
      }
    }
  }
}

function checkScanRange(opts: DoctorOptions, env: Env, f: Finding[]): void {
  const fromEnv = env.GAME_BRIDGE_SCAN_RANGE || env.GAME_BRIDGE_SCAN;
  const text = opts.scanRange ?? fromEnv ?? DEFAULT_SCAN_RANGE;
  const source = opts.scanRange
    ? '--scan-range'
    : fromEnv
      ? env.GAME_BRIDGE_SCAN_RANGE
        ? 'GAME_BRIDGE_SCAN_RANGE'
        : 'GAME_BRIDGE_SCAN'
      : 'default';
  try {
    const ports = parsePortList(text);
    if (!ports.length) {
      f.push({
        level: 'problem',
        what: `scan range '${text}' (${source}) has no ports`,
        fix: 'give ports and ranges like 7777,7800-7810',
      });
    } else if (ports.length > 2000) {
      f.push({
        level: 'problem',
        what: `scan range '${text}' (${source}) probes ${ports.length} ports on every list_instances`,
        fix: 'narrow it to the ports your games use, e.g. 7777,7800-7839',
      });
    } else {
      f.push({ level: 'ok', what: `scan range ${text} (${source}): ${ports.length} port(s)` });
    }
  } catch (e) {
    f.push({
      level: 'problem',
      what: `scan range '${text}' (${source}): ${isBridgeError(e) ? e.message : String(e)}`,
      fix: 'give ports and ranges like 7777,7800-7810',
    });
  }
}

async function checkRegistry(env: Env, f: Finding[]): Promise<void> {
  const dir = registryDir(env);
  const reg = await readRegistry(dir);
  const verdicts = await Promise.all(reg.entries.map(async (e) => ({ e, live: await answersHealth(e.port) })));
  const live = verdicts.filter((v) => v.live);
  const stale = verdicts.filter((v) => !v.live);
  f.push({
    level: 'ok',
    what: `registry ${dir}: ${reg.entries.length} entr${reg.entries.length === 1 ? 'y' : 'ies'}, ${live.length} live${live.length ? ` (${live.map((v) => `${v.e.name ?? '?'} on ${v.e.port}`).join(', ')})` : ''}`,
  });
  for (const { e } of stale) {
    f.push({
      level: 'problem',
      what: `stale registry entry ${e.file}: ${e.name ?? 'a game'} (pid ${e.pid}) on port ${e.port} does not answer /health`,
      fix: alive(e.pid)
        ? `pid ${e.pid} still runs: if it is not a game any more, rm ${e.file}`
        : `rm ${e.file} (or call list_instances {prune: true})`,
    });
  }
  for (const file of reg.skippedFiles) {
    f.push({
      level: 'problem',
      what: `unreadable registry file ${file} (not <pid>.json with a port)`,
      fix: `rm ${file}`,
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
  await checkDeclaration({ ...opts, config: opts.config ?? (env.GAME_BRIDGE_CONFIG || undefined) }, findings);
  checkScanRange(opts, env, findings);
  await checkRegistry(env, findings);
  for (const x of findings) {
    out(`${MARK[x.level]} ${x.what}`);
    if (x.fix) out(`    fix: ${x.fix}`);
  }
  const problems = findings.filter((x) => x.level === 'problem').length;
  out(problems ? `${problems} problem(s) found.` : 'No problems found.');
  return problems ? 1 : 0;
}
