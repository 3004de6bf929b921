/**
 * Third-party clients (Claude Code, the MCP Inspector) installed from the npm cache only, at the
 * versions test/clients.json pins; tests never reach the network. `.ci/run` puts them in the
 * cache; on a developer's machine `npm i <package>@<version>` anywhere does. A test whose client
 * is missing is a visible skip there, and a failure under CI=true (testNeeding).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `name@version` of a client the tests drive, as test/clients.json pins it. */
export function pinnedClient(name: string): string {
  const pins = JSON.parse(readFileSync(join(process.cwd(), 'test', 'clients.json'), 'utf8')) as Record<string, string>;
  if (!pins[name]) throw new Error(`test/clients.json pins no version of ${name}`);
  return `${name}@${pins[name]}`;
}

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

/**
 * `test` when nothing it needs is missing. Otherwise a skip jest's summary counts, and under
 * CI=true a test that fails saying what is missing and `ciHas`, what CI provides: a test that
 * cannot run must not pass.
 */
export function testNeeding(
  missing: string | undefined,
  ciHas = '.ci/run puts the clients test/clients.json pins in the npm cache.',
): typeof test {
  if (missing === undefined) return test;
  if (process.env.CI === 'true') {
    const failing = (name: string) =>
      test(name, () => {
        throw new Error(`cannot run: ${missing}. ${ciHas}`);
      });
    return failing as unknown as typeof test;
  }
  console.warn(`SKIPPED (verify by hand): ${missing}`);
  return test.skip;
}
