/**
 * A build step (`npm run build`): writes gamebridge.json's JSON Schema (declaration-schema.ts)
 * to dist/gamebridge.schema.json, which the package ships and `init` names in `"$schema"`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { declarationJsonSchema, SCHEMA_FILE } from './declaration-schema.js';

writeFileSync(
  fileURLToPath(new URL(`../../${SCHEMA_FILE}`, import.meta.url)),
  JSON.stringify(declarationJsonSchema(), null, 2) + '\n',
);
