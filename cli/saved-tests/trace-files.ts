/**
 * The folder a test run keeps its traces in. It may hold files that are not the runner's (a
 * session trace an agent saved, a person's notes), so the runner removes or replaces only a file
 * it can prove it wrote: a manifest in the folder names each trace it wrote, for which test, and
 * the SHA-256 of what it wrote. A file whose bytes differ from that is no longer the runner's,
 * and a name another file holds is never written over (the trace takes the next free name).
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { outputFolder, writeProjectFile } from '../../shared/project-files.js';

/** The manifest's name in the traces folder. */
export const TRACES_MANIFEST = '.gamebridge-test-traces.json';

interface Entry {
  /** the test the trace is of, as its flat name (trace.ts's traceStem) */
  test: string;
  sha256: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

const exists = (path: string) => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

export class TraceFiles {
  constructor(readonly folder: string) {}

  /** The manifest's entries; undefined when the file at its name is not one (then nothing is proved, nothing recorded). */
  private read(): Record<string, Entry> | undefined {
    const file = join(this.folder, TRACES_MANIFEST);
    if (!exists(file)) return {};
    try {
      const m = JSON.parse(readFileSync(file, 'utf8')) as { gamebridgeTestTraces?: unknown; files?: unknown };
      if (m.gamebridgeTestTraces !== 1 || typeof m.files !== 'object' || !m.files) return undefined;
      const files: Record<string, Entry> = {};
      for (const [name, e] of Object.entries(m.files as Record<string, Partial<Entry>>))
        if (!/[\\/]/.test(name) && typeof e?.test === 'string' && typeof e.sha256 === 'string')
          files[name] = { test: e.test, sha256: e.sha256 };
      return files;
    } catch {
      return undefined;
    }
  }

  /** The manifest again, keeping only the entries whose files are still exactly what the runner wrote. */
  private save(files: Record<string, Entry>): void {
    const kept = Object.fromEntries(Object.entries(files).filter(([name, e]) => this.ours(name, e)));
    writeProjectFile(join(this.folder, TRACES_MANIFEST), JSON.stringify({ gamebridgeTestTraces: 1, files: kept }));
  }

  /** Whether `name` holds, byte for byte, what the runner wrote there. */
  private ours(name: string, e: Entry): boolean {
    const path = join(this.folder, name);
    try {
      return lstatSync(path).isFile() && sha256(readFileSync(path)) === e.sha256;
    } catch {
      return false;
    }
  }

  /**
   * Writes the trace of test `test` and answers its path: over the trace the runner wrote for it
   * before, else at `<test>.trace.html`, else at the first `<test>-<k>.trace.html` no file holds.
   */
  write(test: string, html: string): string {
    outputFolder(this.folder, 'the trace was not written');
    const files = this.read();
    let name = Object.entries(files ?? {}).find(([n, e]) => e.test === test && this.ours(n, e))?.[0];
    for (let k = 1; !name; k++) {
      const candidate = `${test}${k > 1 ? `-${k}` : ''}.trace.html`;
      if (!exists(join(this.folder, candidate))) name = candidate;
    }
    const path = join(this.folder, name);
    writeProjectFile(path, html);
    if (files) this.save({ ...files, [name]: { test, sha256: sha256(html) } });
    return path;
  }

  /** Removes the traces the runner wrote for `test` that are still as it wrote them; answers how many. */
  drop(test: string): number {
    const files = this.read();
    if (!files) return 0;
    let removed = 0;
    for (const [name, e] of Object.entries(files)) {
      if (e.test !== test || !this.ours(name, e)) continue;
      rmSync(join(this.folder, name));
      removed++;
    }
    if (removed) this.save(files);
    return removed;
  }
}
