/**
 * --eager: every tool of every live game advertised flatly, for clients that cannot
 * walk discovery, the project's skills for it included (`g7820_skills_<name>`). Names carry the
 * port and toolset (`g7820_play_drop`) so they never collide across instances;
 * `notifications/tools/list_changed` goes out when the set or a tool in it changes (a skill kept, deleted or edited
 * refreshes it at once: sessions/session.ts).
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { ReplayVerdict } from '../../shared/frames.js';
import { toolInputSchema, type GameTool } from '../game/manifest.js';
import { callGameTool } from '../tools/call-tool.js';
import { listSeen } from '../tools/list-instances.js';
import { skillsOfPort } from '../tools/skill-offers.js';
import { annotationsOf, replayOf } from '../tool-framework/define.js';
import type { SessionContext } from './context.js';
import type { ToolAnswer, ToolCallExtra } from '../tool-framework/types.js';

const RECHECK_MS = 2000;

interface FlatTool {
  port: number;
  tool: GameTool;
  /** the name call_tool is given: a skill's own, a manifest tool's toolset.name */
  callName: string;
  advertised: Tool;
}

export function flatName(port: number, tool: GameTool): string {
  return `g${port}_${tool.toolset}_${tool.name}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128);
}

export class EagerTools {
  private flat = new Map<string, FlatTool>();
  private signature = '';
  private listeners = new Set<() => void>();
  private timer: NodeJS.Timeout;
  private unlisten: () => void;
  private refreshing?: Promise<void>;

  constructor(private ctx: SessionContext) {
    this.timer = setInterval(() => void this.refresh(), RECHECK_MS);
    this.timer.unref();
    this.unlisten = ctx.state.onInstancesChanged(() => void this.refresh());
  }

  onChange(l: () => void): void {
    this.listeners.add(l);
  }

  async list(): Promise<Tool[]> {
    await this.refresh();
    return [...this.flat.values()].map((f) => f.advertised);
  }

  /** Re-read the live games and their manifests; tell listeners when the flat set changed. */
  refresh(): Promise<void> {
    if (!this.refreshing) {
      this.refreshing = this.doRefresh().finally(() => (this.refreshing = undefined));
    }
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const ctx = this.ctx;
    const result = await listSeen(ctx).catch(() => undefined);
    if (!result) return;
    const next = new Map<string, FlatTool>();
    for (const inst of result.live) {
      const m = await ctx.manifest(inst.port).catch(() => undefined);
      if (!m) continue;
      const skills = (await skillsOfPort(ctx, inst.port, inst.game)).map((o) => o.tool);
      const all = [
        ...m.toolsets.flatMap((ts) => ts.tools.map((tool) => ({ tool, callName: `${tool.toolset}.${tool.name}` }))),
        ...skills.map((tool) => ({ tool, callName: tool.name })),
      ];
      for (const { tool, callName } of all) {
        const name = flatName(inst.port, tool);
        next.set(name, {
          port: inst.port,
          tool,
          callName,
          advertised: {
            name,
            title: `${inst.game ?? 'game'} :${inst.port} ${tool.name}`,
            description: `[${inst.game ?? 'game'} on port ${inst.port}, toolset ${tool.toolset}] ${tool.description}`,
            inputSchema: toolInputSchema(tool) as Tool['inputSchema'],
            annotations: annotationsOf({ readOnly: tool.readOnly }),
          },
        });
      }
    }
    // what a client sees of each tool, so a skill whose description or arguments changed is announced too
    const signature = next.size
      ? JSON.stringify([...next].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, f]) => f.advertised))
      : '';
    this.flat = next;
    if (signature !== this.signature) {
      const first = this.signature === '' && signature === '';
      this.signature = signature;
      if (!first) for (const l of this.listeners) l();
    }
  }

  async call(name: string, args: Record<string, unknown>, extra: ToolCallExtra): Promise<ToolAnswer | undefined> {
    let f = this.flat.get(name);
    if (!f) {
      await this.refresh();
      f = this.flat.get(name);
    }
    if (!f) return undefined;
    this.ctx.adoptIfDetached(f.port);
    return callGameTool(this.ctx, f.port, f.callName, args, extra);
  }

  verdict(name: string): ReplayVerdict {
    const f = this.flat.get(name);
    return f ? replayOf({ readOnly: f.tool.readOnly }) : 'unsafe';
  }

  stop(): void {
    clearInterval(this.timer);
    this.unlisten();
  }
}
