/**
 * Downloads media from public URLs (undici), safely: http and https only; redirects followed by hand, a
 * few at most, each one checked again; addresses in private, loopback, link-local and other special
 * ranges refused unless configured as allowed, both for literal hosts and for what a name resolves to at
 * connect time (so a name cannot be re-pointed between check and use); a deadline for the whole transfer
 * and for a stalled body. The announced length is only shown as progress; the size limit is enforced on
 * the bytes actually read.
 */
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Agent, Dispatcher } from 'undici';
import { ValidationError } from '../domain/errors.js';
import type { Download, MediaDownloader } from '../ports.js';

export interface UrlDownloaderOptions {
  /** Addresses or CIDR ranges allowed although private (e.g. "127.0.0.1", "10.1.0.0/16"). */
  allow?: readonly string[];
  /** The whole transfer, headers and body. */
  timeoutMs?: number;
  /** Longest wait for the response headers, or between two pieces of the body. */
  stallTimeoutMs?: number;
  maxRedirects?: number;
  userAgent?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Ranges no public file lives in: the IANA IPv4 and IPv6 Special-Purpose Address Registries, whole.
 * Ranges that embed an IPv4 address (IPv4-mapped and -compatible, NAT64, 6to4, Teredo) are refused
 * whole rather than decoded, whatever IPv4 address they carry: no public file needs them, a download
 * has no business going through a translator or relay, and decoding would be one more parser to get
 * wrong. (The allow-list does see an IPv4-mapped address as its IPv4 address, in either spelling.)
 */
export const SPECIAL_PURPOSE_RANGES: ReadonlyArray<readonly [network: string, prefix: number]> = [
  // IPv4
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112 service
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved
  ['255.255.255.255', 32], // limited broadcast (inside 240/4; listed as the registry does)
  // IPv6
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::ffff:0:0', 96], // IPv4-mapped
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64 well-known prefix
  ['64:ff9b:1::', 48], // NAT64 local-use
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48, ORCHIDv2 2001:20::/28
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['2620:4f:8000::', 48], // direct delegation AS112 service
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing (SRv6) SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

/**
 * One list per family: node's BlockList matches an IPv4 address against IPv6 rules as its IPv4-mapped
 * form, so with ::ffff:0:0/96 in a shared list every IPv4 address, public ones too, would be refused.
 */
function specialRanges(family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of SPECIAL_PURPOSE_RANGES) {
    if ((isIP(network) === 6 ? 'ipv6' : 'ipv4') === family) list.addSubnet(network, prefix, family);
  }
  return list;
}

/** The IPv4 address an IPv4-mapped IPv6 address stands for, in either spelling (::ffff:7f00:1 too). */
function mappedIPv4(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [high, low] = [Number.parseInt(hex[1]!, 16), Number.parseInt(hex[2]!, 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** Built on the first check, not at start: most sessions never fetch a URL. */
let special: { ipv4: BlockList; ipv6: BlockList } | undefined;

/** The address is in a special-purpose range (whatever an allow-list says). */
export function isSpecialPurposeAddress(address: string): boolean {
  special ??= { ipv4: specialRanges('ipv4'), ipv6: specialRanges('ipv6') };
  return isIP(address) === 6 ? special.ipv6.check(address, 'ipv6') : special.ipv4.check(address, 'ipv4');
}

/** The allowed ranges; none without entries (a BlockList loads two of Node's modules at the start). */
function allowList(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (!isIP(address)) throw new Error(`Not an IP address or CIDR range: ${entry}`);
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

const urlError = (text: string) => ValidationError.single('url', text);

export class UrlDownloader implements MediaDownloader {
  private readonly allowed: BlockList | undefined;
  private readonly stallMs: number;
  /** undici is loaded, and the agent made, on the first download: most sessions never fetch a URL. */
  private client: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly userAgent: string;

  constructor(options: UrlDownloaderOptions = {}) {
    this.allowed = allowList(options.allow ?? []);
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.userAgent = options.userAgent ?? 'social-publisher-mcp';
    this.stallMs = options.stallTimeoutMs ?? 20_000;
  }

  private undici() {
    this.client ??= import('./undici-client.js').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        headersTimeout: this.stallMs,
        bodyTimeout: this.stallMs,
        connectTimeout: this.stallMs,
        connect: { lookup: (hostname, opts, callback) => this.lookup(hostname, opts, callback) },
      }),
    }));
    // A load that failed is tried again by the next download rather than remembered.
    this.client.catch(() => {
      this.client = undefined;
    });
    return this.client;
  }

  /** Why an address may not be fetched, or undefined when it may. */
  private refusal(address: string): string | undefined {
    const plain = mappedIPv4(address) ?? address;
    if (this.allowed?.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4')) return undefined;
    if (isSpecialPurposeAddress(address)) {
      return `The url points to a private or local network address (${address}), which is not allowed.`;
    }
    return undefined;
  }

  /** DNS lookup for connections: answers only with addresses that may be fetched. */
  private lookup(
    hostname: string,
    options: object,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void {
    // node:dns is loaded by the first download, not at every start.
    const { lookup } = process.getBuiltinModule('node:dns');
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const usable = addresses.filter((entry) => this.refusal(entry.address) === undefined);
      if (usable.length === 0) {
        const refused = Object.assign(new Error(this.refusal(addresses[0]?.address ?? '') ?? 'No address'), {
          code: 'EREFUSEDADDRESS',
        });
        return callback(refused, '');
      }
      if ((options as { all?: boolean }).all) return callback(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  }

  private checkUrl(text: string): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw urlError('The url format is invalid.');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw urlError('The url must use http or https.');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const refusal = this.refusal(host);
      if (refusal) throw urlError(refusal);
    }
    return url;
  }

  async open(text: string, signal?: AbortSignal): Promise<Download> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const abort = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let url = this.checkUrl(text);
    const { agent, request } = await this.undici();
    for (let hop = 0; ; hop++) {
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, {
          method: 'GET',
          dispatcher: agent,
          signal: abort,
          headers: { 'user-agent': this.userAgent, accept: '*/*' },
        });
      } catch (error) {
        throw this.explain(error, deadline, signal);
      }
      if (REDIRECTS.has(response.statusCode)) {
        await response.body.dump();
        const location = response.headers.location;
        if (typeof location !== 'string') throw urlError('The url redirected without saying where to.');
        if (hop >= this.maxRedirects)
          throw urlError(`The url redirected more than ${this.maxRedirects} times.`);
        url = this.checkUrl(new URL(location, url).toString());
        continue;
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        await response.body.dump();
        throw urlError(`The url answered ${response.statusCode}: the file could not be downloaded from it.`);
      }
      const length = Number(response.headers['content-length']);
      return {
        announcedBytes: Number.isSafeInteger(length) && length >= 0 ? length : undefined,
        body: this.guard(response.body, deadline, signal),
      };
    }
  }

  /** The body, with transport failures turned into the url's validation errors. */
  private async *guard(
    body: AsyncIterable<Uint8Array>,
    deadline: AbortSignal,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of body) yield chunk;
    } catch (error) {
      throw this.explain(error, deadline, signal);
    }
  }

  private explain(error: unknown, deadline: AbortSignal, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason;
    if (deadline.aborted) {
      const seconds = this.timeoutMs / 1000;
      return urlError(
        `The url did not deliver the file within ${seconds} second${seconds === 1 ? '' : 's'}.`,
      );
    }
    const code =
      (error as { code?: string; cause?: { code?: string } }).code ??
      (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'EREFUSEDADDRESS') return urlError((error as Error).message);
    // undici's error codes (HeadersTimeoutError, BodyTimeoutError, ResponseContentLengthMismatchError).
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return urlError('The url stopped answering before the file was downloaded.');
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return urlError('The url names a host that could not be found.');
    if (
      code === 'UND_ERR_SOCKET' ||
      code === 'ECONNRESET' ||
      code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH'
    ) {
      return urlError('The connection to the url closed before the whole file was received.');
    }
    if (error instanceof ValidationError) return error;
    return urlError(`The url could not be reached (${code ?? (error as Error).message}).`);
  }

  async close(): Promise<void> {
    // A client that failed to load has nothing to close (its download already reported the failure).
    const client = await this.client?.catch(() => undefined);
    await client?.agent.close();
  }
}
