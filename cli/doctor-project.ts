/**
 * `doctor`'s checks of what a project and discovery see: the gamebridge.json a directory resolves
 * to (and its composites module), the scan range, and the registry's entries.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_SCAN_RANGE, parsePortList } from '../shared/config.js';
import { isBridgeError } from '../shared/errors.js';
import { registryDir, type Env } from '../shared/paths.js';
import { pidAlive } from '../shared/daemon-file.js';
import { selfCommand } from '../shared/self-command.js';
import { findDeclaration, type LaunchDeclaration } from '../daemon/launcher/index.js';
import { readRegistry } from '../daemon/discovery/registry.js';
import { answersHealth } from '../daemon/game/probe.js';
import { PLACEHOLDER_COMMAND } from './init.js';
import type { Finding } from './findings.js';
import { checkCommandFiles } from './doctor-command.js';

/** The gamebridge.json `dir` resolves to (or `config`): found, parseable, usable; its composites module loads. */
export async function checkDeclaration(dir: string, config: string | undefined, f: Finding[]): Promise<void> {
  let decl;
  try {
    decl = findDeclaration({ cwd: dir, configPath: config });
  } catch (e) {
    const text = isBridgeError(e) ? e.message : String(e);
    if (isBridgeError(e) && e.data.kind === 'BridgeUsageError' && e.data.looked) {
      f.push({
        level: 'note',
        what: `no gamebridge.json above ${dir}, so launch_instance has nothing to launch there (list_instances still finds running games)`,
        fix: `${selfCommand()} init --dir ${dir}`,
      });
    } else {
      f.push({ level: 'problem', what: text });
    }
    return;
  }
  if (decl.web) {
    const { web } = decl;
    const page = web.static ? join(web.static, web.url ?? 'index.html') : web.url;
    f.push({
      level: 'ok',
      what: `${dir} resolves to ${decl.file}: opens ${page} in Chromium, ${web.kit ? 'with' : 'without'} the kit${web.command ? `, served by "${web.command}" in ${decl.cwd}` : ''}, ports ${ports(decl.portRange)}, ready within ${decl.readyTimeoutMs}ms`,
    });
    if (web.command) checkCommandFiles(decl.file, web.command, decl.cwd, f, process.env, 'launch.web.command');
  } else {
    f.push({
      level: 'ok',
      what: `${dir} resolves to ${decl.file}: "${decl.command}" in ${decl.cwd}, ports ${ports(decl.portRange)}, ready within ${decl.readyTimeoutMs}ms`,
    });
    checkCommand(decl, f);
  }
  if (decl.composites) await checkComposites(decl.file, decl.composites, f);
}

const ports = (range: number[]) => `${range[0]}-${range[range.length - 1]}`;

/** A game's own launch command: not the template's placeholder, with {port} somewhere, naming files that exist. */
function checkCommand(decl: LaunchDeclaration, f: Finding[]): void {
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
  } else {
    checkCommandFiles(decl.file, decl.command, decl.cwd, f);
  }
}

/** The composites module a declaration names: present, loadable, exporting composites. */
async function checkComposites(file: string, composites: string, f: Finding[]): Promise<void> {
  if (!existsSync(composites)) {
    f.push({
      level: 'problem',
      what: `${file}: "composites" names ${composites}, which does not exist`,
      fix: 'create the module or remove the "composites" field',
    });
  } else {
    try {
      const mod = await import(`${pathToFileURL(composites).href}?doctor=${Date.now()}`);
      const raw = mod.default ?? mod.composites ?? Object.values(mod);
      const list = (Array.isArray(raw) ? raw : Object.values(raw as object)).filter(
        (c) => c && typeof c.name === 'string' && typeof c.run === 'function',
      );
      f.push({
        level: list.length ? 'ok' : 'problem',
        what: `composites module ${composites}: ${list.length} composite(s)${list.length ? ` (${list.map((c) => c.name).join(', ')})` : ''}`,
        ...(list.length ? {} : { fix: 'export default an array of {name, description, args, run(ctx)}' }),
      });
    } catch (e) {
      f.push({
        level: 'problem',
        what: `composites module ${composites} fails to load: ${(e as Error).message}`,
        fix: `node ${composites} shows the error; fix the module`,
      });
    }
  }
}

/** The scan range list_instances probes: parses, and is not so wide that every call crawls. */
export function checkScanRange(scanRange: string | undefined, env: Env, f: Finding[]): void {
  const fromEnv = env.GAME_BRIDGE_SCAN_RANGE || env.GAME_BRIDGE_SCAN;
  const text = scanRange ?? fromEnv ?? DEFAULT_SCAN_RANGE;
  const source = scanRange
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

/** Registry entries: which answer /health, which are stale (and why), which files are unreadable. */
export async function checkRegistry(env: Env, f: Finding[]): Promise<void> {
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
      fix: pidAlive(e.pid)
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
