/**
 * One client's session settings, from what it tells the daemon: a proxy's hello (its argv,
 * environment and directory), or nothing at all for an HTTP client.
 */
import type { HelloFrame } from '../../shared/frames.js';
import { sessionConfigFrom, type SessionConfig } from '../../shared/config.js';
import { isBridgeError } from '../../shared/errors.js';

/** An HTTP client sends no argv, environment or directory: the defaults, the daemon's environment, `cwd`. */
export function httpSessionConfig(cwd: string, daemonEnv: NodeJS.ProcessEnv): SessionConfig {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(daemonEnv)) if (typeof v === 'string') env[k] = v;
  return withoutFlags(env, cwd).config;
}

export interface ClientConfig {
  config: SessionConfig;
  /** a bad flag or setting, for the proxy to print; the settings are then the defaults */
  configError?: string;
}

/** The client's flags, or (on a bad flag) the defaults plus the error text for the proxy to print. */
export async function sessionConfig(hello: Pick<HelloFrame, 'argv' | 'env' | 'cwd'>): Promise<ClientConfig> {
  const env = hello.env && typeof hello.env === 'object' ? hello.env : {};
  const cwd = typeof hello.cwd === 'string' ? hello.cwd : process.cwd();
  const argv = Array.isArray(hello.argv) ? hello.argv.map(String) : [];
  if (argv.length === 0) return withoutFlags(env, cwd);
  // yargs, only for a client that passes flags: most pass none, and it is ~20 ms of every daemon start
  const { parseSessionArgs } = await import('../../shared/session-args.js');
  try {
    return { config: parseSessionArgs(argv, env, cwd) };
  } catch (e) {
    return { ...withoutFlags(env, cwd), configError: errorText(e) };
  }
}

/** No flags: the settings from the environment alone, or (on a bad setting there) the defaults and why. */
function withoutFlags(env: Record<string, string>, cwd: string): ClientConfig {
  try {
    return { config: sessionConfigFrom({}, env, cwd) };
  } catch (e) {
    return { config: { ...sessionConfigFrom({}, {}, cwd), env: { ...env } }, configError: errorText(e) };
  }
}

const errorText = (e: unknown) => (isBridgeError(e) ? e.text : String(e));
