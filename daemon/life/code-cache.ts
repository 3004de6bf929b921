/**
 * The daemon bundle run with V8's code cache. `npm run build` writes dist/daemon/bundle.cjs (the
 * whole daemon in one CommonJS file) and, after one real boot and a client's tools/list,
 * dist/daemon/bundle.cache (the code V8 compiled meanwhile); a daemon start then deserialises
 * that code instead of parsing the whole bundle, which keeps a cold start within its target
 * (docs/DECISIONS.md, "Boot and standby"). Node 20
 * has no module.enableCompileCache (22.1+), hence vm.Script with cachedData.
 *
 * The cache is code: it is read only beside the bundle and written only by the build, never at
 * run time (docs/DECISIONS.md "The code cache is code, so only the build writes it"). A cache that is missing, not this
 * bundle's or this Node's, damaged, writable by others, or rejected by V8 is skipped, never fatal.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { HOST_IMPORT } from '../../shared/load-module.js';

/** What the bundle exports (its entry is daemon/life/main.ts). */
export interface DaemonBundle {
  runDaemon(opts?: { port?: number; foreground?: boolean; takeover?: boolean }): Promise<void>;
}

/** How the start went with the cache: used, or why not. */
export type CacheUse = 'used' | 'missing' | 'stale' | 'corrupt' | 'unsafe' | 'rejected';

/** The bundle and its cache, both in `dir` (dist/daemon/). */
export function bundleFiles(dir: string): { bundle: string; cache: string } {
  return { bundle: join(dir, 'bundle.cjs'), cache: join(dir, 'bundle.cache') };
}

/** The bundle sees the CommonJS names plus `__bundleUrl`, which the bundle script puts where sources say import.meta.url. */
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname, __bundleUrl) {';
const WRAP_TAIL = '\n})';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * A cache file is one line naming what it is for (this Node, this CPU architecture, this very
 * bundle's bytes: V8 itself checks its version and flags, but of the source only its length)
 * and the digest of what follows, then V8's data. V8 does not check that data in a release
 * build: a corrupt cache would crash the daemon (a V8 fatal error), not be rejected.
 */
export function cacheFileBytes(source: Buffer, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${cacheKey(source)} ${sha256(data)}\n`, 'latin1'), data]);
}

function cacheKey(source: Buffer): string {
  return `game-bridge-code-cache 1 ${process.version} ${process.arch} ${sha256(source)}`;
}

/** The cached code for `source`, or why there is none. */
function readCache(file: string, bundleUid: number, source: Buffer): { data?: Buffer; use: CacheUse } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return { use: 'missing' };
  }
  try {
    const st = fstatSync(fd);
    // Code runs from it: only a plain file that no one but the bundle's owner can change.
    if (!st.isFile() || st.uid !== bundleUid || (st.mode & 0o022) !== 0) return { use: 'unsafe' };
    const all = readFileSync(fd);
    const eol = all.indexOf(10);
    const [key, digest] = splitLast(all.subarray(0, Math.max(eol, 0)).toString('latin1'));
    if (eol < 0 || key !== cacheKey(source)) return { use: 'stale' };
    const data = all.subarray(eol + 1);
    return sha256(data) === digest ? { data, use: 'used' } : { use: 'corrupt' };
  } catch {
    return { use: 'missing' };
  } finally {
    closeSync(fd);
  }
}

function splitLast(line: string): [string, string] {
  const at = line.lastIndexOf(' ');
  return [line.slice(0, Math.max(at, 0)), line.slice(at + 1)];
}

/** Compile the bundle's source, with cached code when given (V8 says in `cachedDataRejected` whether it took it). */
export function compileBundle(file: string, source: string, cachedData?: Buffer): vm.Script {
  return new vm.Script(WRAP_HEAD + source + WRAP_TAIL, { filename: file, cachedData });
}

/** Evaluate the compiled bundle as the CommonJS module at `file`; its exports. */
export function runBundle(script: vm.Script, file: string): DaemonBundle {
  // The bundle's import()s come here (shared/load-module.ts): this module sits beside the bundle, so they resolve alike.
  (globalThis as Record<symbol, unknown>)[HOST_IMPORT] = (specifier: string) => import(specifier);
  const module = { exports: {} as DaemonBundle };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(
    module.exports,
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
    pathToFileURL(file).href,
  );
  return module.exports;
}

/** The bundle in `dir` with its cache when usable; undefined when there is no bundle. */
export function loadDaemonBundle(dir: string): { daemon: DaemonBundle; cache: CacheUse } | undefined {
  const files = bundleFiles(dir);
  let raw: Buffer;
  let uid: number;
  try {
    raw = readFileSync(files.bundle);
    uid = statSync(files.bundle).uid;
  } catch {
    return undefined;
  }
  const cached = readCache(files.cache, uid, raw);
  const script = compileBundle(files.bundle, raw.toString('utf8'), cached.data);
  const cache: CacheUse = cached.data && script.cachedDataRejected ? 'rejected' : cached.use;
  return { daemon: runBundle(script, files.bundle), cache };
}
