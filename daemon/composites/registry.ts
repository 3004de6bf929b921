/**
 * The composites a session can reach: those given to the library API
 * (startStdioServer(config, {composites})) and, with the daemon, the module a project names
 * in gamebridge.json (loaded per project, reloaded when the file changes).
 */
import type { Composite } from './types.js';

export function servesGame(c: Composite, gameName: string | undefined): boolean {
  if (c.only === undefined) return true;
  const only = Array.isArray(c.only) ? c.only : [c.only];
  return gameName !== undefined && only.includes(gameName);
}

export class CompositeRegistry {
  /** the project module's composites as last loaded, for the synchronous replay verdict */
  private lastProject: Composite[] = [];

  constructor(
    private builtIn: Composite[] = [],
    /** the project module's composites, re-read on every lookup so edits apply at once */
    private project: (() => Promise<Composite[]>) & { problem?: () => string | undefined } = async () => [],
  ) {}

  /** Why the project's composites module did not load the last time it was read (said to the agent, not only logged). */
  problem(): string | undefined {
    return this.project.problem?.();
  }

  async all(): Promise<Composite[]> {
    const fromProject = await this.project();
    this.lastProject = fromProject;
    // A project composite with the same name as a built-in one wins: it is the closer declaration.
    const names = new Set(fromProject.map((c) => c.name));
    return [...fromProject, ...this.builtIn.filter((c) => !names.has(c.name))];
  }

  /** The composites that serve the game of this name (list_toolsets, describe_toolset, call_tool's hints). */
  async forGame(gameName: string | undefined): Promise<Composite[]> {
    return (await this.all()).filter((c) => servesGame(c, gameName));
  }

  async find(name: string, gameName: string | undefined): Promise<Composite | undefined> {
    return (await this.forGame(gameName)).find((c) => c.name === name);
  }

  /**
   * Synchronous lookup for the replay verdict (built-ins and the last project load). With the
   * game unknown, a composite limited by `only` may or may not apply: it is returned, so the
   * verdict leans on it (a caller treats an uncertain match as unsafe unless it is readOnly).
   */
  findSync(name: string, gameName: string | undefined): Composite | undefined {
    const serves = (c: Composite) => c.name === name && (gameName === undefined || servesGame(c, gameName));
    return this.lastProject.find(serves) ?? this.builtIn.find(serves);
  }
}
