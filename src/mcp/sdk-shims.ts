/**
 * Stands in, in the built program only, for the SDK's `@modelcontextprotocol/server/_shims` (scripts/
 * build.mjs redirects that import here). Its Node shim exports the default JSON Schema validator, ajv
 * with its formats bundled in, for servers given none: every server of ours is given its own validator
 * (json-schema-validator.ts), which loads ajv on first use, so the default is never made and its import
 * alone would only lengthen every start.
 */
export { default as process } from 'node:process';

export class DefaultJsonSchemaValidator {
  constructor() {
    throw new Error('social-publisher-mcp gives every MCP server its own jsonSchemaValidator.');
  }
}
