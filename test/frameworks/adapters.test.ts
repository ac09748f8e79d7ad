/**
 * Our tools as agent frameworks hand them to models. The built server runs over stdio as a framework
 * starts it; the Vercel AI SDK (@ai-sdk/mcp) and LangChain (@langchain/mcp-adapters) load its tools and
 * convert them to the OpenAI, Anthropic and Google function-calling formats. Per field, every conversion
 * must keep the type and the limits the server lists, and carry no keyword the provider refuses. Calls
 * made through each adapter must succeed, and a refused call's text must reach the model.
 *
 * The AI SDK's requests go to a loopback fake of each provider's API (fake-provider.ts), which records
 * them: the tools and tool results are read from the request bodies the real API would receive.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, cleanup, connectStdio, MAIN_JS, requireBuild, tempDir } from '../mcp/cli-harness.js';
import { type RecordedRequest, startFakeProvider } from './fake-provider.js';
import { AI_SDK_GOOGLE_DROPS, PROVIDERS, type ProviderName } from './provider-formats.js';
import { fieldDifferences, type Limit, meaninglessBounds, refusedKeywords } from './schema-fields.js';

/** Fails the file (not skips it) when test/frameworks/node_modules lacks a package of its package.json. */
function requireFrameworks(): void {
  const folder = fileURLToPath(new URL('.', import.meta.url));
  const { dependencies } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const missing = Object.keys(dependencies).filter(
    (name) => !existsSync(join(folder, 'node_modules', name, 'package.json')),
  );
  if (missing.length > 0) {
    throw new Error(
      `Run \`node test/frameworks/install.mjs\` (CI does): the agent frameworks are not installed (missing ${missing.join(', ')}).`,
    );
  }
}

requireFrameworks();
const { generateText, stepCountIs } = await import('ai');
const { createMCPClient } = await import('@ai-sdk/mcp');
const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
const { createOpenAI } = await import('@ai-sdk/openai');
const { createAnthropic } = await import('@ai-sdk/anthropic');
const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
const { convertToOpenAITool } = await import('@langchain/core/utils/function_calling');
const { ToolInputParsingException } = await import('@langchain/core/tools');
const { AIMessage, ToolMessage } = await import('@langchain/core/messages');
const { ToolNode } = await import('@langchain/langgraph/prebuilt');
const { ChatAnthropic } = await import('@langchain/anthropic');
const { convertToGeminiTools } = await import('@langchain/google-common');

type AiSdkClient = Awaited<ReturnType<typeof createMCPClient>>;
type LangChainClient = InstanceType<typeof MultiServerMCPClient>;
type LangChainTool = Awaited<ReturnType<LangChainClient['getTools']>>[number];

const PROVIDER_NAMES = Object.keys(PROVIDERS) as ProviderName[];
const MODELS = {
  openai: (url: string) => createOpenAI({ baseURL: `${url}/v1`, apiKey: 'test' })('fake'),
  anthropic: (url: string) => createAnthropic({ baseURL: `${url}/v1`, apiKey: 'test' })('fake'),
  google: (url: string) => createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: 'test' })('fake'),
};

/** The model calls one tool, then answers in text; each scenario runs once per provider. */
const SCENARIOS = {
  listBrands: { tool: 'list_brands', args: {} },
  badPublishMode: {
    tool: 'create_post',
    args: { brandId: 1, collectionId: 1, publishMode: 'LATER', caption: 'hi' },
  },
};
type Scenario = keyof typeof SCENARIOS;

const CONVERSIONS = PROVIDER_NAMES.flatMap((provider) =>
  (['AI SDK', 'LangChain'] as const).map((adapter) => ({ adapter, provider })),
);
const conversionKey = (adapter: string, provider: ProviderName) => `${adapter} → ${provider}`;

let serverTools: Tool[];
let aiSdk: AiSdkClient;
let langChain: LangChainClient;
let langChainTools: Map<string, LangChainTool>;
/** Each conversion's tool parameters, by tool name. */
const declared = new Map<string, Map<string, unknown>>();
/** The requests each AI SDK run made to the provider, by `${provider} ${scenario}`. */
const recorded = new Map<string, RecordedRequest[]>();

/** Runs `generateText` against a fresh fake of `provider` scripted for `scenario`. */
async function runAiSdk(
  provider: ProviderName,
  scenario: Scenario,
  tools: Parameters<typeof generateText>[0]['tools'],
) {
  const { tool, args } = SCENARIOS[scenario];
  const format = PROVIDERS[provider];
  const fake = await startFakeProvider([format.toolCallReply(tool, args), format.textReply('done')]);
  try {
    const result = await generateText({
      model: MODELS[provider](fake.url),
      tools,
      prompt: `Call ${tool}.`,
      stopWhen: stepCountIs(2),
    });
    expect(result.text).toBe('done');
    recorded.set(`${provider} ${scenario}`, fake.requests);
  } finally {
    await fake.close();
  }
}

beforeAll(async () => {
  requireBuild();
  const serverEnv = () => childEnv({ SOCIAL_PUBLISHER_DATA_DIR: tempDir('spm-frameworks-') });
  serverTools = (await (await connectStdio(serverEnv())).client.listTools()).tools;

  aiSdk = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({
      command: process.execPath,
      args: [MAIN_JS],
      env: serverEnv(),
      stderr: 'ignore',
    }),
  });
  const aiSdkTools = await aiSdk.tools();
  await Promise.all(
    PROVIDER_NAMES.flatMap((provider) =>
      (Object.keys(SCENARIOS) as Scenario[]).map((scenario) => runAiSdk(provider, scenario, aiSdkTools)),
    ),
  );
  for (const provider of PROVIDER_NAMES) {
    const [first] = recorded.get(`${provider} listBrands`)!;
    declared.set(conversionKey('AI SDK', provider), PROVIDERS[provider].declarations(first!.body));
  }

  langChain = new MultiServerMCPClient({
    mcpServers: {
      'social-publisher': {
        transport: 'stdio',
        command: process.execPath,
        args: [MAIN_JS],
        env: serverEnv(),
        stderr: 'ignore',
      },
    },
  });
  const tools = await langChain.getTools();
  langChainTools = new Map(tools.map((tool) => [tool.name, tool]));
  declared.set(
    conversionKey('LangChain', 'openai'),
    new Map(tools.map((tool) => [tool.name, convertToOpenAITool(tool).function.parameters])),
  );
  const anthropicTools =
    new ChatAnthropic({ model: 'fake', apiKey: 'test' }).formatStructuredToolToAnthropic(tools) ?? [];
  declared.set(
    conversionKey('LangChain', 'anthropic'),
    new Map(
      anthropicTools.flatMap((tool) => ('input_schema' in tool ? [[tool.name, tool.input_schema]] : [])),
    ),
  );
  declared.set(
    conversionKey('LangChain', 'google'),
    PROVIDERS.google.declarations({ tools: convertToGeminiTools(tools) }),
  );
});

afterAll(async () => {
  await Promise.all([aiSdk?.close(), langChain?.close()]);
  await cleanup();
});

describe.each(CONVERSIONS)('$adapter → $provider', ({ adapter, provider }) => {
  const dropped: readonly Limit[] = adapter === 'AI SDK' && provider === 'google' ? AI_SDK_GOOGLE_DROPS : [];
  const parameters = () => declared.get(conversionKey(adapter, provider))!;

  it('declares every tool, each field with its types and limits', () => {
    const differences = serverTools.flatMap((tool) => {
      const sent = parameters().get(tool.name);
      // Gemini takes a function without arguments without `parameters` (and the AI SDK sends it so).
      const argumentless = Object.keys(tool.inputSchema.properties ?? {}).length === 0;
      if (sent === undefined && parameters().has(tool.name) && argumentless) return [];
      return fieldDifferences(tool.inputSchema, sent, tool.name, dropped);
    });
    expect(differences).toEqual([]);
  });

  it('sends no keyword the provider refuses', () => {
    const refused = [...parameters()].flatMap(([name, schema]) =>
      refusedKeywords(schema, PROVIDERS[provider].refusals, name),
    );
    expect(refused).toEqual([]);
  });

  it('bounds no integer by ±(2^53 − 1)', () => {
    expect([...parameters()].flatMap(([name, schema]) => meaninglessBounds(schema, name))).toEqual([]);
  });
});

describe.each(PROVIDER_NAMES)('AI SDK → %s: calls', (provider) => {
  /** The text of the tool results the model received in its second request. */
  function toolResultsSent(scenario: Scenario): string {
    const requests = recorded.get(`${provider} ${scenario}`)!;
    expect(requests.map((request) => request.path)).toEqual([
      PROVIDERS[provider].path,
      PROVIDERS[provider].path,
    ]);
    return PROVIDERS[provider].toolResults(requests[1]!.body).join('\n');
  }

  it("hands list_brands' result to the model", () => {
    const results = toolResultsSent('listBrands');
    expect(results).toContain('Northwind Coffee');
    expect(results).toContain('Kite & Key Studio');
  });

  it("hands a refused call's error text to the model", () => {
    expect(toolResultsSent('badPublishMode')).toContain('The selected publish mode is invalid.');
  });

  it('names the publish modes it accepts in that error', () => {
    expect(toolResultsSent('badPublishMode')).toContain('Use one of: QUEUE, SCHEDULE, IMMEDIATE, DRAFT');
  });
});

describe('LangChain: calls', () => {
  const call = (name: string, args: Record<string, unknown>) => ({
    type: 'tool_call' as const,
    id: 'call_1',
    name,
    args,
  });
  const scheduleWithoutTime = { brandId: 1, collectionId: 1, publishMode: 'SCHEDULE', caption: 'hi' };
  const scheduledAtRequired = 'The scheduled at field is required when publish mode is SCHEDULE.';

  it("returns list_brands' text, with the structured content beside it", async () => {
    const message = await langChainTools.get('list_brands')!.invoke(call('list_brands', {}));
    expect(message).toBeInstanceOf(ToolMessage);
    // What the model gets: the text block and the structured content, as one JSON string.
    expect(JSON.parse(String(message.content))).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/Northwind Coffee.*Kite & Key Studio/s),
      structuredContent: { status: 'success' },
    });
  });

  it('refuses a publish mode outside the schema before calling the server', async () => {
    const { args } = SCENARIOS.badPublishMode;
    await expect(langChainTools.get('create_post')!.invoke(call('create_post', args))).rejects.toBeInstanceOf(
      ToolInputParsingException,
    );
  });

  it("throws the server's error text as a ToolException", async () => {
    await expect(
      langChainTools.get('create_post')!.invoke(call('create_post', scheduleWithoutTime)),
    ).rejects.toMatchObject({ name: 'ToolException', message: expect.stringContaining(scheduledAtRequired) });
  });

  it("hands the server's error text to the model through LangGraph's ToolNode", async () => {
    const node = new ToolNode([...langChainTools.values()]);
    const { messages } = await node.invoke({
      messages: [new AIMessage({ content: '', tool_calls: [call('create_post', scheduleWithoutTime)] })],
    });
    expect(messages[0]).toMatchObject({
      status: 'error',
      content: expect.stringContaining(scheduledAtRequired),
    });
  });
});
