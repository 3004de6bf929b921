/**
 * `game-bridge-mcp test FILE --debug`: one test run to its failing step (or its end), its game
 * left there, paused, for an agent or the dashboard; its port is printed.
 */
import { usageError } from '../../shared/errors.js';
import { printableLines } from '../printable.js';
import { resolve } from 'node:path';
import type { TestResult } from './results.js';
import { discover, resultLines } from './run.js';
import { replayFile } from './replay.js';

const out = { write: (text: string) => process.stdout.write(printableLines(text)) };

/** --debug: one test, run to its failing step (or its end), its game left there for an agent or the dashboard. */
export async function debugOne(
  files: string[],
  config: string | undefined,
  resultLines: (r: TestResult) => string,
): Promise<number> {
  if (files.length !== 1)
    throw usageError(`test --debug opens one test, and ${files.length} were found: name its file.`);
  const r = await replayFile(files[0], { config, keep: true });
  out.write(resultLines(r));
  if (r.kept)
    out.write(
      `\nThe game stays on port ${r.kept.port}${r.kept.simFrame !== undefined ? `, paused at simFrame ${r.kept.simFrame}` : ''} (${r.ok ? 'after the last step' : 'at the failing step'}).\n` +
        `An agent reaches it with call_tool {port: ${r.kept.port}, ...}, and the dashboard shows it (game-bridge-mcp dashboard). ` +
        `It is stopped after GAME_BRIDGE_DETACHED_TTL_MS (15 minutes by default) unless a session uses it, or by stop_instance {port: ${r.kept.port}}.\n`,
    );
  return r.ok ? 0 : 1;
}

/** `test [paths] --debug`: the one test the paths name, against --config when given. */
export function runDebug(paths: string[], config?: string): Promise<number> {
  return debugOne(discover(paths), config ? resolve(process.cwd(), config) : undefined, resultLines);
}
