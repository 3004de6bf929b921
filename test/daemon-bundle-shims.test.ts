/**
 * The daemon bundle's seam for the SDK's runtime shims (daemon/sdk-shims.ts): the bundle carries
 * no ajv, and the validator it gives the SDK still validates with the SDK's ajv when asked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultJsonSchemaValidator } from '../daemon/sdk-shims.js';
import { DIST } from './helpers/procs.js';

test('the daemon bundle does not carry ajv: it is loaded on the first schema to validate', () => {
  const bundle = readFileSync(join(DIST, 'daemon', 'bundle.cjs'), 'latin1');
  expect(bundle).not.toContain('Ajv2020');
  // resolved from the bundle's own place (dist/daemon/), as boot.js passes it
  expect(bundle).toContain('createRequire)(__bundleUrl)("@modelcontextprotocol/server/validators/ajv")');
});

test("the shims' validator validates with the SDK's ajv", () => {
  const validate = new DefaultJsonSchemaValidator().getValidator<{ n: number }>({
    type: 'object',
    properties: { n: { type: 'number' } },
    required: ['n'],
  });
  expect(validate({ n: 1 })).toEqual({ valid: true, data: { n: 1 }, errorMessage: undefined });
  const bad = validate({ n: 'one' });
  expect(bad.valid).toBe(false);
  expect(bad.errorMessage).toMatch(/number/);
});
