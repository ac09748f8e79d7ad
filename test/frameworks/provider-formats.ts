/**
 * The three function-calling request formats our tools reach models in (OpenAI, Anthropic, Google
 * Gemini): how each API answers with a tool call or with text (what the fake provider replies), where a
 * request carries the tools' parameters and the tool results, and which schema keywords each API refuses.
 */
import type { Limit, Refusal } from './schema-fields.js';

export type ProviderName = 'openai' | 'anthropic' | 'google';

// Request bodies are the providers' JSON; these readers only walk them.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Body = any;

export interface ProviderFormat {
  /** The endpoint the AI SDK posts to, under its default base URL's path. */
  path: string;
  toolCallReply(tool: string, args: Record<string, unknown>): unknown;
  textReply(text: string): unknown;
  /** Each declared tool's parameters, by tool name (undefined: declared without parameters). */
  declarations(body: Body): Map<string, unknown>;
  /** Every tool result the request hands back to the model, as JSON text. */
  toolResults(body: Body): string[];
  refusals: readonly Refusal[];
}

/** Every provider takes a function's parameters as one object schema. */
const TOP_LEVEL_OBJECT: Refusal = { at: 'top', keyword: 'type', accepts: ['object'], required: true };

/**
 * Gemini's `Schema` object, "a select subset of an OpenAPI 3.0 schema object": any other field is an
 * unknown field, which the API refuses (https://ai.google.dev/api/caching#Schema).
 */
const GEMINI_SCHEMA_FIELDS = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
];

export const PROVIDERS: Record<ProviderName, ProviderFormat> = {
  // The Responses API: what `openai(model)` of @ai-sdk/openai calls by default. Without `strict`, the API
  // makes a schema strict when it can and otherwise uses it as given (non-strict).
  openai: {
    path: '/v1/responses',
    toolCallReply: (tool, args) => ({
      id: 'resp_1',
      created_at: 0,
      model: 'fake',
      status: 'completed',
      output: [
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          name: tool,
          arguments: JSON.stringify(args),
          status: 'completed',
        },
      ],
      usage: { input_tokens: 1, output_tokens: 1 },
    }),
    textReply: (text) => ({
      id: 'resp_2',
      created_at: 0,
      model: 'fake',
      status: 'completed',
      output: [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text, annotations: [] }],
        },
      ],
      usage: { input_tokens: 1, output_tokens: 1 },
    }),
    declarations: (body) => new Map(body.tools.map((tool: Body) => [tool.name, tool.parameters])),
    toolResults: (body) =>
      body.input
        .filter((item: Body) => item.type === 'function_call_output')
        .map((item: Body) => JSON.stringify(item.output)),
    // The API answers 400 "Invalid schema for function '…': schema must be a JSON Schema of 'type:
    // \"object\"'" and "… schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not'
    // at the top level" (https://platform.openai.com/docs/guides/function-calling; the message as quoted in
    // langchain-ai/langchainjs#9804).
    refusals: [
      TOP_LEVEL_OBJECT,
      ...['anyOf', 'oneOf', 'allOf', 'enum', 'not'].map((refuses): Refusal => ({ at: 'top', refuses })),
    ],
  },
  anthropic: {
    path: '/v1/messages',
    toolCallReply: (tool, args) => ({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'fake',
      content: [{ type: 'tool_use', id: 'toolu_1', name: tool, input: args }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    }),
    textReply: (text) => ({
      id: 'msg_2',
      type: 'message',
      role: 'assistant',
      model: 'fake',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    }),
    declarations: (body) => new Map(body.tools.map((tool: Body) => [tool.name, tool.input_schema])),
    toolResults: (body) =>
      body.messages
        .flatMap((message: Body) => (Array.isArray(message.content) ? message.content : []))
        .filter((part: Body) => part.type === 'tool_result')
        .map((part: Body) => JSON.stringify(part.content)),
    // `input_schema` is a JSON Schema of type "object"
    // (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use); the API answers 400
    // "input_schema does not support oneOf, allOf, or anyOf at the top level" (quoted in
    // nspady/google-calendar-mcp#39; @langchain/anthropic drops such tools: getTopLevelSchemaCompositionKeys).
    refusals: [
      TOP_LEVEL_OBJECT,
      ...['anyOf', 'oneOf', 'allOf'].map((refuses): Refusal => ({ at: 'top', refuses })),
    ],
  },
  google: {
    path: '/v1beta/models/fake:generateContent',
    toolCallReply: (tool, args) => ({
      candidates: [
        {
          content: { role: 'model', parts: [{ functionCall: { name: tool, args } }] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    }),
    textReply: (text) => ({
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    }),
    declarations: (body) =>
      new Map(
        body.tools
          .flatMap((tool: Body) => tool.functionDeclarations ?? [])
          .map((declaration: Body) => [declaration.name, declaration.parameters]),
      ),
    toolResults: (body) =>
      body.contents
        .flatMap((content: Body) => content.parts)
        .filter((part: Body) => part.functionResponse)
        .map((part: Body) => JSON.stringify(part.functionResponse.response)),
    // Function declarations take Gemini's Schema object (GEMINI_SCHEMA_FIELDS): one `type`, never a list
    // (null is `nullable: true`); `format` for a string only "enum" or "date-time" on the Gemini Developer
    // API, otherwise the request fails (https://ai.google.dev/api/caching#Schema;
    // https://firebase.google.com/docs/reference/js/ai.schemashared#schemasharedformat).
    refusals: [
      TOP_LEVEL_OBJECT,
      { at: 'any', only: GEMINI_SCHEMA_FIELDS },
      { at: 'any', keyword: 'type', accepts: ['string', 'number', 'integer', 'boolean', 'array', 'object'] },
      {
        at: 'any',
        formats: { string: ['enum', 'date-time'], integer: ['int32', 'int64'], number: ['float', 'double'] },
      },
    ],
  },
};

/**
 * Limits that @ai-sdk/google's converter (convertJSONSchemaToOpenAPISchema, dist/index.mjs) does not copy
 * into Gemini's Schema although Gemini takes them: it keeps only description, required, format, type,
 * enum, properties, items, allOf/anyOf/oneOf and minLength.
 */
export const AI_SDK_GOOGLE_DROPS: readonly Limit[] = [
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'pattern',
];
