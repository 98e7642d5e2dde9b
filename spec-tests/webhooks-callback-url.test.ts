/**
 * Callback URLs and SSRF (src/webhooks/callbackUrl.ts): which URLs may be registered, which
 * addresses may be called whatever their spelling, the check of every address a name resolves
 * to at registration, the lookup that refuses a forbidden address when a delivery connects, and
 * the agent that checks every socket before it opens, IP-literal hosts included.
 *
 * No test needs the internet: names resolve through an injected resolver, or through /etc/hosts
 * (`localhost`), or are names that never resolve (`.invalid`, RFC 6761).
 */
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCallbackUrl, forbiddenAddressReason, guardedAgent, guardedLookup, validateCallbackUrl } from '../src/webhooks/callbackUrl.ts';

const DEV = { production: false, allowedHosts: [] };
const PROD = { production: true, allowedHosts: [] };
const TESTS = { production: false, allowedHosts: ['127.0.0.1', 'localhost'] };
/** The end of a refusal for `host`: the rule, and the option that would exempt it. */
const ONLY_PUBLIC = (host: string): string => `only public addresses may be called (to allow this one, add ${host} to the webhooks' allowedHosts option)`;

/** The message for a URL whose IP-literal host is forbidden. */
const hostIs = (host: string, reason: string): string => `The callback URL's host ${host} is ${reason}; ${ONLY_PUBLIC(host)}.`;

// ---------------------------------------------------------------------------------------------
// The forbidden IPv4 ranges, written from the specification (RFC 6890 and friends), not from the module.

const IPV4_FORBIDDEN: ReadonlyArray<[cidr: string, reason: string]> = [
  ['0.0.0.0/8', 'a reserved address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'a reserved address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a reserved address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
];

/** Single addresses inside those ranges with a class of their own, and one outside (Azure's wire server). */
const IPV4_SINGLES: Readonly<Record<string, string>> = {
  '0.0.0.0': 'an unspecified address',
  '100.100.100.200': 'a cloud metadata address',
  '168.63.129.16': 'a cloud metadata address',
  '169.254.169.254': 'a cloud metadata address',
  '169.254.170.2': 'a cloud metadata address',
  '192.0.0.192': 'a cloud metadata address',
  '255.255.255.255': 'a broadcast address',
};

function cidrBounds(cidr: string): [number, number] {
  const [base = '', bits = ''] = cidr.split('/');
  const start = base.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
  return [start, start + 2 ** (32 - Number(bits)) - 1];
}

const dotted = (value: number): string => [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
const hex4 = (value: number): string => value.toString(16).padStart(4, '0');

/** What the specification says an IPv4 address is: its class, or null for public. */
function expectedIpv4Reason(value: number): string | null {
  const single = IPV4_SINGLES[dotted(value)];
  if (single !== undefined) return single;
  for (const [cidr, reason] of IPV4_FORBIDDEN) {
    const [start, end] = cidrBounds(cidr);
    if (value >= start && value <= end) return reason;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------

describe('checkCallbackUrl: refusals, word for word', () => {
  it.each([
    ['a number', 42, 'The callback URL must be a string, got a number.'],
    ['null', null, 'The callback URL must be a string, got null.'],
    ['undefined', undefined, 'The callback URL must be a string, got undefined.'],
    ['an object', { href: 'https://hooks.example.com/' }, 'The callback URL must be a string, got an object.'],
    ['a URL object', new URL('https://hooks.example.com/'), 'The callback URL must be a string, got an object.'],
    ['an array', ['https://hooks.example.com/'], 'The callback URL must be a string, got an array.'],
    ['the empty string', '', 'The callback URL is empty.'],
    ['blanks', '   \t', 'The callback URL is empty.'],
    ['a 10 KB URL', `https://hooks.example.com/${'a'.repeat(10_240 - 26)}`, 'The callback URL is 10,240 characters long; at most 2,048 are allowed.'],
    ['2,049 characters', `https://hooks.example.com/${'a'.repeat(2049 - 26)}`, 'The callback URL is 2,049 characters long; at most 2,048 are allowed.'],
    ['a relative URL', '/hooks', 'The callback URL is not a valid absolute URL.'],
    ['a bare host', 'hooks.example.com', 'The callback URL is not a valid absolute URL.'],
    ['words', 'not a url', 'The callback URL is not a valid absolute URL.'],
    ['http without a host', 'http://', 'The callback URL is not a valid absolute URL.'],
    ['a bad IPv6 literal', 'https://[::1::2]/', 'The callback URL is not a valid absolute URL.'],
    ['an IPv4 host out of range', 'http://256.0.0.1/', 'The callback URL is not a valid absolute URL.'],
    ['javascript:', 'javascript:alert(1)', 'The callback URL must use https or http, not javascript.'],
    ['file:', 'file:///etc/passwd', 'The callback URL must use https or http, not file.'],
    ['data:', 'data:text/plain,hello', 'The callback URL must use https or http, not data.'],
    ['ftp:', 'ftp://files.example.com/hook', 'The callback URL must use https or http, not ftp.'],
    ['gopher:', 'gopher://127.0.0.1:6379/_INFO', 'The callback URL must use https or http, not gopher.'],
    ['ws:', 'ws://hooks.example.com/', 'The callback URL must use https or http, not ws.'],
    ['a username and password', 'https://user:secret@hooks.example.com/', 'The callback URL must not contain a username or password.'],
    ['a username', 'https://user@hooks.example.com/', 'The callback URL must not contain a username or password.'],
    ['a password', 'https://:secret@hooks.example.com/', 'The callback URL must not contain a username or password.'],
  ])('refuses %s', (_name, value, message) => {
    expect(checkCallbackUrl(value, DEV)).toBe(message);
  });

  it.each([
    ['http:', 'http://hooks.example.com/', 'The callback URL must use https in production, not http.'],
    ['javascript:', 'javascript:alert(1)', 'The callback URL must use https in production, not javascript.'],
    ['file:', 'file:///etc/passwd', 'The callback URL must use https in production, not file.'],
  ])('in production, refuses %s', (_name, value, message) => {
    expect(checkCallbackUrl(value, PROD)).toBe(message);
  });

  it('in production, refuses http even for an allowlisted host', () => {
    expect(checkCallbackUrl('http://127.0.0.1:8080/', { production: true, allowedHosts: ['127.0.0.1'] })).toBe('The callback URL must use https in production, not http.');
  });

  it('accepts 2,048 characters', () => {
    const value = `https://hooks.example.com/${'a'.repeat(2048 - 26)}`;
    expect(value.length).toBe(2048);
    expect(checkCallbackUrl(value, DEV)).toBeInstanceOf(URL);
  });
});

describe('checkCallbackUrl: IP-literal and loopback hosts', () => {
  it.each([
    // Loopback, in the spellings URL parsers accept.
    ['http://127.0.0.1/', '127.0.0.1', 'a loopback address'],
    ['http://127.1/', '127.0.0.1', 'a loopback address'],
    ['http://127.0.1/', '127.0.0.1', 'a loopback address'],
    ['http://2130706433/', '127.0.0.1', 'a loopback address'],
    ['http://0x7f000001/', '127.0.0.1', 'a loopback address'],
    ['http://0x7f.1/', '127.0.0.1', 'a loopback address'],
    ['http://0x7F.0x0.0x0.0x1/', '127.0.0.1', 'a loopback address'],
    ['http://017700000001/', '127.0.0.1', 'a loopback address'],
    ['http://0177.0.0.01/', '127.0.0.1', 'a loopback address'],
    ['http://127.0.0.1./', '127.0.0.1', 'a loopback address'],
    ['http://127.255.255.254:8080/admin', '127.255.255.254', 'a loopback address'],
    ['https://[::1]/', '::1', 'a loopback address'],
    ['https://[0:0:0:0:0:0:0:1]/', '::1', 'a loopback address'],
    ['https://[0000:0000:0000:0000:0000:0000:0000:0001]:8443/', '::1', 'a loopback address'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1', 'a loopback address'],
    ['https://[::FFFF:7F00:1]/', '::ffff:7f00:1', 'a loopback address'],
    ['https://[0:0:0:0:0:ffff:7f00:0001]/', '::ffff:7f00:1', 'a loopback address'],
    // Unspecified.
    ['http://0.0.0.0/', '0.0.0.0', 'an unspecified address'],
    ['http://0/', '0.0.0.0', 'an unspecified address'],
    ['http://0x0/', '0.0.0.0', 'an unspecified address'],
    ['https://[::]/', '::', 'an unspecified address'],
    ['http://0.1.2.3/', '0.1.2.3', 'a reserved address'],
    // Private.
    ['http://10.0.0.1/', '10.0.0.1', 'a private address'],
    ['http://167772161/', '10.0.0.1', 'a private address'],
    ['http://0xa.0.0.1/', '10.0.0.1', 'a private address'],
    ['http://012.0.0.1/', '10.0.0.1', 'a private address'],
    ['http://172.16.0.1/', '172.16.0.1', 'a private address'],
    ['http://172.31.255.255/', '172.31.255.255', 'a private address'],
    ['http://192.168.1.1/', '192.168.1.1', 'a private address'],
    ['http://0xc0a80101/', '192.168.1.1', 'a private address'],
    ['http://3232235777/', '192.168.1.1', 'a private address'],
    ['https://[::ffff:192.168.1.1]/', '::ffff:c0a8:101', 'a private address'],
    ['https://[::ffff:10.0.0.1]/', '::ffff:a00:1', 'a private address'],
    // Carrier-grade NAT, link-local, cloud metadata.
    ['http://100.64.0.1/', '100.64.0.1', 'a carrier-grade NAT address'],
    ['http://100.127.255.255/', '100.127.255.255', 'a carrier-grade NAT address'],
    ['http://169.254.0.1/', '169.254.0.1', 'a link-local address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'a cloud metadata address'],
    ['http://2852039166/', '169.254.169.254', 'a cloud metadata address'],
    ['http://0xa9fea9fe/', '169.254.169.254', 'a cloud metadata address'],
    ['http://0251.0376.0251.0376/', '169.254.169.254', 'a cloud metadata address'],
    ['http://169.254.43518/', '169.254.169.254', 'a cloud metadata address'],
    ['https://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe', 'a cloud metadata address'],
    ['https://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe', 'a cloud metadata address'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254', 'a cloud metadata address'],
    ['https://[FD00:0EC2:0000:0000:0000:0000:0000:0254]/', 'fd00:ec2::254', 'a cloud metadata address'],
    ['http://100.100.100.200/', '100.100.100.200', 'a cloud metadata address'],
    ['http://169.254.170.2/v2/credentials', '169.254.170.2', 'a cloud metadata address'],
    // Reserved, documentation, benchmarking, multicast, broadcast.
    ['http://192.0.0.8/', '192.0.0.8', 'a reserved address'],
    ['http://192.0.2.1/', '192.0.2.1', 'a documentation address'],
    ['http://192.88.99.1/', '192.88.99.1', 'a reserved address'],
    ['http://198.18.0.1/', '198.18.0.1', 'a benchmarking address'],
    ['http://198.19.255.255/', '198.19.255.255', 'a benchmarking address'],
    ['http://198.51.100.7/', '198.51.100.7', 'a documentation address'],
    ['http://203.0.113.9/', '203.0.113.9', 'a documentation address'],
    ['http://224.0.0.1/', '224.0.0.1', 'a multicast address'],
    ['http://239.255.255.250/', '239.255.255.250', 'a multicast address'],
    ['http://240.0.0.1/', '240.0.0.1', 'a reserved address'],
    ['http://255.255.255.255/', '255.255.255.255', 'a broadcast address'],
    ['http://4294967295/', '255.255.255.255', 'a broadcast address'],
    ['http://0xffffffff/', '255.255.255.255', 'a broadcast address'],
    // IPv6 classes.
    ['https://[fc00::1]/', 'fc00::1', 'an IPv6 unique local address'],
    ['https://[fd12:3456:789a::1]/', 'fd12:3456:789a::1', 'an IPv6 unique local address'],
    ['https://[fe80::1]/', 'fe80::1', 'a link-local address'],
    ['https://[FEBF:FFFF::1]/', 'febf:ffff::1', 'a link-local address'],
    ['https://[fec0::1]/', 'fec0::1', 'a deprecated site-local address'],
    ['https://[ff02::1]/', 'ff02::1', 'a multicast address'],
    ['https://[2001:db8::1]/', '2001:db8::1', 'a documentation address'],
    ['https://[3fff::1]/', '3fff::1', 'a documentation address'],
    ['https://[2001::1]/', '2001::1', 'a Teredo address'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo address'],
    ['https://[2001:2::1]/', '2001:2::1', 'a benchmarking address'],
    ['https://[2001:10::1]/', '2001:10::1', 'a reserved address'],
    ['https://[100::1]/', '100::1', 'a discard-only address'],
    ['https://[::2]/', '::2', 'a deprecated IPv4-compatible address'],
    ['https://[::127.0.0.1]/', '::7f00:1', 'a deprecated IPv4-compatible address'],
    ['https://[4000::1]/', '4000::1', 'a reserved address'],
    ['https://[64:ff9b:1::1]/', '64:ff9b:1::1', 'a local-use NAT64 address'],
    // IPv4 carried in IPv6: NAT64 and 6to4.
    ['https://[64:ff9b::127.0.0.1]/', '64:ff9b::7f00:1', 'a NAT64 address embedding a loopback address'],
    ['https://[64:ff9b::a00:1]/', '64:ff9b::a00:1', 'a NAT64 address embedding a private address'],
    ['https://[64:ff9b::169.254.169.254]/', '64:ff9b::a9fe:a9fe', 'a NAT64 address embedding a cloud metadata address'],
    ['https://[2002:7f00:1::]/', '2002:7f00:1::', 'a 6to4 address embedding a loopback address'],
    ['https://[2002:c0a8:0101::1]/', '2002:c0a8:101::1', 'a 6to4 address embedding a private address'],
    ['https://[2002:a9fe:a9fe::]/', '2002:a9fe:a9fe::', 'a 6to4 address embedding a cloud metadata address'],
  ])('refuses %s', (value, host, reason) => {
    expect(checkCallbackUrl(value, DEV)).toBe(hostIs(host, reason));
  });

  it.each([
    ['http://localhost/', 'localhost'],
    ['http://LOCALHOST:3000/hook', 'localhost'],
    ['http://localhost./', 'localhost.'],
    ['http://foo.localhost/', 'foo.localhost'],
    ['https://a.b.Foo.LocalHost/', 'a.b.foo.localhost'],
    ['https://foo.localhost./', 'foo.localhost.'],
  ])('refuses the loopback name in %s without asking DNS', (value, host) => {
    expect(checkCallbackUrl(value, DEV)).toBe(`The callback URL's host ${host} is a loopback host name; ${ONLY_PUBLIC(host)}.`);
  });

  it.each(['http://notlocalhost/', 'http://localhost.example.com/', 'http://localhostx/', 'http://mylocalhost.com/'])('leaves %s (not a localhost name) to DNS', (value) => {
    expect(checkCallbackUrl(value, DEV)).toBeInstanceOf(URL);
  });

  it.each([
    ['https://8.8.8.8/hook', '8.8.8.8'],
    ['https://1.1.1.1/', '1.1.1.1'],
    ['https://93.184.216.34/', '93.184.216.34'],
    ['http://134744072/', '8.8.8.8'],
    ['http://0x08080808/', '8.8.8.8'],
    ['https://[2606:4700:4700::1111]/', '[2606:4700:4700::1111]'],
    ['https://[::ffff:8.8.8.8]/', '[::ffff:808:808]'],
    ['https://[64:ff9b::8.8.8.8]/', '[64:ff9b::808:808]'],
    ['https://[2002:808:808::1]/', '[2002:808:808::1]'],
    ['https://hooks.example.com/webhooks?x=1', 'hooks.example.com'],
    ['http://hooks.example.com:8080/', 'hooks.example.com'],
    ['https://172.32.0.1/', '172.32.0.1'],
    ['https://100.128.0.1/', '100.128.0.1'],
    ['https://198.20.0.1/', '198.20.0.1'],
    ['https://223.255.255.255/', '223.255.255.255'],
    ['https://11.0.0.1/', '11.0.0.1'],
  ])('accepts %s', (value, hostname) => {
    const url = checkCallbackUrl(value, DEV);
    expect(url).toBeInstanceOf(URL);
    expect((url as URL).hostname).toBe(hostname);
  });

  it('accepts https in production', () => {
    expect((checkCallbackUrl('https://hooks.example.com/', PROD) as URL).href).toBe('https://hooks.example.com/');
  });

  it.each([
    ['http://127.0.0.1:8080/hook', ['127.0.0.1']],
    ['http://2130706433/', ['127.0.0.1']],
    ['http://0x7f.1/', ['127.0.0.1']],
    ['https://[::ffff:127.0.0.1]/', ['127.0.0.1']],
    ['http://localhost:3000/', ['localhost']],
    ['http://LocalHost./', ['localhost']],
    ['http://localhost/', ['LOCALHOST']],
    ['http://foo.localhost/', ['Foo.Localhost']],
    ['https://[::1]/', ['::1']],
    ['https://[::1]/', ['0:0:0:0:0:0:0:1']],
    ['https://[::1]/', ['[::1]']],
    ['http://10.1.2.3/', ['10.1.2.3']],
    ['https://[fd12::1]/', ['FD12:0::1']],
  ])('accepts %s when %j is allowlisted', (value, allowedHosts) => {
    expect(checkCallbackUrl(value, { production: false, allowedHosts })).toBeInstanceOf(URL);
  });

  it('exempts only the allowlisted host', () => {
    expect(checkCallbackUrl('http://127.0.0.2/', TESTS)).toBe(hostIs('127.0.0.2', 'a loopback address'));
    expect(checkCallbackUrl('https://[::1]/', TESTS)).toBe(hostIs('::1', 'a loopback address'));
    expect(checkCallbackUrl('http://foo.localhost/', TESTS)).toBe(`The callback URL's host foo.localhost is a loopback host name; ${ONLY_PUBLIC('foo.localhost')}.`);
  });
});

describe('the setting a refusal names', () => {
  it('names how the operator exempts the host, when told (the demo: its environment variable)', async () => {
    const demo = { ...DEV, allowedHostsSetting: 'WEBHOOK_ALLOWED_HOSTS (hosts separated by commas)' };
    const refusal =
      "The callback URL's host 127.0.0.1 is a loopback address; only public addresses may be called (to allow this one, add 127.0.0.1 to WEBHOOK_ALLOWED_HOSTS (hosts separated by commas)).";
    expect(checkCallbackUrl('http://127.0.0.1:9000/hooks', demo)).toBe(refusal);
    expect(await validateCallbackUrl('http://127.0.0.1:9000/hooks', demo)).toBe(refusal);
    expect(checkCallbackUrl('http://[::1]:9000/hooks', demo)).toBe(
      "The callback URL's host ::1 is a loopback address; only public addresses may be called (to allow this one, add ::1 to WEBHOOK_ALLOWED_HOSTS (hosts separated by commas)).",
    );
  });
});

describe('forbiddenAddressReason', () => {
  it.each([
    ['a loopback address', ['127.0.0.1', '127.12.34.56', '::1', '0:0:0:0:0:0:0:1', '0000:0000:0000:0000:0000:0000:0000:0001', '::0:1', '::1%lo', '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:7F00:0001', '0:0:0:0:0:ffff:127.0.0.1', '::ffff:7f00:1%eth0']],
    ['an unspecified address', ['0.0.0.0', '::', '0:0:0:0:0:0:0:0', '::0', '::ffff:0.0.0.0', '::ffff:0:0']],
    ['a reserved address', ['0.0.0.1', '0.255.255.255', '192.0.0.1', '192.88.99.1', '240.0.0.1', '255.255.255.254', '::ffff:240.0.0.0', '4000::', '8000::1', 'e000::', '1000::1', '0100:0:0:1::', '2001:1::1', '2001:1ff:ffff::1']],
    ['a private address', ['10.0.0.0', '10.255.255.255', '172.16.0.0', '172.31.255.255', '192.168.0.0', '192.168.255.255', '::ffff:10.0.0.1', '::ffff:a00:1', '::ffff:ac10:1', '::FFFF:C0A8:0101']],
    ['a carrier-grade NAT address', ['100.64.0.0', '100.127.255.255', '::ffff:100.64.0.1']],
    ['a link-local address', ['169.254.0.0', '169.254.255.255', 'fe80::1', 'fe80::1%eth0', 'FE80::ABCD%25en0', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '::ffff:169.254.1.1']],
    ['a cloud metadata address', ['169.254.169.254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '169.254.170.2', '100.100.100.200', '192.0.0.192', '168.63.129.16', 'fd00:ec2::254', 'fd00:0ec2:0000:0000:0000:0000:0000:0254', 'FD00:EC2::254', 'fd00:ec2:0:0:0:0:0:254%eth0']],
    ['a documentation address', ['192.0.2.0', '192.0.2.255', '198.51.100.1', '203.0.113.255', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:DB8::1', '3fff::', '3fff:fff:ffff::1']],
    ['a benchmarking address', ['198.18.0.0', '198.19.255.255', '2001:2::1', '2001:2:0:ffff::1']],
    ['a multicast address', ['224.0.0.0', '239.255.255.255', 'ff00::', 'ff02::1', 'FF05::1:3', '::ffff:224.0.0.251']],
    ['a broadcast address', ['255.255.255.255', '::ffff:255.255.255.255', '::ffff:ffff:ffff']],
    ['an IPv6 unique local address', ['fc00::', 'fd00::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fd00:ec2::253', 'FD12:3456::1']],
    ['a deprecated site-local address', ['fec0::1', 'feff::1']],
    ['a Teredo address', ['2001::', '2001:0:ffff:ffff::1', '2001:0000:4136:e378:8000:63bf:3fff:fdd2']],
    ['a discard-only address', ['100::', '100::ffff:ffff:ffff:ffff', '0100:0000:0000:0000::1']],
    ['a deprecated IPv4-compatible address', ['::2', '::127.0.0.1', '::8.8.8.8', '::ffff']],
    ['a local-use NAT64 address', ['64:ff9b:1::', '64:ff9b:1:ffff::1']],
    ['a NAT64 address embedding a loopback address', ['64:ff9b::127.0.0.1', '64:ff9b::7f00:1', '0064:FF9B:0000:0000:0000:0000:7F00:0001']],
    ['a NAT64 address embedding a private address', ['64:ff9b::10.0.0.1', '64:ff9b::c0a8:101']],
    ['a NAT64 address embedding a cloud metadata address', ['64:ff9b::169.254.169.254']],
    ['a NAT64 address embedding an unspecified address', ['64:ff9b::']],
    ['a 6to4 address embedding a loopback address', ['2002:7f00:1::', '2002:7f00:0001:0:0:0:0:1', '2002:7F00:1::1%eth0']],
    ['a 6to4 address embedding a private address', ['2002:a00:1::', '2002:c0a8:101:1::1']],
    ['a 6to4 address embedding a broadcast address', ['2002:ffff:ffff::']],
  ])('%s', (reason, addresses) => {
    for (const address of addresses) expect([address, forbiddenAddressReason(address)]).toEqual([address, reason]);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.255',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2606:4700:4700:0:0:0:0:1111',
    '2001:4860:4860::8888',
    '2001:200::1',
    '2001:db7:ffff::1',
    '2001:db9::1',
    '2003::1',
    '3ffe::1',
    '3fff:1000::1',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b::5db8:d822',
    '2002:808:808::1',
    '2002:5db8:d822::',
  ])('%s is public', (address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });

  it.each(['', 'example.com', '127.1', '2130706433', '0x7f000001', '010.0.0.1', '1.2.3.4.5', '256.0.0.1', '[::1]', ' 8.8.8.8', '8.8.8.8:80', '::1::2', 'g::1', '%eth0'])(
    'refuses %j, which is not an address',
    (text) => {
      expect(forbiddenAddressReason(text)).toBe('not an IP address');
    },
  );
});

// ---------------------------------------------------------------------------------------------

type Resolved = Array<{ address: string; family: number }>;

/** A resolver from a table, counting its calls; a name not in it gets ENOTFOUND. */
function fakeResolver(table: Record<string, Resolved>): { lookup: (hostname: string) => Promise<Resolved>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async lookup(hostname) {
      asked.push(hostname);
      const answer = table[hostname];
      if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return answer;
    },
  };
}

const v4 = (address: string) => ({ address, family: 4 });
const v6 = (address: string) => ({ address, family: 6 });

describe('validateCallbackUrl', () => {
  const names = fakeResolver({
    'hooks.example.com': [v4('93.184.216.34')],
    'dual.example.com': [v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')],
    'rebind.example.com': [v4('93.184.216.34'), v4('10.0.0.1')],
    'metadata.example.com': [v4('169.254.169.254')],
    'mapped.example.com': [v6('::ffff:127.0.0.1')],
    'ula.example.com': [v4('93.184.216.34'), v6('fd00::1')],
    'nat64.example.com': [v6('64:ff9b::a9fe:a9fe')],
    'garbage.example.com': [v4('not-an-address')],
    'empty.example.com': [],
    'receiver.internal': [v4('10.1.2.3')],
  });

  it('accepts a name that resolves to public addresses only', async () => {
    const url = await validateCallbackUrl('https://hooks.example.com/webhooks', { ...PROD, lookup: names.lookup });
    expect(url).toBeInstanceOf(URL);
    expect((url as URL).href).toBe('https://hooks.example.com/webhooks');
    expect(await validateCallbackUrl('https://dual.example.com/', { ...PROD, lookup: names.lookup })).toBeInstanceOf(URL);
  });

  it.each([
    ['rebind.example.com', '10.0.0.1, a private address'],
    ['metadata.example.com', '169.254.169.254, a cloud metadata address'],
    ['mapped.example.com', '::ffff:127.0.0.1, a loopback address'],
    ['ula.example.com', 'fd00::1, an IPv6 unique local address'],
    ['nat64.example.com', '64:ff9b::a9fe:a9fe, a NAT64 address embedding a cloud metadata address'],
    ['garbage.example.com', 'not-an-address, not an IP address'],
  ])('refuses %s, one of whose addresses is forbidden', async (host, what) => {
    expect(await validateCallbackUrl(`https://${host}/`, { ...DEV, lookup: names.lookup })).toBe(`The callback URL's host ${host} resolves to ${what}; ${ONLY_PUBLIC(host)}.`);
  });

  it('refuses a name that does not resolve, or resolves to nothing', async () => {
    expect(await validateCallbackUrl('https://nowhere.example.com/', { ...DEV, lookup: names.lookup })).toBe("The callback URL's host nowhere.example.com could not be resolved (ENOTFOUND).");
    expect(await validateCallbackUrl('https://empty.example.com/', { ...DEV, lookup: names.lookup })).toBe("The callback URL's host empty.example.com resolves to no address.");
    const failing = async (): Promise<Resolved> => {
      throw new Error('resolver exploded');
    };
    expect(await validateCallbackUrl('https://hooks.example.com/', { ...DEV, lookup: failing })).toBe("The callback URL's host hooks.example.com could not be resolved.");
  });

  it('resolves with node when no lookup is given (a .invalid name never resolves)', async () => {
    const answer = await validateCallbackUrl('https://hooks.invalid/', DEV);
    expect(answer).toMatch(/^The callback URL's host hooks\.invalid could not be resolved \((ENOTFOUND|EAI_AGAIN|EAI_FAIL|ENODATA)\)\.$/);
  });

  it('refuses what checkCallbackUrl refuses without asking DNS', async () => {
    const resolver = fakeResolver({ localhost: [v4('93.184.216.34')] });
    expect(await validateCallbackUrl('ftp://hooks.example.com/', { ...DEV, lookup: resolver.lookup })).toBe('The callback URL must use https or http, not ftp.');
    expect(await validateCallbackUrl('http://hooks.example.com/', { ...PROD, lookup: resolver.lookup })).toBe('The callback URL must use https in production, not http.');
    expect(await validateCallbackUrl('http://0x7f.1/', { ...DEV, lookup: resolver.lookup })).toBe(hostIs('127.0.0.1', 'a loopback address'));
    expect(await validateCallbackUrl('http://localhost/', { ...DEV, lookup: resolver.lookup })).toBe(`The callback URL's host localhost is a loopback host name; ${ONLY_PUBLIC('localhost')}.`);
    expect(await validateCallbackUrl(7, { ...DEV, lookup: resolver.lookup })).toBe('The callback URL must be a string, got a number.');
    expect(resolver.asked).toEqual([]);
  });

  it('accepts a public IP literal without asking DNS', async () => {
    const resolver = fakeResolver({});
    expect(await validateCallbackUrl('https://93.184.216.34/', { ...DEV, lookup: resolver.lookup })).toBeInstanceOf(URL);
    expect(await validateCallbackUrl('https://[2606:4700:4700::1111]/', { ...DEV, lookup: resolver.lookup })).toBeInstanceOf(URL);
    expect(resolver.asked).toEqual([]);
  });

  it('accepts an allowlisted host without asking DNS', async () => {
    const resolver = fakeResolver({ localhost: [v4('127.0.0.1')] });
    expect(await validateCallbackUrl('http://localhost:4000/hook', { ...TESTS, lookup: resolver.lookup })).toBeInstanceOf(URL);
    expect(await validateCallbackUrl('http://127.0.0.1:4000/hook', { ...TESTS, lookup: resolver.lookup })).toBeInstanceOf(URL);
    expect(await validateCallbackUrl('http://RECEIVER.internal/', { production: false, allowedHosts: ['receiver.INTERNAL'], lookup: resolver.lookup })).toBeInstanceOf(URL);
    expect(resolver.asked).toEqual([]);
  });

  it('exempts the host as written, not an address a name resolves to', async () => {
    expect(await validateCallbackUrl('http://receiver.internal/', { production: false, allowedHosts: ['10.1.2.3'], lookup: names.lookup })).toBe(
      `The callback URL's host receiver.internal resolves to 10.1.2.3, a private address; ${ONLY_PUBLIC('receiver.internal')}.`,
    );
    expect(await validateCallbackUrl('http://receiver.internal/', { production: false, allowedHosts: ['receiver.internal'], lookup: names.lookup })).toBeInstanceOf(URL);
  });
});

// ---------------------------------------------------------------------------------------------

type LookupAnswer = { error: NodeJS.ErrnoException | null; address: string | dns.LookupAddress[] | undefined; family: number | undefined };

/** Calls a lookup function and gathers what it called back with. */
function callLookup(lookup: LookupFunction, hostname: string, options: dns.LookupOptions): Promise<LookupAnswer> {
  return new Promise((resolve) => lookup(hostname, options, (error, address, family) => resolve({ error, address, family })));
}

/** An underlying resolver from a table (every address, or the first with all:false), recording what it was asked. */
function fakeUnderlying(table: Record<string, dns.LookupAddress[]>): { lookup: LookupFunction; asked: Array<[string, dns.LookupOptions]> } {
  const asked: Array<[string, dns.LookupOptions]> = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    asked.push([hostname, options]);
    const answer = table[hostname];
    setImmediate(() => {
      if (answer === undefined || answer.length === 0) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', undefined);
      else if (options.all === true) callback(null, answer);
      else callback(null, answer[0]!.address, answer[0]!.family);
    });
  };
  return { lookup, asked };
}

describe('guardedLookup with a fake resolver', () => {
  const table: Record<string, dns.LookupAddress[]> = {
    'hooks.example.com': [v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')],
    'rebind.example.com': [v4('93.184.216.34'), v4('10.0.0.1')],
    'loopback.example.com': [v4('127.0.0.1')],
    'metadata.example.com': [v6('fd00:ec2::254')],
    'mapped.example.com': [v6('::ffff:169.254.169.254')],
    localhost: [v4('127.0.0.1'), v6('::1')],
    'receiver.internal': [v4('10.1.2.3')],
  };

  it('passes public answers through unchanged, with all true and false', async () => {
    const { lookup, asked } = fakeUnderlying(table);
    const guarded = guardedLookup([], lookup);
    expect(await callLookup(guarded, 'hooks.example.com', { all: true })).toEqual({ error: null, address: table['hooks.example.com'], family: undefined });
    expect(await callLookup(guarded, 'hooks.example.com', { all: false, family: 0 })).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    // The options reach the resolver as given.
    expect(asked).toEqual([
      ['hooks.example.com', { all: true }],
      ['hooks.example.com', { all: false, family: 0 }],
    ]);
  });

  it.each([
    ['loopback.example.com', false, 'Refused to connect to 127.0.0.1 (a loopback address) for loopback.example.com.'],
    ['loopback.example.com', true, 'Refused to connect to 127.0.0.1 (a loopback address) for loopback.example.com.'],
    ['rebind.example.com', true, 'Refused to connect to 10.0.0.1 (a private address) for rebind.example.com.'],
    ['metadata.example.com', true, 'Refused to connect to fd00:ec2::254 (a cloud metadata address) for metadata.example.com.'],
    ['mapped.example.com', false, 'Refused to connect to ::ffff:169.254.169.254 (a cloud metadata address) for mapped.example.com.'],
    ['localhost', true, 'Refused to connect to 127.0.0.1 (a loopback address) for localhost.'],
  ])('refuses %s (all: %s)', async (hostname, all, message) => {
    const guarded = guardedLookup(['127.0.0.2', 'other.example.com'], fakeUnderlying(table).lookup);
    const { error, address } = await callLookup(guarded, hostname, { all });
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toBe(message);
    expect(error!.code).toBe('ERR_WEBHOOK_FORBIDDEN_ADDRESS');
    // Nothing to connect to comes with the refusal.
    expect(address).toEqual(all ? [] : '');
  });

  it('with all: false, judges the one address returned', async () => {
    // rebind.example.com's first address is public: a single-address connection would go there.
    const guarded = guardedLookup([], fakeUnderlying(table).lookup);
    expect(await callLookup(guarded, 'rebind.example.com', { all: false })).toEqual({ error: null, address: '93.184.216.34', family: 4 });
  });

  it('passes an allowlisted hostname through, private or not', async () => {
    const guarded = guardedLookup(['LOCALHOST', 'receiver.internal.'], fakeUnderlying(table).lookup);
    expect(await callLookup(guarded, 'localhost', { all: true })).toEqual({ error: null, address: table.localhost, family: undefined });
    expect(await callLookup(guarded, 'receiver.internal', { all: false })).toEqual({ error: null, address: '10.1.2.3', family: 4 });
    expect((await callLookup(guarded, 'loopback.example.com', { all: false })).error?.code).toBe('ERR_WEBHOOK_FORBIDDEN_ADDRESS');
  });

  it('exempts the hostname as written, not an allowlisted address another name resolves to (DNS rebinding)', async () => {
    const guarded = guardedLookup(['127.0.0.1', '10.1.2.3'], fakeUnderlying(table).lookup);
    expect((await callLookup(guarded, 'loopback.example.com', { all: true })).error?.message).toBe('Refused to connect to 127.0.0.1 (a loopback address) for loopback.example.com.');
    expect((await callLookup(guarded, 'receiver.internal', { all: false })).error?.message).toBe('Refused to connect to 10.1.2.3 (a private address) for receiver.internal.');
  });

  it("passes the resolver's own error through", async () => {
    const { error } = await callLookup(guardedLookup([], fakeUnderlying(table).lookup), 'nowhere.example.com', { all: true });
    expect(error?.code).toBe('ENOTFOUND');
    expect(error?.message).toBe('getaddrinfo ENOTFOUND nowhere.example.com');
  });

  it('refuses an IP literal hostname, resolved by node', async () => {
    const guarded = guardedLookup([]);
    for (const [hostname, message] of [
      ['127.0.0.1', 'Refused to connect to 127.0.0.1 (a loopback address) for 127.0.0.1.'],
      ['::1', 'Refused to connect to ::1 (a loopback address) for ::1.'],
      ['169.254.169.254', 'Refused to connect to 169.254.169.254 (a cloud metadata address) for 169.254.169.254.'],
      ['::ffff:10.0.0.1', 'Refused to connect to ::ffff:10.0.0.1 (a private address) for ::ffff:10.0.0.1.'],
    ] as const) {
      for (const all of [true, false]) {
        const { error } = await callLookup(guarded, hostname, { all });
        expect([hostname, all, error?.message, error?.code]).toEqual([hostname, all, message, 'ERR_WEBHOOK_FORBIDDEN_ADDRESS']);
      }
    }
    expect(await callLookup(guarded, '93.184.216.34', { all: false })).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await callLookup(guardedLookup(['127.0.0.1']), '127.0.0.1', { all: true })).toEqual({ error: null, address: [v4('127.0.0.1')], family: undefined });
  });
});

describe('guardedLookup on a real connection', () => {
  let server: http.Server;
  let port = 0;
  let connections = 0;
  let requests = 0;

  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      requests++;
      response.end('ok');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Whether each lookup was asked for every address (all: true) or one. */
  const asked: boolean[] = [];

  function post(guarded: LookupFunction, autoSelectFamily: boolean): Promise<{ status: number; body: string } | NodeJS.ErrnoException> {
    const lookup: LookupFunction = (hostname, options, callback) => {
      asked.push(options.all === true);
      guarded(hostname, options, callback);
    };
    return new Promise((resolve) => {
      // autoSelectFamily (net's, passed through; @types/node 20 does not list it on requests): true, the lookup is asked with all: true.
      const options: http.RequestOptions & { autoSelectFamily: boolean } = { method: 'POST', agent: false, lookup, autoSelectFamily };
      const request = http.request(`http://localhost:${port}/hook`, options, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', resolve);
      request.end('{}');
    });
  }

  it.each([true, false])('refuses localhost (127.0.0.1 by /etc/hosts) before connecting (autoSelectFamily: %s)', async (autoSelectFamily) => {
    const before = { connections, requests };
    asked.length = 0;
    // 127.0.0.1 allowlisted as a host does not let the name localhost resolve there.
    const outcome = await post(guardedLookup(['127.0.0.1']), autoSelectFamily);
    expect(outcome).toBeInstanceOf(Error);
    const error = outcome as NodeJS.ErrnoException;
    expect(error.code).toBe('ERR_WEBHOOK_FORBIDDEN_ADDRESS');
    expect(error.message).toMatch(/^Refused to connect to (127\.0\.0\.1|::1) \(a loopback address\) for localhost\.$/);
    expect(asked).toEqual([autoSelectFamily]);
    // Give a connection that slipped through time to arrive: none does.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect({ connections, requests }).toEqual(before);
  });

  it.each([true, false])('connects to localhost when it is allowlisted (autoSelectFamily: %s)', async (autoSelectFamily) => {
    const before = { connections, requests };
    asked.length = 0;
    const outcome = await post(guardedLookup(['localhost']), autoSelectFamily);
    expect(outcome).toEqual({ status: 200, body: 'ok' });
    expect(asked).toEqual([autoSelectFamily]);
    expect({ connections, requests }).toEqual({ connections: before.connections + 1, requests: before.requests + 1 });
  });
});

describe('guardedAgent on a real connection', () => {
  let server: http.Server;
  let port = 0;
  let connections = 0;
  let requests = 0;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      requests++;
      request.resume();
      request.on('end', () => response.end('ok'));
    });
    server.on('connection', () => connections++);
    // Dual-stack: 127.0.0.1, ::1 and ::ffff:127.0.0.1 all reach it.
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** POSTs to the URL (PORT replaced) through a guardedAgent; the answer, or the request's error. */
  async function send(url: string, allowedHosts: ReadonlyArray<string>): Promise<{ status: number; body: string } | NodeJS.ErrnoException> {
    const target = new URL(url.replace('PORT', String(port)));
    const agent = guardedAgent(target.protocol === 'https:' ? 'https:' : 'http:', { allowedHosts, maxSockets: 1 });
    try {
      return await new Promise((resolve) => {
        const request = http.request(target, { method: 'POST', agent }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        request.on('error', resolve);
        request.end('{}');
      });
    } finally {
      agent.destroy();
    }
  }

  const LITERALS: ReadonlyArray<[url: string, message: string]> = [
    ['http://127.0.0.1:PORT/hook', 'Refused to connect to 127.0.0.1 (a loopback address) for 127.0.0.1.'],
    ['http://[::1]:PORT/hook', 'Refused to connect to ::1 (a loopback address) for ::1.'],
    ['http://[::ffff:127.0.0.1]:PORT/hook', 'Refused to connect to ::ffff:7f00:1 (a loopback address) for ::ffff:7f00:1.'],
    ['http://2130706433:PORT/hook', 'Refused to connect to 127.0.0.1 (a loopback address) for 127.0.0.1.'],
    ['http://0x7f.1:PORT/hook', 'Refused to connect to 127.0.0.1 (a loopback address) for 127.0.0.1.'],
    ['http://[0:0:0:0:0:0:0:1]:PORT/hook', 'Refused to connect to ::1 (a loopback address) for ::1.'],
  ];

  it.each(LITERALS)('refuses the IP literal in %s before a socket opens (node asks no lookup for it)', async (url, message) => {
    const before = { connections, requests };
    const outcome = await send(url, []);
    expect(outcome).toBeInstanceOf(Error);
    expect({ code: (outcome as NodeJS.ErrnoException).code, message: (outcome as NodeJS.ErrnoException).message }).toEqual({ code: 'ERR_WEBHOOK_FORBIDDEN_ADDRESS', message });
    // Give a connection that slipped through time to arrive: none does.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect({ connections, requests }).toEqual(before);
  });

  it('refuses an https IP literal the same way, before any TLS handshake', async () => {
    const before = { connections, requests };
    const outcome = (await send('https://127.0.0.1:PORT/hook', [])) as NodeJS.ErrnoException;
    expect({ code: outcome.code, message: outcome.message }).toEqual({ code: 'ERR_WEBHOOK_FORBIDDEN_ADDRESS', message: 'Refused to connect to 127.0.0.1 (a loopback address) for 127.0.0.1.' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect({ connections, requests }).toEqual(before);
  });

  it.each(LITERALS)('connects to %s when its address is allowlisted (::1 written as [0::1])', async (url) => {
    const before = { connections, requests };
    expect(await send(url, ['127.0.0.1', '[0::1]'])).toEqual({ status: 200, body: 'ok' });
    expect({ connections, requests }).toEqual({ connections: before.connections + 1, requests: before.requests + 1 });
  });

  it('refuses a name through guardedLookup: localhost, with 127.0.0.1 allowlisted as a host', async () => {
    const before = { connections, requests };
    const outcome = (await send('http://localhost:PORT/hook', ['127.0.0.1', '::1'])) as NodeJS.ErrnoException;
    expect(outcome.code).toBe('ERR_WEBHOOK_FORBIDDEN_ADDRESS');
    expect(outcome.message).toMatch(/^Refused to connect to (127\.0\.0\.1|::1) \(a loopback address\) for localhost\.$/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect({ connections, requests }).toEqual(before);
  });

  it('passes every connection through the resolver it is given, and refuses its private answer', async () => {
    const { lookup, asked } = fakeUnderlying({ 'hooks.example.com': [v4('10.0.0.7')] });
    const agent = guardedAgent('http:', { allowedHosts: [], maxSockets: 1, lookup });
    try {
      const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
        const request = http.request('http://hooks.example.com:9/hook', { method: 'POST', agent }, () => resolve(new Error('answered')));
        request.on('error', resolve);
        request.end('{}');
      });
      expect({ code: error.code, message: error.message }).toEqual({ code: 'ERR_WEBHOOK_FORBIDDEN_ADDRESS', message: 'Refused to connect to 10.0.0.7 (a private address) for hooks.example.com.' });
      expect(asked.map(([hostname]) => hostname)).toEqual(['hooks.example.com']);
    } finally {
      agent.destroy();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('properties: every spelling of an address gets the same answer', () => {
  const forbiddenIpv4 = fc
    .constantFrom(...IPV4_FORBIDDEN)
    .chain(([cidr]) => {
      const [start, end] = cidrBounds(cidr);
      // The range's edges, and anything between.
      return fc.oneof(fc.constantFrom(start, end), fc.integer({ min: start, max: end }));
    });
  const publicIpv4 = fc.integer({ min: 0, max: 0xffffffff }).filter((value) => expectedIpv4Reason(value) === null);

  /** Every spelling of an IPv4 address checked here, with the reason each should get given the address's own. */
  function ipv4Spellings(value: number, reason: string | null): Array<[string, string | null]> {
    const address = dotted(value);
    const [high, low] = [value >>> 16, value & 0xffff];
    const carried = (kind: string): string | null => (reason === null ? null : `a ${kind} address embedding ${reason}`);
    return [
      [address, reason],
      [`::ffff:${address}`, reason],
      [`::FFFF:${address}`, reason],
      [`::ffff:${high.toString(16)}:${low.toString(16)}`, reason],
      [`0:0:0:0:0:ffff:${hex4(high)}:${hex4(low)}`, reason],
      [`0000:0000:0000:0000:0000:FFFF:${hex4(high).toUpperCase()}:${hex4(low).toUpperCase()}%eth0`, reason],
      [`64:ff9b::${address}`, carried('NAT64')],
      [`64:ff9b::${high.toString(16)}:${low.toString(16)}`, carried('NAT64')],
      [`2002:${high.toString(16)}:${low.toString(16)}::1`, carried('6to4')],
      [`2002:${hex4(high)}:${hex4(low)}:ffff:0:0:0:1`, carried('6to4')],
    ];
  }

  /** Every URL spelling of an IPv4 host, with its host as the URL parser writes it. */
  function ipv4Urls(value: number): Array<[string, string]> {
    const address = dotted(value);
    const mapped = new URL(`http://[::ffff:${address}]/`).hostname.slice(1, -1);
    return [
      [`http://${address}/`, address],
      [`http://${value}/`, address],
      [`http://0x${value.toString(16)}/`, address],
      [`http://0X${value.toString(16).toUpperCase()}:8080/`, address],
      [`http://0${value.toString(8)}/`, address],
      [`https://${[value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].map((octet) => `0x${octet.toString(16)}`).join('.')}/`, address],
      [`https://${value >>> 24}.${value & 0xffffff}/`, address],
      [`https://[::ffff:${address}]/`, mapped],
    ];
  }

  it('random IPv4 addresses inside each forbidden range are refused in every spelling', () => {
    fc.assert(
      fc.property(forbiddenIpv4, (value) => {
        const reason = expectedIpv4Reason(value);
        expect(reason).not.toBeNull();
        for (const [spelling, expected] of ipv4Spellings(value, reason)) expect([spelling, forbiddenAddressReason(spelling)]).toEqual([spelling, expected]);
        for (const [url, host] of ipv4Urls(value)) expect([url, checkCallbackUrl(url, DEV)]).toEqual([url, hostIs(host, reason!)]);
      }),
      { numRuns: 400 },
    );
  });

  it('random public IPv4 addresses are accepted in every spelling', () => {
    fc.assert(
      fc.property(publicIpv4, (value) => {
        for (const [spelling, expected] of ipv4Spellings(value, null)) expect([spelling, forbiddenAddressReason(spelling)]).toEqual([spelling, expected]);
        for (const [url, host] of ipv4Urls(value)) {
          const answer = checkCallbackUrl(url, DEV);
          expect([url, answer instanceof URL ? answer.hostname : answer]).toEqual([url, host.includes(':') ? `[${host}]` : host]);
        }
      }),
      { numRuns: 400 },
    );
  });

  /** Forbidden IPv6 ranges with no more precise class inside them, as [prefix, length, reason]. */
  const IPV6_FORBIDDEN: ReadonlyArray<[prefix: bigint, bits: number, reason: string]> = [
    [0x0000_0000_0000_0000_0000_0000_0000_0001n, 128, 'a loopback address'],
    [0x0000_0000_0000_0000_0000_0000_0000_0000n, 128, 'an unspecified address'],
    [0x0100_0000_0000_0000_0000_0000_0000_0000n, 64, 'a discard-only address'],
    [0x0064_ff9b_0001_0000_0000_0000_0000_0000n, 48, 'a local-use NAT64 address'],
    [0x2001_0000_0000_0000_0000_0000_0000_0000n, 32, 'a Teredo address'],
    [0x2001_0002_0000_0000_0000_0000_0000_0000n, 48, 'a benchmarking address'],
    [0x2001_0db8_0000_0000_0000_0000_0000_0000n, 32, 'a documentation address'],
    [0x3fff_0000_0000_0000_0000_0000_0000_0000n, 20, 'a documentation address'],
    [0xfe80_0000_0000_0000_0000_0000_0000_0000n, 10, 'a link-local address'],
    [0xfec0_0000_0000_0000_0000_0000_0000_0000n, 10, 'a deprecated site-local address'],
    [0xff00_0000_0000_0000_0000_0000_0000_0000n, 8, 'a multicast address'],
    // Outside 2000::/3 and every named range: reserved.
    [0x4000_0000_0000_0000_0000_0000_0000_0000n, 2, 'a reserved address'],
    [0x8000_0000_0000_0000_0000_0000_0000_0000n, 2, 'a reserved address'],
    [0xc000_0000_0000_0000_0000_0000_0000_0000n, 3, 'a reserved address'],
    [0x0200_0000_0000_0000_0000_0000_0000_0000n, 7, 'a reserved address'],
    [0x1000_0000_0000_0000_0000_0000_0000_0000n, 4, 'a reserved address'],
  ];
  const random128 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });

  /** Spellings of a 128-bit address: full, upper-case, without leading zeros, compressed (as the URL parser writes it), with a zone, with a dotted tail. */
  function ipv6Spellings(value: bigint): string[] {
    const groups = Array.from({ length: 8 }, (_, index) => Number((value >> BigInt(112 - 16 * index)) & 0xffffn));
    const full = groups.map(hex4).join(':');
    const compressed = new URL(`http://[${full}]/`).hostname.slice(1, -1);
    const low = Number(value & 0xffffffffn);
    return [full, full.toUpperCase(), groups.map((group) => group.toString(16)).join(':'), compressed, `${compressed}%eth0`, `${groups.slice(0, 6).map(hex4).join(':')}:${dotted(low)}`];
  }

  it('random IPv6 addresses inside each forbidden range are refused in every spelling', () => {
    const forbiddenIpv6 = fc.constantFrom(...IPV6_FORBIDDEN).chain(([prefix, bits, reason]) =>
      random128.map((noise) => [prefix | (bits === 128 ? 0n : noise & ((1n << BigInt(128 - bits)) - 1n)), reason] as const),
    );
    fc.assert(
      fc.property(forbiddenIpv6, ([value, reason]) => {
        for (const spelling of ipv6Spellings(value)) expect([spelling, forbiddenAddressReason(spelling)]).toEqual([spelling, reason]);
        const compressed = ipv6Spellings(value)[3]!;
        expect(checkCallbackUrl(`https://[${compressed}]/`, DEV)).toBe(hostIs(compressed, reason));
      }),
      { numRuns: 400 },
    );
  });

  it('random unique local addresses are refused, in every spelling', () => {
    fc.assert(
      fc.property(random128, (noise) => {
        const value = 0xfc00_0000_0000_0000_0000_0000_0000_0000n | (noise & ((1n << 121n) - 1n));
        fc.pre(value !== 0xfd00_0ec2_0000_0000_0000_0000_0000_0254n);
        for (const spelling of ipv6Spellings(value)) expect([spelling, forbiddenAddressReason(spelling)]).toEqual([spelling, 'an IPv6 unique local address']);
      }),
      { numRuns: 200 },
    );
  });

  it('random global unicast IPv6 addresses outside the special ranges are accepted in every spelling', () => {
    const global = random128
      .map((noise) => 0x2000_0000_0000_0000_0000_0000_0000_0000n | (noise & ((1n << 125n) - 1n)))
      .filter((value) => {
        const first = Number(value >> 112n);
        const second = Number((value >> 96n) & 0xffffn);
        if (first === 0x2001 && (second <= 0x01ff || second === 0x0db8)) return false;
        if (first === 0x2002) return false;
        return !(first === 0x3fff && second <= 0x0fff);
      });
    fc.assert(
      fc.property(global, (value) => {
        for (const spelling of ipv6Spellings(value)) expect([spelling, forbiddenAddressReason(spelling)]).toEqual([spelling, null]);
        const compressed = ipv6Spellings(value)[3]!;
        expect(checkCallbackUrl(`https://[${compressed}]/`, DEV)).toBeInstanceOf(URL);
      }),
      { numRuns: 400 },
    );
  });
});
