#!/usr/bin/env node
/**
 * argv → config → one mode (stdio | serve | import); nothing else. What only `serve` (the HTTP stack)
 * or remote mode needs is imported when that mode starts: an MCP client waits for stdio to start.
 */
import { readFileSync } from 'node:fs';
import { type Config, ConfigError, loadConfig, USAGE } from './config.js';
import { ValidationError } from './domain/errors.js';
import { openLocalRuntime } from './local-runtime.js';
import { logError, logInfo } from './logger.js';
import { InFlightCalls } from './mcp/in-flight.js';
import { PublishingEventFeed, type PublishingLog } from './mcp/logging.js';
import { createMcpServer } from './mcp/server.js';
import { serveStdio } from './mcp/stdio.js';
import { startPublishingEngine } from './publish/engine.js';
import { canSeeBrand, issueMissingApiKeys, resolveLocalUser } from './service/acting-user.js';
import { LocalPublishingService } from './service/local-service.js';
import type { PublishingService } from './service/publishing-service.js';
import { importWorkspace, parseWorkspaceFile } from './service/workspace.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

async function runStdio(config: Config): Promise<void> {
  if (config.apiUrl) return runRemoteStdio(config, config.apiUrl);
  const runtime = openLocalRuntime(config);
  let stopEngine: (() => Promise<void>) | undefined;
  try {
    let user: ReturnType<typeof resolveLocalUser>;
    try {
      user = resolveLocalUser(runtime.store, config.apiKey);
    } catch (error) {
      throw new ConfigError((error as Error).message, { cause: error });
    }
    const events = new PublishingEventFeed();
    const engine = startPublishingEngine({
      store: runtime.store,
      clock: runtime.clock,
      publisher: config.publisher,
      version: VERSION,
      log: logInfo,
      events: events.emit,
    });
    stopEngine = () => engine.stop();
    // stdio: the client runs on this machine, so an upload path names one of its files.
    const service = new LocalPublishingService(
      { ...runtime, onPlanChanged: () => engine.scheduler.wake(), allowLocalPaths: true },
      user,
    );
    if (process.stdin.isTTY) {
      logInfo(
        `MCP server on stdio, acting as ${user.name}, data in ${config.dataDir}. Waiting for an MCP client (Ctrl-D to quit).`,
      );
    }
    await serveStdioWith(service, {
      feed: events,
      canSeeBrand: (brandId) => canSeeBrand(runtime.store, user, brandId),
    });
  } finally {
    await stopEngine?.();
    runtime.close();
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
    await serveStdioWith(service);
  } finally {
    await service.close();
    await downloader.close();
  }
}

async function serveStdioWith(service: PublishingService, publishingLog?: PublishingLog): Promise<void> {
  const inFlight = new InFlightCalls();
  const server = createMcpServer(service, {
    name: 'social-publisher-mcp',
    version: VERSION,
    log: logError,
    inFlight,
    publishingLog,
  });
  await serveStdio(server, inFlight);
}

async function runServe(config: Config): Promise<void> {
  if (config.apiUrl)
    throw new ConfigError('serve publishes from the local store: unset SOCIAL_PUBLISHER_API_URL.');
  const { createHttpApp, isLoopback, listen } = await import('./http/serve.js');
  const runtime = openLocalRuntime(config);
  try {
    for (const { user, apiKey } of issueMissingApiKeys(runtime.store)) {
      logInfo(`API key of ${user.name}, shown this once (only its hash is stored): ${apiKey}`);
    }
    const events = new PublishingEventFeed();
    const engine = startPublishingEngine({
      store: runtime.store,
      clock: runtime.clock,
      publisher: config.publisher,
      version: VERSION,
      log: logInfo,
      events: events.emit,
    });
    const http = createHttpApp({
      runtime,
      engine,
      events,
      version: VERSION,
      loopbackOnly: isLoopback(config.host),
      log: logError,
    });
    const running = await listen(http, config);
    logInfo(`listening on ${running.url}: REST API at ${running.url}/v1, MCP at ${running.url}/mcp`);
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', () => resolve());
      process.once('SIGINT', () => resolve());
    });
    logInfo('stopping: finishing requests under way');
    await running.close();
    await engine.stop();
  } finally {
    runtime.close();
  }
}

function runImport(config: Config): void {
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
  const runtime = openLocalRuntime(config, { withDemo: false });
  try {
    const ids = importWorkspace(runtime.store, runtime.clock, parseWorkspaceFile(json));
    process.stdout.write(`${JSON.stringify(ids, null, 2)}\n`);
  } finally {
    runtime.close();
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
    case 'import':
      runImport(config);
      return 0;
    case 'serve':
      await runServe(config);
      return 0;
    case 'stdio':
      await runStdio(config);
      return 0;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`social-publisher-mcp: ${error.message}\n`);
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
    process.exitCode = 1;
  },
);
