/**
 * Skill files edited by hand (docs/COMPOSITES.md, "Skills"): the daemon notices a file of
 * gamebridge-skills/ changed, added or removed and announces prompts (and --eager tools)
 * list_changed, as define_skill does; a file saved malformed is reported with its file and line
 * and the skill keeps its last good definition. The real daemon and proxy through the SDK
 * client, on the real example game.
 */
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
let eager: McpHandle;
let promptChanges = 0;
let toolChanges = 0;
const skillPath = (name: string) => join(project, 'gamebridge-skills', `${name}.json`);
const skill = (name: string, description: string) => ({
  gamebridgeSkill: 1,
  name,
  description,
  steps: [{ do: 'call_tool', name: 'peek' }],
});
const save = (name: string, text: string) => writeFileSync(skillPath(name), text);
const prompt = async (name: string) => (await mcp.client.listPrompts()).prompts.find((p) => p.name === `skill_${name}`);

beforeAll(async () => {
  home = tempHome();
  project = tempHome('gb-skills-edit-project-');
  [port] = await freeRange(1);
  await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home });
  writeProject(project, { ports: [port] });
  mkdirSync(join(project, 'gamebridge-skills'));
  save('peek-it', JSON.stringify(skill('peek-it', 'Peek once.'), null, 2));
  const args = ['--port', String(port), '--no-scan'];
  mcp = await connect({ args, env: { GAME_BRIDGE_HOME: home }, cwd: project });
  eager = await connect({ args: [...args, '--eager'], env: { GAME_BRIDGE_HOME: home }, cwd: project });
  mcp.client.setNotificationHandler(PromptListChangedNotificationSchema, () => void promptChanges++);
  eager.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolChanges++);
  // what each client knows before the edits: the daemon reads the project's skills to answer
  expect((await prompt('peek-it'))?.description).toMatch(/^Peek once\./);
  await eager.client.listTools();
}, 60000);

afterAll(async () => {
  await eager?.close();
  await mcp?.close();
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
  removeDir(project);
});

/** Wait for both announcements after `edit`, as a client hears them. */
async function announced(edit: () => void): Promise<void> {
  const [p0, t0] = [promptChanges, toolChanges];
  edit();
  await waitFor('prompts/list_changed', () => promptChanges > p0, 20000);
  await waitFor('tools/list_changed on the --eager client', () => toolChanges > t0, 20000);
}

test('a skill file edited by hand is announced and its prompt says the new description', async () => {
  await announced(() => save('peek-it', JSON.stringify(skill('peek-it', 'Peek at the state once.'), null, 2)));
  expect((await prompt('peek-it'))?.description).toMatch(/^Peek at the state once\./);
  const flat = (await eager.client.listTools()).tools.find((t) => t.name === `g${port}_skills_peek-it`);
  expect(flat?.description).toMatch(/Peek at the state once\./);
});

test('a skill file added by hand is announced as a new prompt', async () => {
  await announced(() => save('peek-too', JSON.stringify(skill('peek-too', 'Peek as well.'))));
  expect((await prompt('peek-too'))?.description).toMatch(/^Peek as well\./);
});

test('a skill file removed by hand is announced and its prompt is gone', async () => {
  const [p0] = [promptChanges];
  unlinkSync(skillPath('peek-too'));
  await waitFor('prompts/list_changed', () => promptChanges > p0, 20000);
  expect(await prompt('peek-too')).toBeUndefined();
});

describe('a skill file saved malformed', () => {
  const file = () => skillPath('peek-it');

  test('that is not JSON is reported with its file and line and the skill keeps its last definition', async () => {
    const [p0] = [promptChanges];
    save('peek-it', '{\n  "gamebridgeSkill": 1,\n  "name": "peek-it",\n  "description": "Broken"\n  "steps": []\n}\n');
    await waitFor('prompts/list_changed', () => promptChanges > p0, 20000);
    expect((await prompt('peek-it'))?.description).toMatch(/^Peek at the state once\./);
    const listed = await call(mcp, 'list_toolsets', { port });
    expect(listed.json.toolsets.find((t: { name: string }) => t.name === 'skills')?.tools).toContain('peek-it');
    expect(listed.json.warnings).toContainEqual(
      expect.stringMatching(new RegExp(`^${file()}:5: not JSON \\(.*the skill 'peek-it' runs as it was last read`)),
    );
    const run = await gameCall(mcp, port, 'peek-it');
    expect(run.isError ? run.text : run.json.via).toBe('skill');
  });

  test("that breaks the format is reported with define_skill's words, each problem's line and its step", async () => {
    const [p0] = [promptChanges];
    const steps = [
      { do: 'call_tool', name: 'peek' },
      { do: 'call_tool', nme: 'peek' },
    ];
    const text = JSON.stringify({ ...skill('peek-it', ''), steps }, null, 2);
    save('peek-it', text);
    await waitFor('prompts/list_changed', () => promptChanges > p0, 20000);
    const lines = text.split('\n');
    const [description, step] = ['"description"', '"nme"'].map((k) => lines.findIndex((l) => l.includes(k)) + 1);
    const listed = await call(mcp, 'list_toolsets', { port });
    expect(listed.json.warnings).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${file()}:${description}: 2 problems: \\(1\\) description: .*; \\(2\\) line ${step - 2}, step 2: not a step`,
        ),
      ),
    );
    expect((await prompt('peek-it'))?.description).toMatch(/^Peek at the state once\./);
  });

  test('fixed again, it is the skill once more', async () => {
    await announced(() => save('peek-it', JSON.stringify(skill('peek-it', 'Peek, fixed.'))));
    expect((await prompt('peek-it'))?.description).toMatch(/^Peek, fixed\./);
    expect((await call(mcp, 'list_toolsets', { port })).json.warnings ?? []).toEqual([]);
  });
});
