/** What every tool file exports: a definition the registry lists and the server dispatches. */
import type { z } from 'zod';
import type { PublishingService } from '../service/publishing-service.js';
import type { Toolset } from './toolsets.js';

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

/** What a tool may ask of the session it runs in, built per call by the server. */
export interface ToolContext {
  /** Whether the client can put a question to the user (it declared form elicitation). */
  readonly canConfirm: boolean;
  /**
   * Asks the user to confirm `message` (MCP elicitation). True when the user accepted, false when they
   * declined or cancelled; true without asking when the client cannot ask (no elicitation capability).
   * Rejects with `ConfirmationDeclinedError` when the question could not be put to the user.
   */
  confirm(message: string): Promise<boolean>;
  /** Whether the client can open an address for the user (it declared URL-mode elicitation). */
  readonly canOpenUrl: boolean;
  /**
   * Asks the client to open `url` for the user (URL-mode elicitation): the user's answer, and how to
   * tell the client that what happened there is done. Rejects when the client could not be asked.
   * `carry` is what the call must not redo when it runs again with the answer (MCP 2026-07-28, where
   * the client answers by calling again): it comes back as `carried`.
   */
  openUrl(
    message: string,
    url: string,
    carry?: Record<string, unknown>,
  ): Promise<{ accepted: boolean; completed(): Promise<void> }>;
  /** What this call carried when it asked the user, on the call that brings the answer (2026-07-28). */
  readonly carried?: Record<string, unknown>;
  /** Waits for what a person does (a sign-in in a browser) without counting it as the call's work. */
  waitForUser<T>(work: Promise<T>): Promise<T>;
  /** Aborted when the client cancels the call. */
  readonly signal: AbortSignal;
  /**
   * Reports progress when the client asked for it (sent a progress token); a no-op otherwise.
   * Throttled here, so callers may report as often as they like.
   */
  progress(done: number, total: number | undefined, message?: string): void;
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** The toolset it belongs to (mcp/toolsets.ts), for servers that offer only some. */
  toolset: Toolset;
  description: string;
  /** The request schema the service validates with; the tool's JSON Schema is derived from it. */
  input: Input;
  /** The schema of the success body's `data`. */
  output: z.ZodType;
  /** Whether the success body carries `pagination`. */
  paginated?: boolean;
  annotations: ToolAnnotations;
  /** Calls one service method with the raw arguments and shapes its result. */
  handle(
    service: PublishingService,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<ToolSuccess>;
}

/** Helps tool files keep their input type without naming it twice. */
export function defineTool<Input extends z.ZodObject>(
  definition: ToolDefinition<Input>,
): ToolDefinition<Input> {
  return definition;
}
