/**
 * `import()` for code that the daemon's bundle carries. Under dist/daemon/life/boot.js the bundle runs
 * as a vm.Script compiled from V8's code cache, and on Node 20 an `import()` inside such a script
 * fails ("A dynamic import callback was not specified"): Node's loader finds no referrer for
 * code deserialised from a cache. So boot.js puts an ordinary module's `import()` on this
 * symbol, and the bundle's imports go through it; anywhere else (the module tree, tests) it is
 * the plain `import()`. Specifiers here are absolute URLs or package names: the host resolves
 * them from dist/daemon/, where the bundle is.
 */
export const HOST_IMPORT = Symbol.for('game-bridge-mcp.host-import');

type HostImport = (specifier: string) => Promise<unknown>;

/** The module at `specifier` (an absolute URL or a package name). */
export function loadModule<T>(specifier: string): Promise<T> {
  const host = (globalThis as { [HOST_IMPORT]?: HostImport })[HOST_IMPORT];
  return (host ? host(specifier) : import(specifier)) as Promise<T>;
}
