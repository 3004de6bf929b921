/**
 * Per-port manifest cache, plus the per-port restart detector other modules read.
 *
 * A port's caches are dropped when (1) its frame goes backwards, (2) a call_tool name is missing
 * (the caller calls invalidate() and refetches once), (3) its registry pid changes. Each detected
 * restart bumps the port's epoch, so a module holding something tied to one game process (a
 * pending command id) can tell the process changed under it.
 *
 * `--manifest FILE` is used only when the game answers 404 on /tools: the file exists for games
 * that cannot serve a manifest, and a game that does serve one knows its own commands better
 * than a file that may be out of date.
 */
import { readFile } from 'node:fs/promises';
import { isBridgeError } from '../../shared/errors.js';
import type { GameClient } from './client.js';
import { fallbackManifest, normaliseManifest, type Manifest } from './manifest.js';

/** A manifest file bigger than this is refused (it is a command list, not data). */
const MAX_MANIFEST_FILE_BYTES = 4 * 1024 * 1024;

/** Manifests built from a failure that may pass (a 500, a broken file): never cached. */
const transient = new WeakSet<Manifest>();

export interface ManifestOptions {
  /** --manifest FILE: used when the game publishes no /tools */
  manifestPath?: string;
}

interface PortState {
  lastFrame?: number;
  pid?: number;
  epoch: number;
  /** manifest promises keyed by manifestPath ('' for none): a session's --manifest is its own */
  manifests: Map<string, Promise<Manifest>>;
  /** the same, once resolved: read synchronously (replay verdicts); dropped with them */
  settled: Map<string, Manifest>;
}


export class ManifestCache {
  private ports = new Map<number, PortState>();

  private port(port: number): PortState {
    let s = this.ports.get(port);
    if (!s) {
      s = { epoch: 0, manifests: new Map(), settled: new Map() };
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
      const m = fallbackManifest();
      transient.add(m);
      m.warnings.push(`Could not read the game's manifest (GET /tools): ${isBridgeError(e) ? e.message : String(e)} Only the bridge toolset is listed; it will be fetched again next time.`);
      return m;
    }
    if (raw !== null) return normaliseManifest(raw, 'game');
    if (opts.manifestPath) return readManifestFile(opts.manifestPath, client.port);
    return fallbackManifest(
      `The game on port ${client.port} publishes no command list (GET /tools returned 404): only the bridge toolset is listed. ` +
        'Commands can still be sent by name through call_tool (they pass through as raw commands), or give the bridge a manifest with --manifest FILE.',
    );
  }

  /**
   * Record a frame seen on a port. A frame lower than the last one means a new process answers
   * there: every cache for the port is dropped and its epoch bumps. Returns true on a restart.
   */
  noteFrame(port: number, frame: unknown): boolean {
    if (typeof frame !== 'number' || !Number.isFinite(frame)) return false;
    const s = this.port(port);
    const restarted = s.lastFrame !== undefined && frame < s.lastFrame;
    s.lastFrame = frame;
    if (restarted) this.restart(s);
    return restarted;
  }

  lastFrame(port: number): number | undefined {
    return this.ports.get(port)?.lastFrame;
  }

  /** Increments on every restart detected on this port (0 until the first). */
  epoch(port: number): number {
    return this.ports.get(port)?.epoch ?? 0;
  }

  /** Record the pid the registry names for a port; a different pid than before is a restart. */
  notePid(port: number, pid: unknown): boolean {
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
    const s = this.port(port);
    const changed = s.pid !== undefined && s.pid !== pid;
    s.pid = pid;
    if (changed) {
      s.lastFrame = undefined; // the new process counts from its own start
      this.restart(s);
    }
    return changed;
  }

  /** Drop the port's manifest (a call_tool name missing from it: refetch once). */
  invalidate(port: number): void {
    this.ports.get(port)?.manifests.clear();
    this.ports.get(port)?.settled.clear();
  }

  /** Forget everything about a port (the instance is gone). */
  forget(port: number): void {
    this.ports.delete(port);
  }

  /** A new process answers on the port: what we knew of the old one goes. */
  private restart(s: PortState): void {
    s.manifests.clear();
    s.settled.clear();
    s.epoch++;
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
    return normaliseManifest(json, 'file');
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (e as Error).message;
    const m = fallbackManifest(`The game${where} publishes no command list and the manifest file ${path} could not be used: ${why}. Only the bridge toolset is listed.`);
    m.warnings.push(`Manifest file ${path}: ${why}.`);
    transient.add(m); // read it again next time: someone is probably fixing the file
    return m;
  }
}
