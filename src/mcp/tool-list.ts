/**
 * What tools/list shows: each tool's name, title, description, annotations and its JSON Schemas, derived
 * from the zod schemas the service validates with.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { Pagination } from '../domain/schemas.js';
import type { ToolDefinition } from './tool.js';

const ErrorBodySchema = z.object({
  status: z.literal('error'),
  message: z.string(),
  errors: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
});

/** JSON Schema for clients: draft-07 (what the SDK's validator speaks), no `$schema`. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'any',
  });
  return json;
}

/** The declared output schema accepts the success body and the error body alike. */
export function outputSchemaOf(tool: ToolDefinition): Record<string, unknown> {
  const success = z.object({
    status: z.literal('success'),
    data: tool.output,
    ...(tool.paginated ? { pagination: Pagination } : {}),
  });
  return { type: 'object', anyOf: [toJsonSchema(success, 'input'), toJsonSchema(ErrorBodySchema, 'input')] };
}

export function inputSchemaOf(tool: ToolDefinition): Record<string, unknown> {
  return toJsonSchema(tool.input, 'input');
}

/** The tools/list entry of each tool. */
export function listedTools(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputSchemaOf(tool) as Tool['inputSchema'],
    outputSchema: outputSchemaOf(tool) as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  }));
}
