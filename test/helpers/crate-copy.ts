/**
 * A project whose game is a copy of Crate Stack's build (its kit, shared code and packages
 * linked, not copied), so a test can change the game's code, as an agent fixing it does.
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, ROOT } from './procs.js';
import { writeProject, type Project } from './project.js';

export interface CrateCopy {
  p: Project;
  /** the copy's game.js, the simulation */
  game: string;
}

export function crateCopy(base: string, ports: number[], gameArgs = '--screenshot'): CrateCopy {
  mkdirSync(join(base, 'examples'), { recursive: true });
  cpSync(join(DIST, 'examples', 'crate-stack'), join(base, 'examples', 'crate-stack'), { recursive: true });
  for (const d of ['kits', 'shared']) symlinkSync(join(DIST, d), join(base, d));
  symlinkSync(join(ROOT, 'node_modules'), join(base, 'node_modules'));
  const main = join(base, 'examples', 'crate-stack', 'main.js');
  const p = writeProject(base, { ports, command: `"${process.execPath}" "${main}" --port {port} ${gameArgs}` });
  return { p, game: join(base, 'examples', 'crate-stack', 'game.js') };
}

/** The planted change: every landed crate scores one point more. Answers how to undo it. */
export function scoreOneMore(game: string): () => void {
  const code = readFileSync(game, 'utf8');
  const changed = code.replace(
    'const points = KINDS[crate.kind].points * level;',
    'const points = KINDS[crate.kind].points * level + 1;',
  );
  if (changed === code) throw new Error(`scoreOneMore: the scoring line is not in ${game}`);
  writeFileSync(game, changed);
  return () => writeFileSync(game, code);
}
