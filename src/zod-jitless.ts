/**
 * zod, by default, compiles a parser for each object schema (`new Function`) the first time it parses
 * with it, and the compiled parser is only worth it over many parses of one schema. A start parses with
 * dozens of schemas once each (the SDK's protocol messages, a tool's input), and that compiling, which no
 * code cache keeps, was a tenth of a start on Node 20. The setting is read when a schema is made, so this
 * module is loaded before any other that makes one (main.ts loads it first).
 */
import { config } from 'zod/v4/core';

config({ jitless: true });
