/**
 * Stands in, in the built program only, for the module the SDK's server imports its default validator
 * from (scripts/build.mjs redirects that one import here). Every server of ours is given its own
 * validator (json-schema-validator.ts), so the default is never made; without this, the SDK's import
 * alone would load and set up ajv at every start.
 */
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('social-publisher-mcp gives every MCP server its own jsonSchemaValidator.');
  }
}
