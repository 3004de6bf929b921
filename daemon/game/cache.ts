/**
 * Per-port manifest cache (docs/CONTRACT.md), plus the port's restart watch (./restarts.ts) other
 * modules read.
 *
 * A port's manifest is dropped when (1) a new process is proven there (a frame lower than one
 * already seen before the request left, or another pid in the registry, or the launcher
 * starting or losing the game), (2) a call_tool name is missing (the caller calls invalidate()
 * and refetches once).
 *
 * `--manifest FILE` is used only when the game answers 404 on /tools: the file exists for games
 * that cannot serve a manifest, and a game that does serve one knows its own commands better
 * than a file that may be out of date.
 */
import { readFile } from 'node:fs/promises';
import { isBridgeError } from '../../shared/errors.js';
import type { GameClient } from './client.js';
import { emptyManifest, readManifest, type Manifest } from './manifest.js';
import { RestartWatch } from './restarts.js';

/** A manifest file bigger than this is refused (it is a command list, not data). */
const MAX_MANIFEST_FILE_BYTES = 4 * 1024 * 1024;

/** Manifests built from a failure that may pass (a 500, a broken file): never cached. */
const transient = new WeakSet<Manifest>();

export interface ManifestOptions {
  /** --manifest FILE: used when the game publishes no /tools */
  manifestPath?: string;
}

interface PortState {
  /** manifest promises keyed by manifestPath ('' for none): a session's --manifest is its own */
  manifests: Map<string, Promise<Manifest>>;
  /** the same, once resolved: read synchronously (replay verdicts); dropped with them */
  settled: Map<string, Manifest>;
}

export class ManifestCache {
  private ports = new Map<number, PortState>();
  /** every frame reading of every port goes here (GameClient reports them) */
  readonly restarts = new RestartWatch();

  constructor() {
    this.restarts.onRestart((port) => this.invalidate(port));
  }

  private port(port: number): PortState {
    let s = this.ports.get(port);
    if (!s) {
      s = { manifests: new Map(), settled: new Map() };
      this.ports.set(port, s);
    }
    return s;
  }

  /**
   * The port's manifest, fetched once and shared by concurrent callers. A 404 on /tools gives the
   * --manifest file if one is configured, else the fallback (source 'fallback', with a notice).
   * GameOffline propagates (nothing to describe); any other failure gives an uncached fallback
   * with the reason in `warnings`, so the next call retries.
   */
  get(client: GameClient, opts: ManifestOptions = {}): Promise<Manifest> {
    const s = this.port(client.port);
    const key = opts.manifestPath ?? '';
    const hit = s.manifests.get(key);
    if (hit) return hit;
    const p = this.fetch(client, opts);
    s.manifests.set(key, p);
    const forget = () => {
      if (s.manifests.get(key) === p) s.manifests.delete(key);
    };
    p.then((m) => {
      if (transient.has(m)) forget();
      else if (s.manifests.get(key) === p) s.settled.set(key, m);
    }, forget);
    return p;
  }

  /** The manifest already fetched for a port, if any (synchronous; never fetches). */
  settled(port: number, opts: ManifestOptions = {}): Manifest | undefined {
    return this.ports.get(port)?.settled.get(opts.manifestPath ?? '');
  }

  private async fetch(client: GameClient, opts: ManifestOptions): Promise<Manifest> {
    let raw: unknown;
    try {
      raw = await client.tools();
    } catch (e) {
      if (isBridgeError(e) && e.kind === 'GameOffline') throw e;
      const m = emptyManifest();
      transient.add(m);
      m.warnings.push(
        `Could not read the game's manifest (GET /tools): ${isBridgeError(e) ? e.message : String(e)} Only the bridge toolset is listed; it will be fetched again next time.`,
      );
      return m;
    }
    if (raw !== null) return readManifest(raw, 'game');
    if (opts.manifestPath) return readManifestFile(opts.manifestPath, client.port);
    return emptyManifest(
      `The game on port ${client.port} publishes no command list (GET /tools returned 404): only the bridge toolset is listed. ` +
        'Commands can still be sent by name through call_tool (they pass through as raw commands), or give the bridge a manifest with --manifest FILE.',
    );
  }

  /** Drop the port's manifest (a call_tool name missing from it: refetch once). */
  invalidate(port: number): void {
    this.ports.get(port)?.manifests.clear();
    this.ports.get(port)?.settled.clear();
  }

  /** The launcher started or lost the game on the port: forget it, and tell the restart watch. */
  forget(port: number): void {
    this.ports.delete(port);
    this.restarts.changed(port);
  }
}

/** Read a --manifest file; a missing or broken file gives the fallback with the reason as a warning. */
export async function readManifestFile(path: string, port?: number): Promise<Manifest> {
  const where = port === undefined ? '' : ` for port ${port}`;
  try {
    const buf = await readFile(path);
    if (buf.length > MAX_MANIFEST_FILE_BYTES) throw new Error(`it is larger than ${MAX_MANIFEST_FILE_BYTES} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(buf.toString('utf8'));
    } catch (e) {
      throw new Error(`it is not valid JSON (${(e as Error).message})`);
    }
    return readManifest(json, 'file');
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (e as Error).message;
    const m = emptyManifest(
      `The game${where} publishes no command list and the manifest file ${path} could not be used: ${why}. Only the bridge toolset is listed.`,
    );
    m.warnings.push(`Manifest file ${path}: ${why}.`);
    transient.add(m); // read it again next time: someone is probably fixing the file
    return m;
  }
}
