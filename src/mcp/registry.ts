/**
 * Every MCP tool's definition at once, in the order tools/list shows them: for the build and the tests.
 * A server loads each tool on its first call instead (tool-catalog.ts).
 */

import type { ToolDefinition } from './tool.js';
import { loadAllTools } from './tool-catalog.js';

export const TOOLS: readonly ToolDefinition[] = await loadAllTools();
