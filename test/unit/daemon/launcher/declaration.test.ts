/**
 * gamebridge.json's schema and the checks after it (daemon/launcher/declaration.ts), on parsed
 * JSON: what each mistake is called, the defaults a short file gets, and the JSON Schema the
 * build ships for editors.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDeclaration } from '../../../../daemon/launcher/declaration.js';
import { declarationJsonSchema, DEFAULT_READY_TIMEOUT_MS } from '../../../../daemon/launcher/declaration-schema.js';

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gb-decl-'));
  mkdirSync(join(dir, 'www'));
  file = join(dir, 'gamebridge.json');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The complaint about `raw`, without the file's name and the closing pointer to `init`. */
function complaint(raw: unknown): string {
  try {
    parseDeclaration(raw, file);
  } catch (e) {
    return (e as Error).message.replace(`${file}: `, '').replace(/\. Fix the file \(see `.*` for a template\)\.$/, '');
  }
  throw new Error('the declaration was accepted');
}

test('a short declaration gets the documented defaults', () => {
  expect(parseDeclaration({ launch: { command: 'game {port}' } }, file)).toMatchObject({
    cwd: dir,
    portRange: Array.from({ length: 20 }, (_, i) => 7820 + i),
    readyTimeoutMs: DEFAULT_READY_TIMEOUT_MS,
    env: {},
  });
});

test('a "$schema" key is accepted', () => {
  expect(parseDeclaration({ $schema: './schema.json', launch: { command: 'game' } }, file).command).toBe('game');
});

test('env values that are numbers or flags become their text', () => {
  expect(parseDeclaration({ launch: { command: 'g', env: { N: 3, F: true } } }, file).env).toEqual({
    N: '3',
    F: 'true',
  });
});

test('a web declaration needs no command and gets headless and kit on', () => {
  expect(parseDeclaration({ launch: { web: { static: 'www' } } }, file)).toMatchObject({
    command: '',
    web: { static: join(dir, 'www'), headless: true, kit: true },
  });
});

test("a web page's seed is kept as text", () => {
  expect(parseDeclaration({ launch: { web: { static: 'www', seed: 42 } } }, file).web?.seed).toBe('42');
});

test('a page without the kit may declare its state expression', () => {
  const web = parseDeclaration({ launch: { web: { static: 'www', kit: false, state: 'window.game' } } }, file).web;
  expect(web).toMatchObject({ kit: false, state: 'window.game' });
});

test('the complaint names the file and says how to get a template', () => {
  expect(() => parseDeclaration({}, file)).toThrow(new RegExp(`^${file}: .*init\` for a template\\)\\.$`));
});

test.each([
  [[], 'the top level must be a JSON object'],
  [{}, '"launch" is missing: it must be an object with at least "command"'],
  [{ launch: { cwd: '.' } }, '"launch.command" is missing: give the shell command that starts the game'],
  [{ launch: { command: '  ' } }, '"launch.command" is missing'],
  [{ name: 3, launch: { command: 'g' } }, '"name" must be a string, got 3'],
  [{ launch: { command: 'g', readyTimeoutMs: 'soon' } }, '"launch.readyTimeoutMs" must be a number, got "soon"'],
  [{ launch: { command: 'g', readyTimeoutMs: 0 } }, '"launch.readyTimeoutMs" must be more than 0'],
  [
    { launch: { command: 'g', portRange: '9000-80' } },
    '"launch.portRange" is "9000-80": give a range like "7820-7839"',
  ],
  [{ launch: { command: 'g', portRange: [] } }, '"launch.portRange" is empty: give a range like "7820-7839"'],
  [{ launch: { command: 'g', portRange: { a: 1 } } }, '"launch.portRange" is {"a":1}: give a range like "7820-7839"'],
  [{ launch: { command: 'g', env: { A: {} } } }, '"launch.env.A" must be a string'],
  [{ launch: { command: 'g', profiles: { s: { args: 3 } } } }, '"launch.profiles.s.args" must be a string, got 3'],
  [{ launch: { web: 'x' } }, '"launch.web" must be an object, got "x"'],
  [{ launch: { web: {} } }, '"launch.web" needs "static" (a folder to serve, e.g. "dist") or "command"'],
  [{ launch: { web: { command: 'a', static: 'www' } } }, '"launch.web" names both "command" and "static"'],
  [{ launch: { web: { command: 'a' } } }, '"launch.web.url" is missing: say where the command serves the page'],
  [{ launch: { web: { command: 'a', url: 'foo' } } }, '"launch.web.url" is "foo": with a command it must be a full'],
  [{ launch: { web: { static: '' } } }, '"launch.web.static" must be a non-empty string or null'],
  [{ launch: { web: { static: 'www', headless: 'no' } } }, '"launch.web.headless" must be true or false, got "no"'],
  [{ launch: { command: 'g' }, composites: '' }, '"composites" must be a path'],
  [{ launch: { web: { static: 'www', seed: 1.5 } } }, '"launch.web.seed" must be a string or a whole number'],
  [{ launch: { web: { static: 'www', seed: 'x'.repeat(201) } } }, '"launch.web.seed" must be a string or a whole'],
  [
    { launch: { web: { static: 'www', state: 'game' } } },
    '"launch.web.state" reads the state of a page without the kit',
  ],
])('%j is refused: %s', (raw, said) => {
  expect(complaint(raw)).toContain(said);
});

test('a folder that does not exist is named as resolved', () => {
  expect(complaint({ launch: { command: 'g', cwd: './nope' } })).toBe(
    `"launch.cwd" points at ${join(dir, 'nope')}, which is not a directory`,
  );
});

test.each([
  [{ launch: { comand: 'g {port}' } }, '"launch.comand" is not a field (did you mean "command"?)'],
  [{ launch: { command: 'g', PortRange: '1-2' } }, '"launch.PortRange" is not a field (did you mean "portRange"?)'],
  [
    { launch: { command: 'g', profiles: { s: { arg: '-s' } } } },
    '"launch.profiles.s.arg" is not a field (did you mean "args"?)',
  ],
  [{ launch: { command: 'g' }, compsites: 'c.mjs' }, '"compsites" is not a field (did you mean "composites"?)'],
])('a misspelt field is named with the field it is close to: %j', (raw, said) => {
  expect(complaint(raw)).toBe(said);
});

test('an unknown field close to none is named with the fields its object takes', () => {
  expect(complaint({ launch: { command: 'g' }, zzzzzz: 1 })).toBe(
    '"zzzzzz" is not a field (the top level takes "name", "launch", "composites")',
  );
});

test('the JSON Schema requires launch, refuses unknown keys and shows the defaults', () => {
  const schema = declarationJsonSchema() as {
    required: string[];
    additionalProperties: boolean;
    properties: { launch: { properties: Record<string, { default?: unknown }> } };
  };
  expect(schema.required).toEqual(['launch']);
  expect(schema.additionalProperties).toBe(false);
  expect(schema.properties.launch.properties.portRange.default).toBe('7820-7839');
  expect(schema.properties.launch.properties.readyTimeoutMs.default).toBe(DEFAULT_READY_TIMEOUT_MS);
});
