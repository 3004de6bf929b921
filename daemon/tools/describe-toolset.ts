import { usageError } from '../../shared/errors.js';
import { BRIDGE_TOOLSET, toolInputSchema } from '../game/manifest.js';
import { servedBridgeTools } from '../bridge/index.js';
import { COMPOSITES_TOOLSET, compositeAsTool } from '../composites/run.js';
import { defineTool, portArg, z } from '../tool-framework/define.js';
import { describeToolsetAnswer } from '../../shared/answers/mcp.js';
import { gameSkills } from '../bridge/skill-check.js';
import { SKILLS_TOOLSET } from '../skills/skill-file.js';
import { resolveGameTool } from './game-tool.js';

export const describeToolsetTool = defineTool({
  name: 'describe_toolset',
  output: describeToolsetAnswer,
  title: 'Describe a toolset',
  description:
    'Show every tool of one toolset of a running game, with its arguments as JSON Schema and whether it is read-only (a bridge tool the game cannot serve says served: false). ' +
    'Then run a tool with call_tool {port, name, arguments}.',
  input: z.object({
    port: portArg,
    toolset: z
      .string()
      .optional()
      .describe("Toolset name from list_toolsets, e.g. 'bridge'. Required (or given as `name`)."),
    name: z.string().optional().describe('Same as toolset (the name the first README used).'),
  }),
  effect: { readOnly: true },
  async handler(args, ctx) {
    const name = args.toolset ?? args.name;
    if (name === undefined)
      throw usageError("describe_toolset: missing required argument 'toolset'. It takes: port, toolset (or name).");
    const port = ctx.resolvePort(args);
    ctx.adoptIfDetached(port);
    const m = await ctx.manifest(port);
    if (name === COMPOSITES_TOOLSET) {
      const composites = await ctx.composites.forGame(m.game.name);
      return {
        json: {
          port,
          toolset: name,
          description: 'Routines of this project that chain several game commands.',
          tools: composites.map((c) => ({
            name: c.name,
            description: c.description,
            readOnly: c.readOnly === true,
            inputSchema: toolInputSchema(compositeAsTool(c)),
          })),
        },
      };
    }
    if (name === SKILLS_TOOLSET) {
      const { skills } = gameSkills(ctx, port, m.game.name);
      return {
        json: {
          port,
          toolset: name,
          description: 'Skills taught to the bridge for this game: sequences of steps, called with call_tool.',
          tools: skills.map((s) => {
            const ref = resolveGameTool(s.name, m, undefined, skills);
            return {
              name: s.name,
              description: s.description,
              readOnly: ref.readOnly,
              inputSchema: toolInputSchema(compositeAsTool({ ...s, run: () => undefined })),
            };
          }),
        },
      };
    }
    const ts = m.toolsets.find((t) => t.name === name);
    if (!ts) {
      throw usageError(
        `The game on port ${port} has no toolset '${name}'. Its toolsets: ${m.toolsets.map((t) => t.name).join(', ')}. Call list_toolsets {port: ${port}} to see them.`,
      );
    }
    // A bridge tool whose need the game does not meet (snapshot without a UI tree) is listed, marked so.
    const served = ts.name === BRIDGE_TOOLSET ? new Set(await servedBridgeTools(ctx, port)) : undefined;
    return {
      whole: true,
      json: {
        port,
        toolset: ts.name,
        description: ts.description,
        tools: ts.tools.map((t) => ({
          name: t.name,
          description: t.description,
          readOnly: t.readOnly,
          ...(t.player ? { player: true } : {}),
          ...(served && !served.has(t.name) ? { served: false } : {}),
          inputSchema: toolInputSchema(t),
        })),
      },
    };
  },
});
