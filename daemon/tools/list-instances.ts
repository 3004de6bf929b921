/**
 * list_instances, and the listing every other reader of "which games are there" shares (the
 * resources, --eager): the session's scan range and registry, plus the games this daemon launched.
 */
import { listInstances, type ListOptions, type ListResult } from '../discovery/list.js';
import { exitSummary } from '../launcher/index.js';
import type { ToolContext } from '../tool-framework/context.js';
import { defineTool, z } from '../tool-framework/define.js';
import { listInstancesAnswer } from '../../shared/answers/instances.js';

/** The games this session can see: its scan range and registry, and every game this daemon launched. */
export function listSeen(
  ctx: ToolContext,
  more: Omit<ListOptions, 'config' | 'cache' | 'local' | 'clients' | 'extraPorts'> = {},
): Promise<ListResult> {
  return listInstances({
    config: ctx.config,
    cache: ctx.cache,
    local: ctx.surfaces,
    clients: (port) => ctx.client(port),
    extraPorts: ctx.launcher.list().map((i) => i.port),
    ...more,
  });
}

export const listInstancesTool = defineTool({
  name: 'list_instances',
  output: listInstancesAnswer,
  title: 'List game instances',
  description:
    'Find running games: the self-registration registry plus a port scan, each verified with /health. ' +
    'Returns live games (port, name, screen, toolsets, who launched them), games launched here that exited (how, when, last output: until relaunched or pruned), ' +
    'stale registry entries, ports that answer but are not games, and free ports. ' +
    'Next: list_toolsets {port} to see what a game can do, or launch_instance if none is running.',
  input: z.object({
    prune: z
      .boolean()
      .optional()
      .describe(
        'Delete stale registry entries whose port is verified dead, and forget the exit records listed. Default: false.',
      ),
  }),
  // prune deletes registry files, so the tool is not read-only; it removes only entries whose
  // game is verified gone (nothing anyone could still use), and pruning twice prunes nothing more.
  effect: { readOnly: false, destructive: false, idempotent: true },
  replay: (args) => (args.prune === true ? 'unsafe' : 'safe'),
  async handler(args, ctx) {
    const launcher = ctx.launcher;
    const result = await listSeen(ctx, {
      launched: (port) => {
        const inst = launcher.get(port);
        return inst ? { pid: inst.pid, cwd: inst.cwd, owner: ctx.owners.label(inst, ctx.sessionId) } : undefined;
      },
      prune: args.prune === true,
      ownerLabel: (owner) => (owner === ctx.sessionId ? 'you' : 'another session'),
    });
    // Keys, buttons and touches held through a browser this daemon opened, beside the kit's.
    for (const item of result.live) {
      const browserHeld = launcher.webGame(item.port)?.hands.held() ?? [];
      if (!browserHeld.length) continue;
      const label = (owner: string) => (owner === ctx.sessionId ? 'you' : 'another session');
      item.held = [
        ...(item.held ?? []),
        ...browserHeld.map((h) => ({
          input: h.input,
          owner: label(h.owner),
          leaseMsLeft: h.leaseMsLeft,
          via: 'browser' as const,
        })),
      ];
    }
    // A game launched here that exited is listed under `exited`, with its facts, not as a stale registry entry.
    const exited = launcher.exitedList();
    const isExited = (port: number, pid: number) => exited.some((r) => r.port === port && r.pid === pid);
    // a page without the kit publishes no command list and needs none: the bridge plays it through the browser
    const webPage = (port: number) => launcher.webGame(port)?.standIn !== undefined;
    const answer = {
      ...result,
      live: result.live.map((i) =>
        i.status === 'live-no-manifest' && webPage(i.port) ? { ...i, status: 'live-web-page' as const } : i,
      ),
      stale: result.stale.filter((s) => !isExited(s.port, s.pid)),
      exited: exited.map((r) => ({ ...exitSummary(r), owner: ctx.owners.label(r, ctx.sessionId) })),
    };
    if (args.prune === true) launcher.pruneExited();
    return { json: answer };
  },
});
