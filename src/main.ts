#!/usr/bin/env node
/**
 * argv → config → one mode (stdio | serve | import | connect | keys); nothing else. Only the config is
 * imported up front; each mode imports what it needs when it starts (in the build, a module is evaluated
 * when first imported; packages a start never runs are files of their own, scripts/chunks.mjs). In stdio
 * mode the server is loaded, then connected: a start-up failure (a bad setting, an unreadable store)
 * answers the client's `initialize` with the reason instead of a result (mcp/startup-failure.ts), so the
 * client shows why the server did not start.
 */
import { readFileSync } from 'node:fs';
import { type Config, ConfigError, loadConfig, USAGE } from './config.js';
import {
  DatabaseUnavailableError,
  isStorageFault,
  StorageStartError,
  ValidationError,
} from './domain/errors.js'; // no imports of its own
import type { LocalRuntime } from './local-runtime.js';
import { logError, logInfo } from './logger.js';
import { SERVER_NAME } from './mcp/handshake.js';
import type { PublishingEventFeed, PublishingLog } from './mcp/logging.js';
import type { ToolSelection } from './mcp/toolsets.js';
import type { PublishingEngine, startPublishingEngine } from './publish/engine.js';
import type { PublishingService } from './service/publishing-service.js';

/** The build writes the version in (scripts/build.mjs); from source, package.json has it. */
declare const __VERSION__: string | undefined;
const VERSION =
  typeof __VERSION__ === 'string'
    ? __VERSION__
    : (
        JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
          version: string;
        }
      ).version;

/** Set once the stdio server is connected: from then on, failures are the protocol's to report. */
let stdioConnected = false;

async function runStdio(config: Config): Promise<void> {
  if (config.apiUrl) await runRemoteStdio(config, config.apiUrl);
  else await runLocalStdio(config);
}

function engineOptions(
  config: Config,
  runtime: LocalRuntime,
  events: PublishingEventFeed,
): Parameters<typeof startPublishingEngine>[0] {
  return {
    store: runtime.store,
    clock: runtime.clock,
    publisher: config.publisher,
    secrets: runtime.secrets,
    media: runtime.media,
    downloader: runtime.downloader,
    readEnv: config.readEnv,
    oauthApps: config.oauthApps,
    platformTimeoutMs: config.platformTimeoutMs,
    claimLeaseMs: config.claimLeaseMs,
    sendsInFlight: config.sendsInFlight,
    version: VERSION,
    log: logInfo,
    // This process's sessions hear its events at once; the other processes' sessions through the relay.
    events: (event) => {
      events.emit(event);
      runtime.eventRelay.relay(event);
    },
    planSignal: runtime.planSignal,
  };
}

/** How long a stdio server waits after connecting before it starts publishing, unless a post needs it. */
const ENGINE_DELAY_MS = 1_000;

/**
 * The publishing engine of a stdio server, started after the client's first requests rather than before:
 * on the first change to what is planned (a post created, changed or published), or ENGINE_DELAY_MS after
 * connecting, whichever comes first. Loading it then keeps it out of the time a client waits for its
 * first answers; the engine picks up whatever fell due meanwhile. A failure to start it stops the server.
 */
function deferredEngine(start: () => Promise<PublishingEngine>) {
  let engine: Promise<PublishingEngine> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const begin = () => {
    clearTimeout(timer);
    engine ??= start();
    engine.catch((error: unknown) => {
      logError('the publishing engine could not start; stopping', error);
      process.exit(1);
    });
    return engine;
  };
  return {
    startAfterDelay() {
      if (!stopped && !engine) timer = setTimeout(begin, ENGINE_DELAY_MS);
    },
    wake() {
      if (!stopped) void begin().then((started) => started.scheduler.wake());
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      if (engine) await (await engine).stop();
    },
  };
}

async function runLocalStdio(config: Config): Promise<void> {
  // The MCP server's modules load alongside the store's: each waits on its own files.
  const mcp = loadStdioServer();
  mcp.catch(() => undefined); // awaited below, unless the store fails first
  const [
    { openLocalRuntime },
    { PublishingEventFeed },
    { canSeeBrand, resolveLocalUser },
    { LocalPublishingService },
  ] = await Promise.all([
    import('./local-runtime.js'),
    import('./mcp/logging.js'),
    import('./service/acting-user.js'),
    import('./service/local-service.js'),
  ]);
  const runtime = await openLocalRuntime(config);
  // Other instances' events are heard while a session listens (PostgreSQL: LISTEN only then).
  const events = new PublishingEventFeed((emit) => runtime.eventRelay.hear(emit));
  const engine = deferredEngine(async () => {
    const { startPublishingEngine } = await import('./publish/engine.js');
    return startPublishingEngine(engineOptions(config, runtime, events));
  });
  try {
    let user: Awaited<ReturnType<typeof resolveLocalUser>>;
    try {
      user = await resolveLocalUser(runtime.store, config.apiKey);
    } catch (error) {
      throw new ConfigError((error as Error).message, { cause: error });
    }
    // stdio: the client's machine (upload paths are its files; sign-ins come back to our loopback).
    const service = new LocalPublishingService(
      {
        ...runtime,
        onPlanChanged: () => engine.wake(), // others were told by the planning transaction
        allowLocalPaths: true,
        signIns: () =>
          import('./oauth/process-sign-ins.js').then((m) => m.processSignIns(config, runtime, VERSION)),
      },
      user,
    );
    if (process.stdin.isTTY) {
      logInfo(
        `MCP server on stdio, acting as ${user.name}, data in ${config.dataDir}. Waiting for an MCP client (Ctrl-D to quit).`,
      );
    }
    await serveStdioWith(
      service,
      config.tools,
      { feed: events, canSeeBrand: (brandId) => canSeeBrand(runtime.store, user, brandId) },
      { mcp, onConnected: () => engine.startAfterDelay() },
    );
  } finally {
    await engine.stop();
    await runtime.close();
  }
}

/** Remote mode: the same tools, acting on a server that speaks the REST API. */
async function runRemoteStdio(config: Config, apiUrl: string): Promise<void> {
  if (!config.apiKey)
    throw new ConfigError('Remote mode needs the key to send: set SOCIAL_PUBLISHER_API_KEY.');
  const [{ UrlDownloader }, { RemotePublishingService }] = await Promise.all([
    import('./media/url-download.js'),
    import('./remote/remote-service.js'),
  ]);
  const downloader = new UrlDownloader({ allow: config.mediaUrlAllow });
  const service = new RemotePublishingService({
    baseUrl: apiUrl,
    apiKey: config.apiKey,
    userAgent: `social-publisher-mcp/${VERSION}`,
    downloader,
  });
  try {
    if (process.stdin.isTTY)
      logInfo(`MCP server on stdio, acting on ${apiUrl}. Waiting for an MCP client (Ctrl-D to quit).`);
    await serveStdioWith(service, config.tools);
  } finally {
    await service.close();
    await downloader.close();
  }
}

function loadStdioServer() {
  return Promise.all([import('./mcp/in-flight.js'), import('./mcp/server.js'), import('./mcp/stdio.js')]);
}

async function serveStdioWith(
  service: PublishingService,
  tools: ToolSelection,
  publishingLog?: PublishingLog,
  options: { mcp?: ReturnType<typeof loadStdioServer>; onConnected?: () => void } = {},
): Promise<void> {
  const [{ InFlightCalls }, { createMcpServer }, { serveStdio }] = await (options.mcp ?? loadStdioServer());
  const inFlight = new InFlightCalls();
  const shared = { name: SERVER_NAME, version: VERSION, log: logError, inFlight, publishingLog, tools };
  // The client's first message says which protocol generation the connection speaks.
  await serveStdio(
    (era) => createMcpServer(service, { ...shared, era }),
    inFlight,
    () => {
      stdioConnected = true;
      options.onConnected?.();
    },
  );
}

async function runServe(config: Config): Promise<void> {
  if (config.apiUrl)
    throw new ConfigError('serve publishes from the local store: unset SOCIAL_PUBLISHER_API_URL.');
  const [
    { createHttpApp, isLoopback, listen },
    { openLocalRuntime },
    { PublishingEventFeed },
    { startPublishingEngine },
    { issueMissingApiKeys },
    { publicServing },
  ] = await Promise.all([
    import('./http/serve.js'),
    import('./local-runtime.js'),
    import('./mcp/logging.js'),
    import('./publish/engine.js'),
    import('./service/acting-user.js'),
    import('./oauth/process-sign-ins.js'),
  ]);
  const runtime = await openLocalRuntime(config);
  try {
    for (const { user, apiKey } of await issueMissingApiKeys(runtime.store)) {
      logInfo(`API key of ${user.name}, shown this once (only its hash is stored): ${apiKey}`);
    }
    // Other instances' events are heard while a session listens (PostgreSQL: LISTEN only then).
    const events = new PublishingEventFeed((emit) => runtime.eventRelay.hear(emit));
    const exposed = await publicServing(config, runtime, VERSION); // behind SOCIAL_PUBLISHER_PUBLIC_URL
    const engine = await startPublishingEngine({
      ...engineOptions(config, runtime, events),
      ...exposed.engine,
    });
    const http = createHttpApp({
      runtime,
      engine,
      events,
      version: VERSION,
      loopbackOnly: isLoopback(config.host),
      log: logError,
      tools: config.tools,
      ...exposed.http,
    });
    const running = await listen(http, config);
    logInfo(`listening on ${running.url}: REST API at ${running.url}/v1, MCP at ${running.url}/mcp`);
    await stopSignal();
    http.health.beginShutdown();
    if (config.drainMs > 0) {
      logInfo(`stopping: /health answers 503; still serving for ${config.drainMs / 1000} s`);
      // A second signal ends the wait; past it, one more ends the process (Node's default).
      await stopSignal(config.drainMs);
    }
    logInfo('stopping: finishing requests under way');
    await running.close();
    logInfo('stopping: finishing the sends under way');
    await engine.stop();
    logInfo('stopped');
  } finally {
    await runtime.close();
  }
}

/** Resolves on SIGTERM or SIGINT, or after `timeoutMs`; the listeners go once it has resolved. */
function stopSignal(timeoutMs?: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGTERM', done);
      process.off('SIGINT', done);
      clearTimeout(timer);
      resolve();
    };
    process.on('SIGTERM', done);
    process.on('SIGINT', done);
    const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
  });
}

async function runImport(config: Config): Promise<void> {
  const file = config.importFile!;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  const [{ openLocalRuntime }, { importWorkspace, parseWorkspaceFile }] = await Promise.all([
    import('./local-runtime.js'),
    import('./service/workspace.js'),
  ]);
  const runtime = await openLocalRuntime(config, { withDemo: false });
  try {
    const ids = await importWorkspace(runtime.store, runtime.clock, parseWorkspaceFile(json));
    process.stdout.write(`${JSON.stringify(ids, null, 2)}\n`);
  } finally {
    await runtime.close();
  }
}

async function main(): Promise<number> {
  const config = loadConfig(process.argv.slice(2), process.env);
  switch (config.command) {
    case 'help':
      process.stdout.write(`social-publisher-mcp ${VERSION}\n\n${USAGE}\n`);
      return 0;
    case 'version':
      process.stdout.write(`${VERSION}\n`);
      return 0;
  }
  await import('./zod-jitless.js'); // before any module that makes a zod schema
  switch (config.command) {
    case 'import':
      await runImport(config);
      return 0;
    case 'connect':
    case 'disconnect': {
      const { runConnect, runDisconnect } = await import('./cli/connect.js');
      if (config.command === 'connect') await runConnect(config, VERSION);
      else await runDisconnect(config);
      return 0;
    }
    case 'keys': {
      const { runKeys } = await import('./cli/keys.js');
      process.stdout.write(await runKeys(config));
      return 0;
    }
    case 'serve':
      await runServe(config);
      return 0;
    case 'stdio':
      await runStdio(config);
      return 0;
  }
}

/** The reason a start failed, in one line for the client (its details stay in the log). */
function failureReason(error: unknown): string {
  if (error instanceof ConfigError || error instanceof StorageStartError) return error.message;
  if (error instanceof DatabaseUnavailableError) return error.reason;
  if (isStorageFault(error)) return `${error.reason} (nothing was saved)`;
  return `${error instanceof Error ? error.message : String(error)}; the server's log (stderr) has the details`;
}

function report(error: unknown): void {
  if (error instanceof ConfigError || error instanceof StorageStartError) {
    process.stderr.write(`social-publisher-mcp: ${error.message}\n`);
  } else if (isStorageFault(error)) {
    // A write refused once the store was open (an import, the demo, a key): the reason, then the real fault.
    const what =
      error instanceof DatabaseUnavailableError ? 'stopped' : 'stopped, the last write was not saved';
    logError(`${what}: ${error.reason}`, error.cause ?? error);
  } else if (error instanceof ValidationError) {
    const lines = Object.entries(error.errors).flatMap(([path, messages]) =>
      messages.map((m) => `  ${path}: ${m}`),
    );
    process.stderr.write(
      `social-publisher-mcp: the workspace file is invalid, nothing was imported:\n${lines.join('\n')}\n`,
    );
  } else {
    logError('failed', error);
  }
}

/** stdio is the default mode: no command, or `stdio`. */
const stdioMode = (argv: readonly string[]) => argv.length === 0 || argv[0] === 'stdio';

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    report(error);
    process.exitCode = error instanceof ConfigError ? error.exitCode : 1;
    // The client waits for its `initialize` answer: the reason, instead of a result.
    if (stdioMode(process.argv.slice(2)) && !stdioConnected) {
      const { refuseStartup } = await import('./mcp/startup-failure.js');
      await refuseStartup(failureReason(error));
    }
  },
);
