/**
 * list_instances (docs/CONTRACT.md, "Self-registration"): merge the registry with a port scan, verify every candidate with
 * /health, and describe each live game from its /state and manifest.
 *
 * Registry entries are advisory: an entry counts only when its port answers /health; one whose
 * port is silent is `stale`. The live game wins over the entry for name and version; the entry
 * supplies pid, cwd and start time. Per-instance failures (a slow /state, a broken /tools) never
 * drop an instance: it is reported with what could be read.
 */
import type { SessionConfig } from '../../shared/config.js';
import type { ManifestCache } from '../game/cache.js';
import type { GameClient, State } from '../game/client.js';
import type { LocalSurfaceLookup } from '../game/local-surfaces.js';
import { BRIDGE_TOOLSET, type Manifest } from '../game/manifest.js';
import { pruneEntry, readRegistry, type RegistryEntry } from './registry.js';
import { scanPorts, type Probe } from './scan.js';
import { pidAlive } from '../../shared/daemon-file.js';

/** /state and /tools of a live game get this long (list_instances must stay quick). */
const DETAIL_TIMEOUT_CAP_MS = 2000;

export interface LaunchedInfo {
  pid?: number;
  cwd?: string;
  owner?: string;
}

export interface LiveInstance {
  port: number;
  discovery: 'registry' | 'scan' | 'both';
  status: 'live' | 'live-no-manifest';
  game: string | null;
  version: string | null;
  protocol: number | null;
  manifest: Manifest['source'];
  pid: number | null;
  cwd: string | null;
  started?: string;
  screen: string | null;
  frame: number | null;
  toolsets: string[];
  launchedByThisBridge: boolean;
  owner?: string;
  /** inputs held on this game (docs/KITS.md), whose owner is "you" (this session) or "another session" */
  held?: Array<{ input: string; owner: string; leaseMsLeft: number | null; via?: 'browser' }>;
  /** what could not be read (a /state or /tools failure), when something could not */
  warnings?: string[];
}

export interface StaleEntry {
  port: number;
  pid: number;
  file: string;
  /** why it is stale when the port is not simply silent */
  detail?: string;
  pruned?: boolean;
}

export interface ListResult {
  registryDir: string;
  live: LiveInstance[];
  stale: StaleEntry[];
  notAGame: { port: number; detail: string }[];
  free: number[];
  skippedRegistryFiles?: number;
}

export interface ListOptions {
  config: SessionConfig;
  cache: ManifestCache;
  clients: (port: number) => GameClient;
  /** the surfaces this process serves itself: their ports are probed in-process */
  local?: LocalSurfaceLookup;
  launched?: (port: number) => LaunchedInfo | undefined;
  /** ports to verify beyond the scan range and the registry (e.g. games this daemon launched) */
  extraPorts?: number[];
  prune?: boolean;
  /** how an input's owner is shown to this session ("you", "another session") */
  ownerLabel?: (owner: string) => string;
}

/** Of several entries naming one port, the one most likely to be the process answering. */
function bestEntry(entries: RegistryEntry[]): RegistryEntry {
  return [...entries].sort(
    (a, b) => Number(pidAlive(b.pid)) - Number(pidAlive(a.pid)) || (b.started ?? '').localeCompare(a.started ?? ''),
  )[0];
}

const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export async function listInstances(opts: ListOptions): Promise<ListResult> {
  const { config } = opts;
  const reg = config.registry ? await readRegistry(config.registryDir) : { entries: [], skipped: 0, skippedFiles: [] };
  const byPort = new Map<number, RegistryEntry[]>();
  for (const e of reg.entries) byPort.set(e.port, [...(byPort.get(e.port) ?? []), e]);

  const scanned = new Set(config.scan ? config.scanRange : []);
  const ports = [...new Set([...scanned, ...byPort.keys(), ...(opts.extraPorts ?? [])])];
  const probes = await scanPorts(ports, { timeoutMs: config.timeoutMs, local: opts.local });

  const result: ListResult = { registryDir: config.registryDir, live: [], stale: [], notAGame: [], free: [] };
  const staleWork: Promise<void>[] = [];
  const liveWork: Promise<LiveInstance>[] = [];

  for (const probe of probes) {
    const entries = byPort.get(probe.port) ?? [];
    if (probe.kind === 'free') {
      if (scanned.has(probe.port)) result.free.push(probe.port);
      for (const e of entries) staleWork.push(reportStale(result, e, undefined, opts.prune === true));
      continue;
    }
    if (probe.kind === 'notAGame') {
      result.notAGame.push({ port: probe.port, detail: probe.detail });
      // something else holds the port: the entry is not an instance, but the port is not dead, so never prune
      for (const e of entries)
        staleWork.push(reportStale(result, e, `port ${probe.port} answers, but not as a game: ${probe.detail}`, false));
      continue;
    }
    const entry = entries.length ? bestEntry(entries) : undefined;
    for (const e of entries) {
      if (e !== entry && !pidAlive(e.pid))
        staleWork.push(
          reportStale(result, e, `process ${e.pid} is gone; another process answers on port ${probe.port}`, false),
        );
    }
    const discovery = entry ? (scanned.has(probe.port) ? 'both' : 'registry') : 'scan';
    liveWork.push(describeLive(opts, probe, discovery, entry));
  }

  result.live = await Promise.all(liveWork);
  await Promise.all(staleWork);
  result.live.sort((a, b) => a.port - b.port);
  result.stale.sort((a, b) => a.port - b.port || a.pid - b.pid);
  result.notAGame.sort((a, b) => a.port - b.port);
  result.free.sort((a, b) => a - b);
  if (reg.skipped) result.skippedRegistryFiles = reg.skipped;
  return result;
}

async function reportStale(
  result: ListResult,
  e: RegistryEntry,
  detail: string | undefined,
  prune: boolean,
): Promise<void> {
  const item: StaleEntry = { port: e.port, pid: e.pid, file: e.file };
  if (detail) item.detail = detail;
  result.stale.push(item);
  if (prune) item.pruned = await pruneEntry(e.file);
}

async function describeLive(
  opts: ListOptions,
  probe: Extract<Probe, { kind: 'live' }>,
  discovery: LiveInstance['discovery'],
  entry?: RegistryEntry,
): Promise<LiveInstance> {
  const { port } = probe;
  const { cache, config } = opts;
  const frame = probe.health.frame;
  if (typeof frame === 'number')
    cache.restarts.note(port, { frame, sentAt: probe.sentAt, receivedAt: probe.receivedAt });
  if (entry) cache.restarts.notePid(port, entry.pid);
  const client = opts.clients(port);
  const warnings: string[] = [];
  const why = (e: unknown) => (e instanceof Error ? e.message : String(e));

  const [state, manifest] = await Promise.all([
    client
      .state(AbortSignal.timeout(Math.min(config.timeoutMs, DETAIL_TIMEOUT_CAP_MS)))
      .catch((e: unknown): State | undefined => {
        warnings.push(`GET /state failed: ${why(e)}`);
        return undefined;
      }),
    cache.get(client, { manifestPath: config.manifestPath }).catch((e: unknown): Manifest | undefined => {
      warnings.push(`GET /tools failed: ${why(e)}`);
      return undefined;
    }),
  ]);

  const launched = opts.launched?.(port);
  const ui =
    state && typeof state.ui === 'object' && state.ui !== null ? (state.ui as Record<string, unknown>) : undefined;
  const h = probe.health;
  const item: LiveInstance = {
    port,
    discovery,
    status: !manifest || manifest.source === 'fallback' ? 'live-no-manifest' : 'live',
    // the live game wins over the registry entry for name and version
    game: text(manifest?.game.name) ?? text(h.name) ?? text(h.game) ?? entry?.name ?? null,
    version: text(manifest?.game.version) ?? text(h.version) ?? entry?.version ?? null,
    protocol: num(manifest?.game.protocol) ?? num(h.protocol) ?? entry?.protocol ?? null,
    manifest: manifest?.source ?? 'fallback',
    pid: entry?.pid ?? launched?.pid ?? num(h.pid),
    cwd: entry?.cwd ?? launched?.cwd ?? null,
    screen: text(ui?.screen),
    frame: num(state?.frame) ?? num(h.frame),
    // every game has the bridge toolset, listed last (a game's own `bridge` toolset is merged into it)
    toolsets: [...(manifest?.toolsets ?? []).map((t) => t.name).filter((n) => n !== BRIDGE_TOOLSET), BRIDGE_TOOLSET],
    launchedByThisBridge: launched !== undefined,
  };
  if (entry?.started) item.started = entry.started;
  if (launched?.owner) item.owner = launched.owner;
  const held = heldOf(state, opts.ownerLabel);
  if (held.length) item.held = held;
  if (warnings.length) item.warnings = warnings;
  return item;
}

/** The inputs /state says are held, each owner shown as this session sees it. */
function heldOf(
  state: State | undefined,
  label: (owner: string) => string = (o) => o,
): NonNullable<LiveInstance['held']> {
  const input =
    state && typeof state.input === 'object' && state.input !== null ? (state.input as { held?: unknown }) : undefined;
  if (!Array.isArray(input?.held)) return [];
  return input.held
    .filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null)
    .map((x) => ({ input: String(x.input), owner: label(String(x.owner)), leaseMsLeft: num(x.leaseMsLeft) }));
}
