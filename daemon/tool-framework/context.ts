/**
 * What a tool handler may see and do, as an interface: the session layer implements it
 * (sessions/context.ts), so tools depend only on floors below them and never on sessions.
 */
import type { SessionConfig } from '../../shared/config.js';
import type { CompositeRegistry } from '../composites/registry.js';
import type { ManifestCache } from '../game/cache.js';
import type { GameClient } from '../game/client.js';
import type { LocalSurfaceLookup } from '../game/local-surfaces.js';
import type { Manifest } from '../game/manifest.js';
import type { Launcher } from '../launcher/index.js';
import type { Owners } from '../launcher/owners.js';
import type { HeldInputs } from '../play/held.js';
import type { Recordings } from '../recording/recordings.js';

/** What tools ask of the composites: find one, list a game's, say why the project's module failed. */
export type ToolComposites = Pick<CompositeRegistry, 'find' | 'findSync' | 'forGame' | 'problem'>;
/** What tools ask of the owners: whose a launched game is. */
export type ToolOwners = Pick<Owners, 'label' | 'ownedByAnotherLiveSession'>;
/** What tools tell the held-input book: a hold, a release, a port whose inputs all went. */
export type ToolHeld = Pick<HeldInputs, 'hold' | 'released' | 'releasePort' | 'pointerOf' | 'pointerAt'>;

export interface ToolContext {
  /** this client's settings (argv + env of the process the client spawned) */
  readonly config: SessionConfig;
  readonly sessionId: string;
  readonly composites: ToolComposites;
  /** daemon-wide: the games launched here, their owners, and what is known of each port's manifest */
  readonly launcher: Launcher;
  readonly owners: ToolOwners;
  readonly cache: ManifestCache;
  /** daemon-wide: the browser games this daemon carries, whose ports a scan asks in-process */
  readonly surfaces: LocalSurfaceLookup;
  /** daemon-wide: which inputs each session holds on which port */
  readonly held: ToolHeld;
  /** daemon-wide: what each session did to each game, for save_test (recording/recordings.ts) */
  readonly recordings: Recordings;
  /** The port a call means: its `port` argument, else the client's default, else the one game it launched. */
  resolvePort(args: Record<string, unknown>): number;
  /** The keep-alive client for the game on `port`, with this session's timeout and launch hint. */
  client(port: number): GameClient;
  /** The MCP client's name and version, as it introduced itself (undefined when it did not). */
  clientName(): string | undefined;
  /** Using a detached launched game makes it this session's (it is then no longer reaped by TTL). */
  adoptIfDetached(port: number): void;
  manifest(port: number): Promise<Manifest>;
  /** The manifest already fetched for `port`, without fetching (the replay verdict must not wait). */
  knownManifest(port: number): Manifest | undefined;
  /** Changes when another process is known to answer on `port` (pid, launcher): a pending command id stops meaning anything. */
  generation(port: number): () => number;
}
