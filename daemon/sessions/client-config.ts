/**
 * One client's session settings, from what it tells the daemon: a proxy's hello (its argv,
 * environment and directory), or nothing at all for an HTTP client.
 */
import type { HelloFrame } from '../../shared/frames.js';
import { parseSessionArgs, sessionConfigFrom, type SessionConfig } from '../../shared/config.js';
import { isBridgeError } from '../../shared/errors.js';

/** An HTTP client sends no argv, environment or directory: the defaults, the daemon's environment, `cwd`. */
export function httpSessionConfig(cwd: string, daemonEnv: NodeJS.ProcessEnv): SessionConfig {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(daemonEnv)) if (typeof v === 'string') env[k] = v;
  return sessionConfig({ argv: [], env, cwd }).config;
}

/** The client's flags, or (on a bad flag) the defaults plus the error text for the proxy to print. */
export function sessionConfig(hello: Pick<HelloFrame, 'argv' | 'env' | 'cwd'>): {
  config: SessionConfig;
  configError?: string;
} {
  const env = hello.env && typeof hello.env === 'object' ? hello.env : {};
  const cwd = typeof hello.cwd === 'string' ? hello.cwd : process.cwd();
  try {
    return { config: parseSessionArgs(Array.isArray(hello.argv) ? hello.argv.map(String) : [], env, cwd) };
  } catch (e) {
    const configError = isBridgeError(e) ? e.text : String(e);
    let config: SessionConfig;
    try {
      config = parseSessionArgs([], env, cwd);
    } catch {
      config = { ...sessionConfigFrom({}, {}, cwd), env: { ...env } };
    }
    return { config, configError };
  }
}
