/**
 * Every tool's answer schema, as clients read it: the MCP tools' outputSchema compiled by the
 * SDK's own validator, admitting a cut answer and a failure's facts beside the answer.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { TOOLS } from '../../../../daemon/tools/index.js';
import { BRIDGE_TOOLS } from '../../../../daemon/bridge/index.js';
import { truncateAnswer } from '../../../../daemon/tools/answer.js';

const ajv = new AjvJsonSchemaValidator();
const check = (tool: (typeof TOOLS)[number], json: unknown) =>
  ajv.getValidator(tool.advertised.outputSchema as Parameters<typeof ajv.getValidator>[0])(json);

test.each(TOOLS.map((t) => [t.name, t]))('%s advertises an outputSchema with an object root', (_name, tool) => {
  expect(tool.advertised.outputSchema?.type).toBe('object');
});

test.each(TOOLS.map((t) => [t.name, t]))('%s admits a failure and a cut answer', (_name, tool) => {
  expect(check(tool, { kind: 'CommandTimeout', port: 7777, view: 'debug' }).valid).toBe(true);
  const cut = truncateAnswer({ port: 7777, big: 'x'.repeat(5000) }, 1000).json;
  expect(check(tool, cut).valid).toBe(true);
});

test('an answer without a field its schema requires is refused', () => {
  const stop = TOOLS.find((t) => t.name === 'stop_instance')!;
  expect(check(stop, { view: 'debug', port: 7777, stopped: true, how: 'killed' }).valid).toBe(true);
  expect(check(stop, { view: 'debug', port: 7777 }).valid).toBe(false);
});

test('an answer may carry a field its schema does not name', () => {
  const stop = TOOLS.find((t) => t.name === 'stop_instance')!;
  expect(check(stop, { view: 'debug', port: 7777, stopped: true, how: 'killed', newer: 1 }).valid).toBe(true);
});

test.each(BRIDGE_TOOLS.map((t) => [t.name, t]))('bridge tool %s answers with view, tool and via', (_name, tool) => {
  expect(Object.keys(tool.output.shape).slice(0, 4)).toEqual(['view', 'port', 'tool', 'via']);
});
