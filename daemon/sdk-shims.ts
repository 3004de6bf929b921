/**
 * What the MCP SDK's server imports from `@modelcontextprotocol/server/_shims`, the seam the SDK
 * selects per runtime (node, workerd, browser). The daemon bundle points that seam here (the
 * `bundle` script's --alias): the same `process` and the SDK's own ajv validator, but ajv is
 * loaded on the first schema to validate, not at every daemon start. The daemon validates none
 * (only a server that sends elicitation forms does), and evaluating ajv cost ~20 ms of each boot
 * (docs/PERFORMANCE.md, "Ninth round"). Outside the bundle the SDK uses its own shims.
 */
import { createRequire } from 'node:module';
import process from 'node:process';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/server';

type AjvModule = { AjvJsonSchemaValidator: new () => jsonSchemaValidator };

/** The SDK's default validator (ajv), created on first use. */
export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  private ajv?: jsonSchemaValidator;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    // Synchronous, as the SDK calls it: the package's CommonJS build, resolved from here.
    this.ajv ??= new (
      createRequire(import.meta.url)('@modelcontextprotocol/server/validators/ajv') as AjvModule
    ).AjvJsonSchemaValidator();
    return this.ajv.getValidator<T>(schema);
  }
}

export { process };
