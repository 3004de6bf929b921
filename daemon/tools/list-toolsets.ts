import { BRIDGE_TOOL_NAMES } from '../bridge/index.js';
import { WEBMCP_TOOLSET } from '../bridge/webmcp-toolset.js';
import type { Manifest } from '../game/manifest.js';
import { COMPOSITES_TOOLSET } from '../composites/run.js';
import { gameSkills } from '../bridge/skill-check.js';
import { SKILLS_TOOLSET } from '../skills/skill-file.js';
import { defineTool, portArg, z } from '../tool-framework/define.js';
import { listToolsetsAnswer } from '../../shared/answers/mcp.js';

/** A page without the kit has no command list by design: what it offers instead. */
function pageOffers(port: number, m: Manifest): string {
  const own = m.toolsets.find((t) => t.name === WEBMCP_TOOLSET)?.tools.length ?? 0;
  return (
    `The page on port ${port} runs without the game-bridge kit, so it has no commands of its own: it is played through the browser with the bridge toolset ` +
    '(snapshot reads the page, click, activate, set_value and type act on it, press and pointer send keys and the mouse, screenshot shows it; pause and step hold its clock)' +
    (own
      ? `, and through the ${own} tool${own === 1 ? '' : 's'} the page registers itself (toolset ${WEBMCP_TOOLSET}).`
      : '.')
  );
}

export const listToolsetsTool = defineTool({
  name: 'list_toolsets',
  output: listToolsetsAnswer,
  title: "List a game's toolsets",
  description:
    `List the toolsets a running game publishes (its own commands, grouped, plus the built-in \`bridge\` toolset: ${BRIDGE_TOOL_NAMES.join(', ')}). ` +
    'Game tools are not separate MCP tools: read them with describe_toolset, then run them with call_tool.',
  input: z.object({ port: portArg }),
  effect: { readOnly: true },
  async handler(args, ctx) {
    const port = ctx.resolvePort(args);
    ctx.adoptIfDetached(port);
    await ctx.client(port).health();
    const m = await ctx.manifest(port);
    const toolsets = m.toolsets.map((t) => ({
      name: t.name,
      description: t.description,
      tools: t.tools.map((x) => x.name),
    }));
    // Composites serving this game show up as one more toolset (describe_toolset {toolset: 'composites'}).
    const composites = await ctx.composites.forGame(m.game.name);
    if (composites.length) {
      toolsets.push({
        name: COMPOSITES_TOOLSET,
        description: 'Routines of this project that chain several game commands (call them with call_tool).',
        tools: composites.map((c) => c.name),
      });
    }
    // The project's skills for this game are one more (describe_toolset {toolset: 'skills'}); a file that did not load is said why.
    const { skills, problems } = gameSkills(ctx, port, m.game.name);
    if (skills.length) {
      toolsets.push({
        name: SKILLS_TOOLSET,
        description:
          'Skills taught to the bridge for this game (define_skill, skill_from_session): sequences of steps, called with call_tool.',
        tools: skills.map((s) => s.name),
      });
    }
    // A project composites module that does not load is the agent's business too: it is told why.
    const broken = ctx.composites.problem();
    const warnings = [...m.warnings, ...(broken ? [broken] : []), ...problems];
    return {
      json: {
        port,
        game: m.game.name ?? null,
        version: m.game.version ?? null,
        manifest: m.source,
        ...(ctx.launcher.webGame(port)?.standIn && m.source === 'fallback'
          ? { notice: pageOffers(port, m) }
          : m.notice
            ? { notice: m.notice }
            : {}),
        toolsets,
        ...(m.passthrough ? { passthrough: m.passthrough } : {}),
        next: "describe_toolset {port, toolset} shows each tool's arguments; call_tool {port, name, arguments} runs one.",
        ...(warnings.length ? { warnings } : {}),
      },
    };
  },
});
