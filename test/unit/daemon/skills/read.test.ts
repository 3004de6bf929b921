/** A skill file as the daemon reads it (docs/COMPOSITES.md, "Skills"): each problem with its line, and a bad edit losing nothing. */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSkills, readSkill } from '../../../../daemon/skills/read.js';

let root: string;
const file = (name: string) => join(root, 'gamebridge-skills', `${name}.json`);
const good = (description: string) =>
  JSON.stringify(
    { gamebridgeSkill: 1, name: 'peek-it', description, steps: [{ do: 'call_tool', name: 'peek' }] },
    null,
    2,
  );

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gb-unit-skill-'));
  mkdirSync(join(root, 'gamebridge-skills'));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

test('a skill file that is not JSON is refused naming its file and the line of the fault', () => {
  writeFileSync(file('peek-it'), '{\n  "gamebridgeSkill": 1,\n  "name": "peek-it"\n  "steps": []\n}\n');
  expect(() => readSkill(file('peek-it'))).toThrow(new RegExp(`^${file('peek-it')}:4: not JSON \\(`));
});

test("a skill file's format problems are each named with their line, in the file's order", () => {
  const text = JSON.stringify(
    {
      gamebridgeSkill: 1,
      name: 'peek-it',
      description: 'Peek.',
      steps: [
        { do: 'call_tool', name: 'peek' },
        { do: 'call_tool', nme: 'peek' },
      ],
      args: [{ name: '1x' }],
    },
    null,
    2,
  );
  writeFileSync(file('peek-it'), text);
  const lines = text.split('\n');
  const nme = lines.findIndex((l) => l.includes('"nme"')) + 1;
  const arg = lines.findIndex((l) => l.includes('"1x"')) + 1;
  expect(() => readSkill(file('peek-it'))).toThrow(`${file('peek-it')}:${nme - 2}: 2 problems: (1) step 2: not a step`);
  expect(() => readSkill(file('peek-it'))).toThrow(`; (2) line ${arg}, args.0.name: a word: letters, digits and _.`);
});

test('a skill file edited badly keeps its last good definition and says why', () => {
  writeFileSync(file('peek-it'), good('Peek once.'));
  expect(loadSkills(root, undefined).skills.map((s) => s.description)).toEqual(['Peek once.']);
  writeFileSync(file('peek-it'), good(''));
  const { skills, problems } = loadSkills(root, undefined);
  expect(skills.map((s) => s.description)).toEqual(['Peek once.']);
  expect(problems).toEqual([expect.stringMatching(/description: .*the skill 'peek-it' runs as it was last read\.$/)]);
});

test('a skill file removed forgets its last good definition', () => {
  writeFileSync(file('peek-it'), good('Peek once.'));
  loadSkills(root, undefined);
  unlinkSync(file('peek-it'));
  expect(loadSkills(root, undefined).skills).toEqual([]);
  writeFileSync(file('peek-it'), '{');
  expect(loadSkills(root, undefined)).toMatchObject({ skills: [], problems: [expect.stringMatching(/:1: not JSON/)] });
});
