/**
 * The address check behind every url download (literal hosts and what names resolve to at connect
 * time): the IANA IPv4 and IPv6 Special-Purpose Address Registries, each range refused from its first to
 * its last address, and the public addresses next to them (and well-known public ones) not refused. No
 * traffic: the check is a pure function. The downloader's use of it is in url-source.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { isSpecialPurposeAddress, SPECIAL_PURPOSE_RANGES } from '../../src/media/url-download.js';

/** Each registry range with its first and last address. */
const RANGES: Array<[range: string, first: string, last: string]> = [
  ['0.0.0.0/8', '0.0.0.0', '0.255.255.255'],
  ['10.0.0.0/8', '10.0.0.0', '10.255.255.255'],
  ['100.64.0.0/10', '100.64.0.0', '100.127.255.255'],
  ['127.0.0.0/8', '127.0.0.0', '127.255.255.255'],
  ['169.254.0.0/16', '169.254.0.0', '169.254.255.255'],
  ['172.16.0.0/12', '172.16.0.0', '172.31.255.255'],
  ['192.0.0.0/24', '192.0.0.0', '192.0.0.255'],
  ['192.0.2.0/24', '192.0.2.0', '192.0.2.255'],
  ['192.31.196.0/24', '192.31.196.0', '192.31.196.255'],
  ['192.52.193.0/24', '192.52.193.0', '192.52.193.255'],
  ['192.88.99.0/24', '192.88.99.0', '192.88.99.255'],
  ['192.168.0.0/16', '192.168.0.0', '192.168.255.255'],
  ['192.175.48.0/24', '192.175.48.0', '192.175.48.255'],
  ['198.18.0.0/15', '198.18.0.0', '198.19.255.255'],
  ['198.51.100.0/24', '198.51.100.0', '198.51.100.255'],
  ['203.0.113.0/24', '203.0.113.0', '203.0.113.255'],
  ['224.0.0.0/4', '224.0.0.0', '239.255.255.255'],
  ['240.0.0.0/4', '240.0.0.0', '255.255.255.254'],
  ['255.255.255.255/32', '255.255.255.255', '255.255.255.255'],
  ['::/128', '::', '::'],
  ['::1/128', '::1', '::1'],
  ['::ffff:0:0/96', '::ffff:0.0.0.0', '::ffff:255.255.255.255'],
  ['::/96', '::0.0.0.2', '::255.255.255.255'],
  ['64:ff9b::/96', '64:ff9b::', '64:ff9b::ffff:ffff'],
  ['64:ff9b:1::/48', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
  ['100::/64', '100::', '100::ffff:ffff:ffff:ffff'],
  ['100:0:0:1::/64', '100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff'],
  ['2001::/23', '2001::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2001:db8::/32', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2002::/16', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['2620:4f:8000::/48', '2620:4f:8000::', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff'],
  ['3fff::/20', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['5f00::/16', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fe80::/10', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['fec0::/10', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['ff00::/8', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
];

/** Public addresses: just outside a range, or well known. */
const PUBLIC = [
  '1.0.0.0',
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.0',
  '192.0.3.0',
  '192.31.195.255',
  '192.31.197.0',
  '192.52.192.255',
  '192.52.194.0',
  '192.88.98.255',
  '192.88.100.0',
  '192.167.255.255',
  '192.169.0.0',
  '192.175.47.255',
  '192.175.49.0',
  '198.17.255.255',
  '198.20.0.0',
  '198.51.99.255',
  '198.51.101.0',
  '203.0.112.255',
  '203.0.114.0',
  '223.255.255.255',
  '64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff',
  '64:ff9b:0:0:0:1::',
  '64:ff9b:2::',
  '100:0:0:2::',
  '2001:200::',
  '2001:4860:4860::8888',
  '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
  '2001:db9::',
  '2003::',
  '2606:4700:4700::1111',
  '2620:4f:7fff:ffff:ffff:ffff:ffff:ffff',
  '2620:4f:8001::',
  '3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  '3fff:1000::',
  '5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  '5f01::',
  'fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  'fe00::',
  'fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
];

describe('special-purpose addresses', () => {
  it('lists exactly the ranges of the IANA registries', () => {
    expect(SPECIAL_PURPOSE_RANGES.map(([network, prefix]) => `${network}/${prefix}`).sort()).toEqual(
      RANGES.map(([range]) => range).sort(),
    );
  });

  it.each(RANGES)('refuses %s from %s to %s', (_range, first, last) => {
    expect(isSpecialPurposeAddress(first)).toBe(true);
    expect(isSpecialPurposeAddress(last)).toBe(true);
  });

  it.each(PUBLIC)('does not refuse the public address %s', (address) => {
    expect(isSpecialPurposeAddress(address)).toBe(false);
  });

  it('refuses ranges that embed an IPv4 address whole, whatever address they carry', () => {
    for (const address of [
      '::ffff:8.8.8.8', // IPv4-mapped
      '::ffff:808:808', // the same, as a URL spells it
      '::8.8.8.8', // IPv4-compatible
      '64:ff9b::8.8.8.8', // NAT64
      '2002:808:808::1', // 6to4
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    ]) {
      expect(isSpecialPurposeAddress(address), address).toBe(true);
    }
  });
});
