/**
 * Third-party clients (Claude Code, the MCP Inspector) installed from the npm cache only: a test
 * that needs one skips with the reason when the cache lacks it, and never reaches the network.
 * Warm the cache once with `npm i <package>@<version>` anywhere.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();

export interface RunResult {
  code: number;
  /** stdout then stderr */
  out: string;
  stdout: string;
}

/** Run a command with npm's own variables and the bridge's stripped; resolves with its exit code and output (never rejects). */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<RunResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (typeof v === 'string' && !k.startsWith('GAME_BRIDGE_') && !k.startsWith('npm_')) env[k] = v;
  Object.assign(env, { npm_config_cache: NPM_CACHE, npm_config_update_notifier: 'false' }, opts.env);
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd, env, timeout: opts.timeoutMs ?? 180000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        resolve({
          code: err ? Number((err as { code?: unknown }).code ?? -1) || -1 : 0,
          out: `${stdout}${stderr}`,
          stdout: String(stdout),
        });
      },
    );
  });
}

/** `npm i` of exact versions into a fresh folder, from the cache only; returns a skip reason when the cache lacks one. */
export async function installOffline(dir: string, packages: string[]): Promise<string | undefined> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"private": true}\n');
  const r = await runCommand('npm', ['i', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', ...packages], {
    cwd: dir,
    timeoutMs: 240000,
  });
  if (r.code === 0) return undefined;
  if (/ENOTCACHED|only-if-cached/.test(r.out)) return `${packages.join(', ')}: not in the npm cache (${NPM_CACHE})`;
  throw new Error(`npm i ${packages.join(' ')} failed:\n${r.out}`);
}

/** Print why a test cannot run here and tell the caller to return. */
export function skipped(why: string | undefined): boolean {
  if (why) console.warn(`SKIPPED (verify by hand): ${why}`);
  return why !== undefined;
}
