/** An environment as plain strings: what a child process, a hello frame or a session config takes. */
import type { Env } from './paths.js';

/** Every variable that has a value (an Env may list unset ones as undefined). */
export function stringEnv(env: Env = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v;
  return out;
}
