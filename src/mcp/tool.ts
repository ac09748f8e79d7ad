/** What every tool file exports: a definition the registry lists and the server dispatches. */
import type { z } from 'zod';
import type { PublishingService } from '../service/publishing-service.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A successful call: `body` is the REST response body, `summary` a short text for humans. */
export interface ToolSuccess {
  body: Record<string, unknown>;
  summary: string;
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The request schema the service validates with; the tool's JSON Schema is derived from it. */
  input: Input;
  /** The schema of the success body's `data`. */
  output: z.ZodType;
  /** Whether the success body carries `pagination`. */
  paginated?: boolean;
  annotations: ToolAnnotations;
  /** Calls one service method with the raw arguments and shapes its result. */
  handle(service: PublishingService, args: Record<string, unknown>): Promise<ToolSuccess>;
}

/** Helps tool files keep their input type without naming it twice. */
export function defineTool<Input extends z.ZodObject>(
  definition: ToolDefinition<Input>,
): ToolDefinition<Input> {
  return definition;
}
