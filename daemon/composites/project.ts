/**
 * A project's composites module, named in gamebridge.json (`"composites": "./bridge/composites.mjs"`).
 * The daemon loads it for that project's sessions and reloads it when the file changes: each
 * lookup checks the file's mtime and re-imports under a fresh URL when it moved.
 *
 * Every version imported stays in memory for the daemon's life (an ES module cannot be
 * unloaded), so one daemon loads at most MAX_MODULE_VERSIONS versions of a file; past that, a
 * changed file is not loaded and the agent is told to restart the daemon (docs/DECISIONS.md).
 */
import { statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { findDeclaration } from '../launcher/index.js';
import { distrustFile } from '../../shared/declaration-path.js';
import type { SessionConfig } from '../../shared/config.js';
import type { Composite } from './types.js';
import { selfCommand } from '../../shared/self-command.js';
import { loadModule } from '../../shared/load-module.js';
import { numberSetting, SETTINGS } from '../../shared/settings.js';

interface Loaded {
  mtimeMs: number;
  composites: Composite[];
}

/** Shared by every session: one module instance per file version. */
const loaded = new Map<string, Loaded>();
/** How many versions of each file this daemon has imported (each one is kept: see above). */
const imported = new Map<string, number>();

/** Versions of one composites file a daemon imports (GAME_BRIDGE_COMPOSITE_VERSIONS, else 50). */
export function maxModuleVersions(env = process.env): number {
  return numberSetting(SETTINGS.compositeVersions, env);
}

/** A changed module past the cap: its text is the whole explanation, with the way out. */
class TooManyVersions extends Error {}

function isComposite(c: unknown): c is Composite {
  return (
    !!c &&
    typeof c === 'object' &&
    typeof (c as Composite).name === 'string' &&
    typeof (c as Composite).run === 'function'
  );
}

export async function loadCompositesModule(file: string): Promise<Composite[]> {
  // Checked at every load, not only when gamebridge.json was read: the file may have changed hands.
  const refused = distrustFile(file);
  if (refused)
    throw new Error(`not loaded: ${refused.path === file ? 'it' : refused.path} ${refused.why.replace(/^it /, '')}`);
  const mtimeMs = statSync(file).mtimeMs;
  const hit = loaded.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.composites;
  const count = imported.get(file) ?? 0;
  if (count >= maxModuleVersions())
    throw new TooManyVersions(
      `The composites module ${file} changed, but this daemon has already loaded ${count} versions of it and keeps every one in memory ` +
        `(a JavaScript module cannot be unloaded), so it loads no more. Restart the daemon to load the new version: ` +
        `\`${selfCommand()} stop\` (it also stops the games it launched; the next client starts a fresh daemon).`,
    );
  imported.set(file, count + 1);
  const mod = await loadModule<Record<string, unknown>>(`${pathToFileURL(file).href}?v=${mtimeMs}`);
  const raw = mod.default ?? mod.composites ?? Object.values(mod);
  const list = (Array.isArray(raw) ? raw : Object.values(raw as object)).filter(isComposite);
  loaded.set(file, { mtimeMs, composites: list });
  return list;
}

/** A project's composites lookup, and what went wrong the last time it loaded (for the agent). */
export interface ProjectComposites {
  (): Promise<Composite[]>;
  problem(): string | undefined;
}

/** The composites lookup for one session: its gamebridge.json's module, if any. */
export function projectComposites(
  config: SessionConfig,
  log: (line: string) => void = (l) => process.stderr.write(l + '\n'),
): ProjectComposites {
  let problem: string | undefined;
  let explained = '';
  // The declaration lookup walks directories: re-done at most once a second, not per call.
  let found: { at: number; file?: string } = { at: 0 };
  const lookup = async () => {
    if (Date.now() - found.at > 1000) {
      let file: string | undefined;
      try {
        file = findDeclaration({ cwd: config.cwd, configPath: config.configPath, home: config.env.HOME }).composites;
      } catch {
        file = undefined; // no gamebridge.json: no project composites
      }
      found = { at: Date.now(), file };
    }
    const file = found.file;
    if (!file) return [];
    try {
      const list = await loadCompositesModule(file);
      problem = undefined;
      explained = '';
      return list;
    } catch (e) {
      // Explained once per version of the file (finding a syntax error's line costs a process).
      const version = `${file}@${mtimeOf(file)}`;
      if (version !== explained) {
        explained = version;
        problem =
          e instanceof TooManyVersions
            ? e.message
            : `The composites module ${file} failed to load: ${await whereItFailed(file, e)}. Fix it; the next call loads it again.`;
        log(problem);
      }
      return [];
    }
  };
  return Object.assign(lookup, { problem: () => problem });
}

/** The failure with its line: a SyntaxError from import() carries none, so `node --check` is asked for it. */
async function whereItFailed(file: string, e: unknown): Promise<string> {
  const err = e as Error;
  const line = (text: string) => new RegExp(`${escapeRegExp(file)}:(\\d+)`).exec(text)?.[1];
  if (err.name !== 'SyntaxError') {
    const at = line(err.stack ?? '');
    return `${err.name}: ${err.message}${at ? ` (line ${at})` : ''}`;
  }
  const { execa } = await import('execa');
  const check = await execa(process.execPath, ['--check', file], { reject: false, timeout: 5000 });
  const at = line(check.stderr);
  return `SyntaxError: ${err.message}${at ? ` (line ${at})` : ''}`;
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
