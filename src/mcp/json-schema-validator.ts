/**
 * The validator the SDK checks a client's answers to elicitation with, made only when a question is about
 * to be asked: ajv and its formats are a large part of the SDK's load, and most sessions never ask.
 * `loadJsonSchemaValidator()` must have resolved before a question's answer arrives (confirm.ts awaits
 * it before asking). The build also keeps the SDK's own default validator out of the start
 * (scripts/build.mjs, sdk-shims.ts), since every server of ours is given this one.
 */
import type { jsonSchemaValidator } from '@modelcontextprotocol/server';

let validator: jsonSchemaValidator | undefined;
let loading: Promise<void> | undefined;

export function loadJsonSchemaValidator(): Promise<void> {
  loading ??= import('./ajv-validator.js').then(({ AjvJsonSchemaValidator }) => {
    validator = new AjvJsonSchemaValidator();
  });
  return loading;
}

export const lazyJsonSchemaValidator: jsonSchemaValidator = {
  getValidator(schema) {
    if (!validator) throw new Error('The JSON Schema validator is used before loadJsonSchemaValidator().');
    return validator.getValidator(schema);
  },
};
