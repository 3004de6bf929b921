/**
 * Stop escalation for a game this daemon launched: ask it to close, wait for the port to go
 * quiet, then SIGTERM the tree, then SIGKILL it.
 */
import { GameClient } from '../game/client.js';
import { groupAlive, killTree, pidAlive, treeAlive, waitUntil } from './processes.js';
import type { StopHow } from './types.js';

const TERM_WAIT_MS = 2000;

/** close → wait for quiet → SIGTERM the tree → SIGKILL the tree. */
export async function reapGame(port: number, pid: number, graceMs: number, httpTimeoutMs: number): Promise<StopHow> {
  const client = new GameClient(port, { timeoutMs: Math.max(100, Math.min(httpTimeoutMs, graceMs)) });
  try {
    await client.command('close');
  } catch {
    /* refused, offline, or not a game any more: the escalation below handles it */
  } finally {
    client.close();
  }
  const quiet = async () => !pidAlive(pid) && !(await answers(port));
  if (await waitUntil(quiet, graceMs)) {
    // The game left on its own; children it forgot to take along still go.
    if (groupAlive(pid)) await escalate(pid);
    return 'closed cleanly';
  }
  return escalate(pid);
}

/** SIGTERM to the whole tree, then SIGKILL if it is still there. */
export async function escalate(pid: number): Promise<'terminated' | 'killed'> {
  await killTree(pid, 'SIGTERM');
  if (await waitUntil(() => !treeAlive(pid), TERM_WAIT_MS)) return 'terminated';
  await killTree(pid, 'SIGKILL');
  await waitUntil(() => !treeAlive(pid), TERM_WAIT_MS);
  return 'killed';
}

/** Does anything still answer GET /health on the port? */
async function answers(port: number): Promise<boolean> {
  const c = new GameClient(port, { timeoutMs: 300 });
  try {
    await c.get('/health', 300);
    return true;
  } catch {
    return false;
  } finally {
    c.close();
  }
}
