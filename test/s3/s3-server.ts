/**
 * A real S3-compatible server for the object-storage tests: @20minutes/s3rver (test/s3's own package,
 * `node test/s3/install.mjs`), which checks SigV4 signatures, header and presigned, and the expiry of
 * presigned addresses, run in a child process on loopback with a fresh directory and one empty bucket.
 * `keys()` lists the bucket through the S3 API (ListObjectsV2, signed); `proxy()` puts a loopback TCP
 * relay in front of it that counts the bytes sent to the server and can cut every connection.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server, Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AwsClient } from 'aws4fetch';
import type { MediaBucketConfig } from '../../src/config-media-bucket.js';
import { makeTempDir } from '../support/temp-dirs.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const ACCESS_KEY_ID = 'SPMTESTKEY';
/** Distinctive, so that a test can look for it in what the program wrote. */
export const SECRET_ACCESS_KEY = 'spm-s3-secret-5a1f9c2e7d';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** The settings that point the program at this bucket. */
  config: MediaBucketConfig;
  env: Record<string, string>;
  /** The bucket's keys, listed by the server. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'spm-media'): Promise<S3Server> {
  if (!existsSync(join(HERE, 'node_modules', '@20minutes', 's3rver'))) {
    throw new Error('The S3 test server is not installed: run `node test/s3/install.mjs`.');
  }
  const child: ChildProcess = spawn(
    process.execPath,
    [join(HERE, 'run-s3rver.cjs'), makeTempDir('spm-s3-'), bucket, ACCESS_KEY_ID, SECRET_ACCESS_KEY],
    {
      cwd: HERE,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = /\{"port":(\d+)\}/.exec(text);
      if (line) resolve(Number(line[1]));
    });
    child.once('exit', (code) => reject(new Error(`The S3 test server stopped (exit ${code}).`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const config: MediaBucketConfig = {
    bucket,
    endpoint,
    region: 'us-east-1',
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
  };
  const client = new AwsClient({
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    service: 's3',
    region: 'us-east-1',
  });
  return {
    endpoint,
    bucket,
    config,
    env: {
      SOCIAL_PUBLISHER_MEDIA_S3_BUCKET: bucket,
      SOCIAL_PUBLISHER_MEDIA_S3_ENDPOINT: endpoint,
      SOCIAL_PUBLISHER_MEDIA_S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
      SOCIAL_PUBLISHER_MEDIA_S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
    },
    keys: async () => {
      const response = await client.fetch(`${endpoint}/${bucket}?list-type=2`);
      const text = await response.text();
      if (!response.ok) throw new Error(`ListObjectsV2: ${response.status} ${text}`);
      return [...text.matchAll(/<Key>([^<]+)<\/Key>/g)].map((match) => match[1]!);
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Relay {
  endpoint: string;
  /** Bytes sent through it towards the server so far. */
  sentBytes(): number;
  /** Told each time bytes go through towards the server, with the total so far. */
  onSent(listener: (total: number) => void): void;
  /** Drops every connection at once, as a network that fails mid-transfer. */
  cut(): void;
  close(): Promise<void>;
}

/** A loopback TCP relay to `endpoint` that counts what goes through and can cut it. */
export async function relayTo(endpoint: string): Promise<Relay> {
  const target = new URL(endpoint);
  const sockets = new Set<Socket>();
  const listeners: ((total: number) => void)[] = [];
  let sent = 0;
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      for (const listener of listeners) listener(sent);
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    sentBytes: () => sent,
    onSent: (listener) => listeners.push(listener),
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
