import { servesGame } from '../composites/registry.js';
import { defineTool } from './types.js';

export const portProperty = {
  type: 'integer',
  minimum: 1,
  maximum: 65535,
  description: 'Game port. Default: the client\'s --port / GAME_BRIDGE_PORT, else the one game this session launched, else 7777.',
} as const;

export const listToolsetsTool = defineTool({
  name: 'list_toolsets',
  title: 'List a game\'s toolsets',
  description:
    'List the toolsets a running game publishes (its own commands, grouped, plus the built-in `bridge` toolset: get_state, wait_for, raw_command, health, screenshot). ' +
    'Game tools are not separate MCP tools: read them with describe_toolset, then run them with call_tool.',
  inputSchema: { type: 'object', properties: { port: portProperty } },
  readOnly: true,
  async handler(args, ctx) {
    const port = ctx.resolvePort(args);
    ctx.adoptIfDetached(port);
    const client = ctx.client(port);
    const health = await client.health();
    ctx.noteFrame(port, health.frame as number);
    const m = await ctx.manifest(port);
    const toolsets = m.toolsets.map((t) => ({ name: t.name, description: t.description, tools: t.tools.map((x) => x.name) }));
    // Composites serving this game show up as one more toolset (describe_toolset {toolset: 'composites'}).
    const composites = (await ctx.composites.all()).filter((c) => servesGame(c, m.game.name));
    if (composites.length) {
      toolsets.push({ name: 'composites', description: 'Routines of this project that chain several game commands (call them with call_tool).', tools: composites.map((c) => c.name) });
    }
    return {
      port,
      game: m.game.name ?? null,
      version: m.game.version ?? null,
      manifest: m.source,
      ...(m.notice ? { notice: m.notice } : {}),
      toolsets,
      ...(m.passthrough ? { passthrough: m.passthrough } : {}),
      next: 'describe_toolset {port, toolset} shows each tool\'s arguments; call_tool {port, name, arguments} runs one.',
      ...(m.warnings.length ? { warnings: m.warnings } : {}),
    };
  },
});
