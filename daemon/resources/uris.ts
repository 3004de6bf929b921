/**
 * The bridge's MCP resources (docs/TOOLS.md, "Resources, prompts and the skill"): what each URI
 * names, its MIME type, and the templates a client fills with a game's port.
 */
import { usageError } from '../../shared/errors.js';

export const INSTANCES_URI = 'gamebridge://instances';

/** What a game's resource shows; `state` and `ui` can be subscribed to. */
export type GameResourceKind = 'state' | 'manifest' | 'log' | 'ui' | 'screenshot';

export const WATCHABLE: readonly GameResourceKind[] = ['state', 'ui'];

interface KindFacts {
  title: string;
  mimeType: string;
  description: string;
}

export const GAME_RESOURCES: Record<GameResourceKind, KindFacts> = {
  state: {
    title: 'state',
    mimeType: 'application/json',
    description:
      "The game's whole state snapshot (GET /state), as get_state answers it. Subscribe to hear when it changes.",
  },
  manifest: {
    title: 'manifest',
    mimeType: 'application/json',
    description: "The game's toolsets and tools with their arguments (its manifest, as the bridge read it).",
  },
  log: {
    title: 'log',
    mimeType: 'text/plain',
    description: "The last lines of a game's output, for a game this bridge launched (as instance_log answers).",
  },
  ui: {
    title: 'UI tree',
    mimeType: 'application/json',
    description:
      'What is on screen as a tree of nodes (GET /ui), for games that declare the "ui" capability. Subscribe to hear when it changes.',
  },
  screenshot: {
    title: 'screenshot',
    mimeType: 'image/png',
    description: "The game's screenshot as a PNG (for games that serve GET /screenshot, and pages the bridge opened).",
  },
};

export const KINDS = Object.keys(GAME_RESOURCES) as GameResourceKind[];

export function gameUri(port: number, kind: GameResourceKind): string {
  return `gamebridge://game/${port}/${kind}`;
}

/** The resource templates (resources/templates/list). */
export function resourceTemplates() {
  return KINDS.map((kind) => ({
    uriTemplate: `gamebridge://game/{port}/${kind}`,
    name: `game-${kind}`,
    title: `A game's ${GAME_RESOURCES[kind].title}`,
    description: `${GAME_RESOURCES[kind].description} {port} is the game's debug port (list_instances shows them).`,
    mimeType: GAME_RESOURCES[kind].mimeType,
  }));
}

export type ParsedUri = { kind: 'instances' } | { kind: GameResourceKind; port: number };

/** What a URI names, or a BridgeUsageError that lists the resources there are. */
export function parseUri(uri: string): ParsedUri {
  if (uri === INSTANCES_URI) return { kind: 'instances' };
  const m = /^gamebridge:\/\/game\/(\d{1,5})\/([a-z]+)$/.exec(uri);
  const port = m ? Number(m[1]) : NaN;
  if (m && KINDS.includes(m[2] as GameResourceKind) && port >= 1 && port <= 65535)
    return { kind: m[2] as GameResourceKind, port };
  throw usageError(
    `There is no resource '${uri.slice(0, 200)}'. The resources are ${INSTANCES_URI} and, for the game on a port, ` +
      `${KINDS.map((k) => `gamebridge://game/{port}/${k}`).join(', ')} (resources/templates/list).`,
  );
}
