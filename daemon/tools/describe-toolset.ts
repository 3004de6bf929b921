import { usageError } from '../../shared/errors.js';
import { toolInputSchema } from '../game/manifest.js';
import { servesGame } from '../composites/registry.js';
import { compositeSchema } from '../composites/run.js';
import { portProperty } from './list-toolsets.js';
import { defineTool } from './types.js';

export const COMPOSITES_TOOLSET = 'composites';

export const describeToolsetTool = defineTool({
  name: 'describe_toolset',
  title: 'Describe a toolset',
  description:
    'Show every tool of one toolset of a running game, with its arguments as JSON Schema and whether it is read-only. ' +
    'Then run a tool with call_tool {port, name, arguments}.',
  inputSchema: {
    type: 'object',
    properties: {
      port: portProperty,
      toolset: { type: 'string', description: "Toolset name from list_toolsets, e.g. 'bridge'." },
    },
    required: ['toolset'],
  },
  readOnly: true,
  async handler(args, ctx) {
    const port = ctx.resolvePort(args);
    ctx.adoptIfDetached(port);
    const m = await ctx.manifest(port);
    const name = String(args.toolset);
    if (name === COMPOSITES_TOOLSET) {
      const composites = (await ctx.composites.all()).filter((c) => servesGame(c, m.game.name));
      return {
        port,
        toolset: name,
        description: 'Routines of this project that chain several game commands.',
        tools: composites.map((c) => ({ name: c.name, description: c.description, readOnly: c.readOnly === true, inputSchema: compositeSchema(c) })),
      };
    }
    const ts = m.toolsets.find((t) => t.name === name);
    if (!ts) {
      throw usageError(`The game on port ${port} has no toolset '${name}'. Its toolsets: ${m.toolsets.map((t) => t.name).join(', ')}. Call list_toolsets {port: ${port}} to see them.`);
    }
    return {
      port,
      toolset: ts.name,
      description: ts.description,
      tools: ts.tools.map((t) => ({ name: t.name, description: t.description, readOnly: t.readOnly, inputSchema: toolInputSchema(t) })),
    };
  },
});
