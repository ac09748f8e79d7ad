/**
 * The SDK's ajv validator, loaded on first use by json-schema-validator.ts (a dynamic import of a
 * package goes through a module of ours: see undici-client.ts).
 */
export { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
