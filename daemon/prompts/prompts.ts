/**
 * The bridge's MCP prompts (docs/TOOLS.md, "Resources, prompts and the skill"): short messages that
 * walk an agent along the path that works (launch, snapshot, act, check, save_test). Claude Code
 * offers them as slash commands. Every tool a prompt names in backquotes is an MCP tool or a
 * bridge tool (test/mcp-native.test.ts checks).
 */
import { usageError } from '../../shared/errors.js';

interface PromptArg {
  name: string;
  description: string;
  required: boolean;
}

interface PromptDef {
  name: string;
  title: string;
  description: string;
  arguments: PromptArg[];
  text(args: Record<string, string>): string;
}

/** Said first in every prompt: the bridge's own tools are not MCP tools of their own. */
const HOW =
  'Game tools and bridge tools (snapshot, click, wait_for, assert, save_test, …) are run with `call_tool` {port, name, arguments}; `describe_toolset` {port, toolset: "bridge"} lists the bridge ones.';
const LAUNCH =
  '1. Find the game: `list_instances`. If none of this project is running, `launch_instance` starts the one gamebridge.json declares and answers its port.';
const LOOK =
  '2. Look: `call_tool` {port, name: "snapshot"} shows what is on screen with a ref for each node (on a game without a UI tree, `get_state` with a path reads the state); `list_toolsets` and `describe_toolset` show what the game can do.';
const ACT =
  '3. Act as a player would: `call_tool` {port, name: "click", arguments: {ref}} on a node, or the game\'s own tools by name; every answer is the state after the game applied it.';
const CHECK =
  '4. Check: `wait_for_node` for something to appear, `wait_for` {path, equals|gt|…} for a state value, `assert` {path, <op>: value} for what must hold now, `screenshot` to see it.';

export const PROMPTS: readonly PromptDef[] = [
  {
    name: 'playtest',
    title: 'Playtest the game',
    description: 'Play the game toward a goal as a player would, report what happened, and keep the run as a test.',
    arguments: [{ name: 'goal', description: 'What to try to do, e.g. "reach a score of 100"', required: true }],
    text: (a) =>
      [
        `Playtest the game through game-bridge. Goal: ${a.goal}`,
        HOW,
        LAUNCH,
        LOOK,
        ACT,
        CHECK,
        `5. Repeat 2-4 until the goal is reached or clearly cannot be; then \`save_test\` {name} keeps what you did as a regression test (\`run_test\` {name} plays it again).`,
        'Report: whether the goal was reached, the steps that worked, anything that looked wrong (with the state or screenshot that shows it). Errors start with their class and say what to do next: follow them.',
      ].join('\n'),
  },
  {
    name: 'reproduce_bug',
    title: 'Reproduce a bug',
    description: 'Find the shortest way to make a reported bug happen, prove it with a check, and save it as a test.',
    arguments: [
      { name: 'description', description: 'The bug as reported: what happens, and what should', required: true },
    ],
    text: (a) =>
      [
        `Reproduce this bug in the game through game-bridge: ${a.description}`,
        HOW,
        LAUNCH,
        LOOK,
        ACT.replace('Act as a player would', 'Act out the report step by step'),
        "4. Prove it: `assert` {path, <op>: value} on what should hold (it fails while the bug is there), or `wait_for` / `wait_for_node` for what should happen; a `screenshot` shows what a player sees. `instance_log` {port} shows the game's own output.",
        '5. Make it short: relaunch (`launch_instance` {restart: port}) and repeat with only the steps that matter. Then `save_test` {name} saves the reproduction; `run_test` {name} must fail until the bug is fixed.',
        "Report: the shortest steps, what happened against what should, and the saved test's name.",
      ].join('\n'),
  },
  {
    name: 'compare_builds',
    title: 'Compare two builds',
    description: 'Play the same steps on two builds of the game and report the first place they differ.',
    arguments: [
      { name: 'configA', description: 'The gamebridge.json of the first build (a path)', required: true },
      { name: 'configB', description: 'The gamebridge.json of the second build (a path)', required: true },
    ],
    text: (a) =>
      [
        `Compare two builds of the game through game-bridge: A is ${a.configA}, B is ${a.configB}.`,
        HOW,
        `1. Launch A: \`launch_instance\` {config: "${a.configA}"}; note its port.`,
        LOOK,
        ACT,
        CHECK,
        '5. `save_test` {name} keeps those steps, and `stop_instance` {port} stops A.',
        `6. Run the saved steps on both builds: \`game-bridge-mcp test --compare ${a.configA} ${a.configB} gamebridge-tests/<name>.jsonl\` reports the first step where their states differ (the path and both values). Or launch B (\`launch_instance\` {config: "${a.configB}"}) and \`run_test\` {name} on it.`,
        'Report: where the builds differ, each difference as path, value in A, value in B, and whether it looks intended.',
      ].join('\n'),
  },
  {
    name: 'write_regression_test',
    title: 'Write a regression test',
    description: 'Play a scenario once with checks along the way and save it as a test that runs again with no agent.',
    arguments: [{ name: 'scenario', description: 'What the test plays and checks', required: true }],
    text: (a) =>
      [
        `Write a regression test for this scenario through game-bridge: ${a.scenario}`,
        HOW,
        LAUNCH +
          ' Start from a fresh game (`launch_instance` {restart: port} if one is running) so the test starts where a replay will.',
        LOOK,
        ACT,
        '4. After each step that matters, check it: `wait_for_node` or `wait_for` for what should appear, `assert` {path, <op>: value} for what must hold. Every check becomes an expectation of the test.',
        '5. `save_test` {name} writes gamebridge-tests/<name>.jsonl; `run_test` {name} replays it with no agent and must pass. In CI: `game-bridge-mcp test`.',
        "Report: the test's name and file, the checks it makes, and that run_test passed.",
      ].join('\n'),
  },
  {
    name: 'heal_test',
    title: 'Heal a failing saved test',
    description:
      'Decide whether a saved test fails because the game changed on purpose or because of a bug, and mend only what changed on purpose.',
    arguments: [
      { name: 'test', description: 'The failing test: its file, or its name under gamebridge-tests/', required: true },
      { name: 'failure', description: 'What the run printed for it, if you have it', required: false },
    ],
    text: (a) =>
      [
        `A saved test fails: ${a.test}. Find out whether the game changed on purpose or has a bug. Heal to the truth, not to green: a test edited until it passes can hide the bug it was written to catch.`,
        HOW,
        a.failure
          ? `The run printed:\n${a.failure}`
          : 'Run it to see the failure: `game-bridge-mcp test <file>` (or `run_test` {name} on a running game).',
        '1. Read the failure: the step and line it names, its kind, the expected and actual values, the state around it. When the run kept a trace file of the test, open it: it shows every step with its call, its answer and the state after, so you see where this build first went another way than the recording.',
        '2. A step whose node is gone (NodeGone, with the nearest nodes by role and name): launch the build (`launch_instance`), play up to that step, and look (`call_tool` {port, name: "snapshot"}). If a node with the same role and purpose is there under a new ref or label, the game was changed on purpose: `game-bridge-mcp test --update=locators <file>` re-binds the step and touches no expected value. If the node should be there and is not, that is a bug.',
        "3. An expected value differs (an expect that did not hold, a screenshot that differs): do not edit the test. Reproduce it by hand (`launch_instance`, the same steps, `get_state` {path} or `assert`), and look for why in the game: the release notes, the change that touched it, the game's log (`instance_log` {port}). Only a change someone made on purpose (a rebalanced score, a new screen) makes the new value right.",
        '4. When you cannot show the change was meant, it is a bug: report it (the test, the step, expected against actual, the state, how to reproduce it) and leave the test failing. Never run plain `--update` to make a failure go away; it is for a person who has decided the game changed on purpose.',
        'Report: for each failure, the step, what changed, and your verdict (changed on purpose, or a bug) with the evidence; what you re-bound, and the bugs you reported.',
      ].join('\n'),
  },
];

export const PROMPTS_BY_NAME = new Map(PROMPTS.map((p) => [p.name, p]));

/** prompts/list */
export function listPrompts() {
  return PROMPTS.map((p) => ({ name: p.name, title: p.title, description: p.description, arguments: p.arguments }));
}

/** prompts/get: one user message; a missing argument is a BridgeUsageError that names it. */
export function getPrompt(name: string, args: Record<string, unknown> = {}) {
  const p = PROMPTS_BY_NAME.get(name);
  if (!p)
    throw usageError(
      `There is no prompt '${name}'. The prompts are: ${PROMPTS.map((x) => x.name).join(', ')}, and skill_<name> for each skill of a running game (prompts/list shows them).`,
    );
  const values: Record<string, string> = {};
  for (const a of p.arguments) {
    const v = args[a.name];
    if (a.required && (typeof v !== 'string' || !v.trim()))
      throw usageError(`The prompt '${name}' needs '${a.name}': ${a.description}.`);
    values[a.name] = String(v ?? '').slice(0, 4000);
  }
  return {
    description: p.description,
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: p.text(values) } }],
  };
}

/** The tool names a prompt's text names: in backquotes, and as call_tool's `name: "…"` (what the test checks exist). */
export function toolsNamedBy(text: string): string[] {
  const quoted = [...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
  const called = [...text.matchAll(/name: "([a-z_]+)"/g)].map((m) => m[1]);
  return [...new Set([...quoted, ...called])];
}
