/**
 * Skills (docs/COMPOSITES.md, "Skills"): an agent teaches the bridge a sequence of steps over
 * MCP (define_skill, skill_from_session), the daemon keeps it in the project's
 * gamebridge-skills/ and offers it as a tool of the game's `skills` toolset, called by
 * call_tool, and as a prompt. Through the real proxy and daemon, on the real example game.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { Reaper, removeDir, startExampleGame, stopDaemon, tempHome, waitFor } from './helpers/procs.js';

const reaper = new Reaper();
let home: string;
let project: string;
let port: number;
let mcp: McpHandle;
const skillPath = (name: string) => join(project, 'gamebridge-skills', `${name}.json`);

beforeAll(async () => {
  home = tempHome();
  project = tempHome('gb-skills-project-');
  [port] = await freeRange(1);
  await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home });
  writeProject(project, { ports: [port] });
  mcp = await connect({ args: ['--port', String(port), '--no-scan'], env: { GAME_BRIDGE_HOME: home }, cwd: project });
}, 60000);

afterAll(async () => {
  await mcp?.close();
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
  removeDir(project);
});

const define = (skill: Record<string, unknown>) => gameCall(mcp, port, 'define_skill', skill);

describe('skills defined over MCP and called with call_tool', () => {
  test('a skill defined with arguments answers each step in order and the state after', async () => {
    const d = await define({
      name: 'drop-two',
      description: 'Start a round and drop two crates at x.',
      args: [{ name: 'x', type: 'number', required: true }],
      steps: [
        { do: 'call_tool', name: 'start' },
        { do: 'call_tool', name: 'drop', arguments: { x: '${x}', settle: false } },
        { do: 'call_tool', name: 'drop', arguments: { x: '${x}', settle: false } },
        { expect: { path: 'ui.screen', equals: 'GameScreen' } },
      ],
    });
    expect(d.isError).toBe(false);
    expect(d.json).toMatchObject({ name: 'drop-two', file: skillPath('drop-two'), only: 'Crate Stack', steps: 4 });
    expect(JSON.parse(readFileSync(skillPath('drop-two'), 'utf8'))).toMatchObject({
      gamebridgeSkill: 1,
      name: 'drop-two',
    });
    const r = await gameCall(mcp, port, 'drop-two', { x: 40 });
    expect(r.isError).toBe(false);
    expect(r.json).toMatchObject({ tool: 'drop-two', via: 'skill', ran: 4 });
    expect(r.json.steps.map((s: any) => [s.step, s.did])).toEqual([
      ['1', 'start'],
      ['2', 'drop'],
      ['3', 'drop'],
      ['4', 'expect ui.screen equals "GameScreen"'],
    ]);
    expect(r.json.state.ui.screen).toBe('GameScreen');
    expect(r.json.state.game.crates.length).toBeGreaterThanOrEqual(2);
  });

  test('an if takes its branch and a repeat {until} stops when the condition holds', async () => {
    const d = await define({
      name: 'stack-to',
      description: 'Drop crates until there are n.',
      args: [{ name: 'n', type: 'integer', default: 3 }],
      steps: [
        { do: 'call_tool', name: 'restart' },
        { if: { path: 'ui.screen', equals: 'MenuScreen' }, then: [{ do: 'call_tool', name: 'start' }], else: [] },
        {
          repeat: { times: 10, until: { path: 'game.crates.length', gte: '${n}' } },
          steps: [{ do: 'call_tool', name: 'drop', arguments: { x: 50, settle: false } }],
        },
      ],
    });
    expect(d.isError).toBe(false);
    const r = await gameCall(mcp, port, 'stack-to', { n: 3 });
    expect(r.isError).toBe(false);
    const repeat = r.json.steps.find((s: any) => s.did === 'repeat');
    expect(repeat.answer).toEqual({ passes: 3, until: true });
    expect(r.json.steps.find((s: any) => s.did.startsWith('if ')).answer).toEqual({ held: false });
    expect(r.json.state.game.crates).toHaveLength(3);
  });

  test('a failing step stops the skill, naming the step and giving the state', async () => {
    await define({
      name: 'wrong-screen',
      description: 'Expects a screen the game is not on.',
      steps: [
        { do: 'call_tool', name: 'peek' },
        { expect: { path: 'ui.screen', equals: 'NoSuchScreen' } },
        { do: 'call_tool', name: 'menu' },
      ],
    });
    const r = await gameCall(mcp, port, 'wrong-screen');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^BridgeUsageError: skill 'wrong-screen' stopped at step 2: /);
    expect(r.text).toMatch(/The state after: \{.*"screen":"GameScreen"/);
    expect((await gameCall(mcp, port, 'get_state', { path: 'ui.screen' })).json.value).toBe('GameScreen');
  });

  test('the step budget stops a skill that would run more steps', async () => {
    await define({
      name: 'peek-many',
      description: 'Peeks many times.',
      maxSteps: 5,
      steps: [{ repeat: { times: 10 }, steps: [{ do: 'call_tool', name: 'peek' }] }],
    });
    const r = await gameCall(mcp, port, 'peek-many');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/stopped at step 1\.repeat\.1: the step budget of 5 ran out/);
  });

  test('the time budget stops a skill that takes longer', async () => {
    await define({
      name: 'slow',
      description: 'Waits for what never comes.',
      maxMs: 300,
      steps: [{ wait: { path: 'ui.screen', equals: 'NeverScreen' } }, { do: 'call_tool', name: 'peek' }],
    });
    const r = await gameCall(mcp, port, 'slow');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/stopped at step 1: /);
  });

  test('a malformed definition is refused with every error, each with its step', async () => {
    const r = await define({
      name: 'broken',
      description: 'Everything wrong.',
      args: [{ name: 'x', type: 'number' }],
      steps: [
        { do: 'call_tool', name: 'no_such_tool' },
        { do: 'call_tool', name: 'drop', arguments: { x: 'left' } },
        { do: 'call_tool', name: 'drop', arguments: { x: '${y}' } },
        { repeat: { times: 2 }, steps: [{ expect: { path: 'a' } }] },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^BridgeUsageError: define_skill: the skill 'broken' was not kept; 4 problems/);
    expect(r.text).toMatch(/step 1: 'no_such_tool' is no tool of this game/);
    expect(r.text).toMatch(/step 2: .*x/);
    expect(r.text).toMatch(/step 3: \$\{y\} is not an argument/);
    expect(r.text).toMatch(/step 4\.repeat\.1 'expect'/);
    expect(existsSync(skillPath('broken'))).toBe(false);
  });

  test('a skill name with ../ in it is refused and nothing is written', async () => {
    const r = await define({ name: '../escape', description: 'x', steps: [{ do: 'call_tool', name: 'peek' }] });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^BridgeUsageError: /);
    expect(existsSync(join(project, 'escape.json'))).toBe(false);
  });

  test('an existing skill is kept unless overwrite is true', async () => {
    const again = { name: 'drop-two', description: 'Replaced.', steps: [{ do: 'call_tool', name: 'peek' }] };
    const r = await define(again);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/exists; nothing was written\. Give overwrite: true/);
    const o = await define({ ...again, name: 'peek-once', overwrite: true });
    expect(o.isError).toBe(false);
  });

  test('the skills toolset lists the skills', async () => {
    const ts = await call(mcp, 'list_toolsets', { port });
    expect(ts.json.toolsets.find((t: any) => t.name === 'skills').tools).toEqual(
      expect.arrayContaining(['drop-two', 'stack-to', 'peek-once']),
    );
  });

  test('the skills toolset describes a read-only skill as read-only', async () => {
    const d = await call(mcp, 'describe_toolset', { port, toolset: 'skills' });
    const byName = Object.fromEntries(d.json.tools.map((t: any) => [t.name, t]));
    expect(byName['peek-once'].readOnly).toBe(true);
    expect(byName['drop-two'].readOnly).toBe(false);
    expect(byName['drop-two'].inputSchema.required).toEqual(['x']);
  });

  test('`only` keeps a skill for another game from this one', async () => {
    const file = skillPath('other-game');
    writeFileSync(
      file,
      JSON.stringify({
        gamebridgeSkill: 1,
        name: 'other-game',
        description: 'For another game.',
        only: 'Orbital Freight',
        steps: [{ do: 'call_tool', name: 'peek' }],
      }),
    );
    const r = await gameCall(mcp, port, 'other-game');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^CommandRejected: The game on port \d+ does not know 'other-game'/);
  });

  test('a skill for every game, overwritten, stays a skill for every game', async () => {
    const file = skillPath('every-game');
    mkdirSync(dirname(file), { recursive: true });
    const steps = [{ do: 'call_tool', name: 'peek' }];
    writeFileSync(file, JSON.stringify({ gamebridgeSkill: 1, name: 'every-game', description: 'Any game.', steps }));
    const r = await define({ name: 'every-game', description: 'Any game, peeking.', steps, overwrite: true });
    expect(r.isError ? r.text : r.json.only).toBeNull();
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    expect(kept.description).toBe('Any game, peeking.');
    expect(kept).not.toHaveProperty('only');
  });

  test('skill_from_session makes a skill of the last recorded calls, a chosen value becoming an argument', async () => {
    await gameCall(mcp, port, 'restart');
    const recorded = (await gameCall(mcp, port, 'drop', { x: 77, settle: false })).isError;
    expect(recorded).toBe(false);
    await gameCall(mcp, port, 'drop', { x: 77, settle: false });
    await gameCall(mcp, port, 'wait_for', { path: 'game.crates.length', gte: 2 });
    const r = await gameCall(mcp, port, 'skill_from_session', {
      name: 'two-at',
      description: 'Restart and drop two crates at x.',
      args: [{ name: 'x', value: 77 }],
    });
    expect(r.isError).toBe(false);
    const file = JSON.parse(readFileSync(skillPath('two-at'), 'utf8'));
    const tail = file.steps.slice(-4);
    expect(tail).toEqual([
      { do: 'call_tool', name: 'restart', arguments: {} },
      { do: 'call_tool', name: 'drop', arguments: { x: '${x}', settle: false } },
      { do: 'call_tool', name: 'drop', arguments: { x: '${x}', settle: false } },
      { wait: { path: 'game.crates.length', gte: 2 } },
    ]);
    expect(file.args).toEqual([{ name: 'x', type: 'integer', default: 77 }]);
    const run = await gameCall(mcp, port, 'two-at', { x: 20 });
    expect(run.isError).toBe(false);
    expect(run.json.state.game.crates.every((c: any) => Math.abs(c.x - 20) < 30)).toBe(true);
  });

  test('delete_skill removes the file and the tool', async () => {
    const r = await gameCall(mcp, port, 'delete_skill', { name: 'peek-once' });
    expect(r.json).toMatchObject({ deleted: true });
    expect(existsSync(skillPath('peek-once'))).toBe(false);
    expect((await gameCall(mcp, port, 'peek-once')).isError).toBe(true);
  });
});

describe('skills offered as prompts and as --eager tools', () => {
  let eager: McpHandle;
  let promptChanges = 0;
  let toolChanges = 0;

  beforeAll(async () => {
    mcp.client.setNotificationHandler(PromptListChangedNotificationSchema, () => void promptChanges++);
    eager = await connect({
      args: ['--port', String(port), '--no-scan', '--eager'],
      env: { GAME_BRIDGE_HOME: home },
      cwd: project,
    });
    eager.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolChanges++);
    await eager.client.listTools(); // the eager set as it is before the skill
  }, 60000);

  afterAll(async () => {
    await eager?.close();
  });

  test("a skill is a prompt skill_<name> whose arguments are the skill's, filled into the call it suggests", async () => {
    const { prompts } = await mcp.client.listPrompts();
    const p = prompts.find((x) => x.name === 'skill_drop-two');
    expect(p?.arguments).toEqual([{ name: 'x', description: '(number)', required: true }]);
    expect(p?.description).toMatch(
      /^Start a round and drop two crates at x\. \(a skill of Crate Stack :\d+, 4 steps\)$/,
    );
    const got = await mcp.client.getPrompt({ name: 'skill_drop-two', arguments: { x: '40' } });
    const text = (got.messages[0].content as { text: string }).text;
    expect(text).toContain(`\`call_tool\` {port: ${port}, name: "drop-two", arguments: {"x":40}}`);
    expect(text).toContain('It changes the game');
    await expect(mcp.client.getPrompt({ name: 'skill_drop-two', arguments: {} })).rejects.toThrow(
      /BridgeUsageError: The prompt 'skill_drop-two' needs 'x'/,
    );
  });

  describe('a skill defined while an --eager client is connected', () => {
    let prompts0: number, tools0: number;
    let d: Awaited<ReturnType<typeof define>>;
    beforeAll(async () => {
      [prompts0, tools0] = [promptChanges, toolChanges];
      d = await define({
        name: 'look-twice',
        description: 'Peek twice.',
        steps: [
          { do: 'call_tool', name: 'peek' },
          { do: 'call_tool', name: 'peek' },
        ],
      });
    }, 60000);

    test('is announced by prompts and --eager tools list_changed', async () => {
      expect(d.isError).toBe(false);
      await waitFor('prompts/list_changed', () => promptChanges > prompts0, 20000);
      await waitFor('tools/list_changed on the --eager client', () => toolChanges > tools0, 20000);
      expect((await mcp.client.listPrompts()).prompts.map((x) => x.name)).toContain('skill_look-twice');
    });

    test('runs as the flat --eager tool', async () => {
      await waitFor('tools/list_changed on the --eager client', () => toolChanges > tools0, 20000);
      const flat = (await eager.client.listTools()).tools.find((t) => t.name === `g${port}_skills_look-twice`);
      expect(flat?.annotations?.readOnlyHint).toBe(true);
      const r = (await eager.client.callTool({ name: `g${port}_skills_look-twice`, arguments: {} })) as any;
      expect(r.isError).toBeFalsy();
      expect(JSON.parse(r.content[0].text)).toMatchObject({ via: 'skill', ran: 2 });
    });
  });

  test('deleting a skill announces list_changed and takes its prompt and --eager tool away', async () => {
    const [prompts0, tools0] = [promptChanges, toolChanges];
    expect((await gameCall(mcp, port, 'delete_skill', { name: 'look-twice' })).isError).toBe(false);
    await waitFor('prompts/list_changed', () => promptChanges > prompts0, 20000);
    await waitFor('tools/list_changed on the --eager client', () => toolChanges > tools0, 20000);
    expect((await mcp.client.listPrompts()).prompts.map((x) => x.name)).not.toContain('skill_look-twice');
    expect((await eager.client.listTools()).tools.map((t) => t.name)).not.toContain(`g${port}_skills_look-twice`);
  });
});
