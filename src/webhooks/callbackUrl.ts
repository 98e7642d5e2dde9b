/**
 * Callback URLs and the addresses webhooks may call: protection against server-side request
 * forgery (SSRF). A webhook makes this server send a request wherever someone registered; left
 * unchecked, that someone could aim it at the server's own loopback services, the private
 * network behind it, or a cloud metadata endpoint that hands out credentials.
 *
 *   checkCallbackUrl       syntax and scheme (https, or http outside production), no
 *                          credentials, and an IP-literal host's class; synchronous, no DNS.
 *                          Run at registration, and again before every attempt on the stored URL
 *                          (the sending instance's rule: its allowance, its production flag)
 *   validateCallbackUrl    at registration: the above, then every address the host resolves to
 *   guardedAgent           at every connection: the http(s) Agent webhooks send through. Each
 *                          socket it opens is checked first: an IP-literal host here (node asks
 *                          no `lookup` for one), a name through guardedLookup
 *   guardedLookup          a `lookup` that refuses a forbidden address before the socket opens
 *                          (a name that resolved to a public address at registration and to
 *                          127.0.0.1 later: DNS rebinding)
 *   forbiddenAddressReason why an address may not be called, or null when it is public unicast
 *
 * One rule everywhere: every check above ends in forbiddenAddressReason, and every exemption in
 * the same allowlist (hostKey), so registration, the check before an attempt and the check at
 * connect time cannot disagree about an address.
 *
 * Addresses are classified as exact numbers (32 bits for IPv4, 128 for IPv6, by longest prefix
 * match against the special-purpose ranges), never as text, so every spelling of one address
 * gets the same answer: compressed or zero-padded IPv6, upper-case, with a zone (`%eth0`), and
 * IPv4 written inside IPv6 (IPv4-mapped `::ffff:127.0.0.1` is that IPv4 address; NAT64
 * `64:ff9b::/96` and 6to4 `2002::/16` are judged by the IPv4 address they carry). The decimal,
 * octal and hex spellings of IPv4 hosts (`http://2130706433/`, `http://0x7f.1/`) need nothing
 * here: the WHATWG URL parser rewrites them to dotted decimal before we look.
 *
 * IPv6 outside 2000::/3 (the only block IANA hands out for global unicast) is refused as
 * reserved unless a more precise class names it. `localhost` and `*.localhost` are loopback
 * by definition (RFC 6761) and refused without asking DNS. `allowedHosts` exempts hosts from
 * the address rule (never from the scheme rule): a receiver on your own network, a test's on
 * loopback. It exempts the host as written in the URL, not the addresses a name resolves to:
 * allowing `127.0.0.1` does not let `rebind.example.com` resolve there.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { describe } from '../jsutils/describe.ts';

export interface CallbackUrlOptions {
  /** Production: only https URLs. */
  production: boolean;
  /** Hosts (hostnames or IP literals, compared case-insensitively, IPv6 without brackets) exempt from the private-address rule (tests allowlist 127.0.0.1 and localhost). */
  allowedHosts: ReadonlyArray<string>;
  /** How an operator sets allowedHosts, named in a refusal (default: the webhooks' `allowedHosts` option). */
  allowedHostsSetting?: string;
}

/** The longest callback URL accepted, in characters. */
const MAX_CALLBACK_URL_LENGTH = 2048;

/** The `code` of the error guardedAgent and guardedLookup fail a connection with. */
export const FORBIDDEN_ADDRESS_CODE = 'ERR_WEBHOOK_FORBIDDEN_ADDRESS';

const PUBLIC_ONLY = 'only public addresses may be called';

/** The end of a refusal for a non-public host: the rule, and how to exempt the host (a receiver on your own network). */
function publicOnly(host: string, options: CallbackUrlOptions): string {
  return `${PUBLIC_ONLY} (to allow this one, add ${host} to ${options.allowedHostsSetting ?? "the webhooks' allowedHosts option"})`;
}

// ---------------------------------------------------------------------------------------------
// Address classes

/** How an IPv6 range carrying an IPv4 address is judged: by the IPv4 address it carries. */
type Embedded = { embeds: 'mapped' | 'nat64' | '6to4' };
type Verdict = string | null | Embedded;
interface Range<T extends number | bigint> {
  base: T;
  bits: number;
  verdict: Verdict;
}

const IPV4_RANGES: ReadonlyArray<Range<number>> = [
  ['0.0.0.0/8', 'a reserved address'],
  ['0.0.0.0/32', 'an unspecified address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  // Alibaba Cloud's metadata service.
  ['100.100.100.200/32', 'a cloud metadata address'],
  ['127.0.0.0/8', 'a loopback address'],
  // Azure's platform endpoint (wire server), reachable from every Azure VM.
  ['168.63.129.16/32', 'a cloud metadata address'],
  ['169.254.0.0/16', 'a link-local address'],
  // AWS, GCP, Azure, OpenStack... metadata; AWS ECS task metadata.
  ['169.254.169.254/32', 'a cloud metadata address'],
  ['169.254.170.2/32', 'a cloud metadata address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'a reserved address'],
  // Oracle Cloud's legacy metadata address.
  ['192.0.0.192/32', 'a cloud metadata address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a reserved address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
  ['255.255.255.255/32', 'a broadcast address'],
].map(([cidr, verdict]) => {
  const [text = '', bits] = (cidr as string).split('/');
  return { base: ipv4Value(text), bits: Number(bits), verdict: verdict as string };
});

const IPV6_RANGES: ReadonlyArray<Range<bigint>> = (
  [
    // Everything outside global unicast, unless named more precisely below.
    ['::/0', 'a reserved address'],
    ['2000::/3', null],
    ['::/96', 'a deprecated IPv4-compatible address'],
    ['::/128', 'an unspecified address'],
    ['::1/128', 'a loopback address'],
    ['::ffff:0:0/96', { embeds: 'mapped' }],
    ['64:ff9b::/96', { embeds: 'nat64' }],
    ['64:ff9b:1::/48', 'a local-use NAT64 address'],
    ['100::/64', 'a discard-only address'],
    ['2001::/23', 'a reserved address'],
    ['2001::/32', 'a Teredo address'],
    ['2001:2::/48', 'a benchmarking address'],
    ['2001:db8::/32', 'a documentation address'],
    ['2002::/16', { embeds: '6to4' }],
    ['3fff::/20', 'a documentation address'],
    ['fc00::/7', 'an IPv6 unique local address'],
    // AWS's metadata service over IPv6 (Nitro instances).
    ['fd00:ec2::254/128', 'a cloud metadata address'],
    ['fe80::/10', 'a link-local address'],
    ['fec0::/10', 'a deprecated site-local address'],
    ['ff00::/8', 'a multicast address'],
  ] as Array<[string, Verdict]>
).map(([cidr, verdict]) => {
  const [text = '', bits] = cidr.split('/');
  return { base: ipv6Value(text), bits: Number(bits), verdict };
});

/**
 * Why an address (IPv4 or IPv6 text, any spelling node's net.isIP accepts, a zone allowed) may
 * not be called, or null when it is a public unicast address. Text that is no address is refused.
 */
export function forbiddenAddressReason(address: string): string | null {
  const parsed = parseAddress(address);
  if (parsed === null) return 'not an IP address';
  return parsed.family === 4 ? ipv4Reason(parsed.value) : ipv6Reason(parsed.value);
}

function ipv4Reason(value: number): string | null {
  let best: Range<number> | null = null;
  for (const range of IPV4_RANGES) {
    const mask = range.bits === 0 ? 0 : (0xffffffff << (32 - range.bits)) >>> 0;
    if (((value & mask) >>> 0) === range.base && (best === null || range.bits > best.bits)) best = range;
  }
  return best === null ? null : (best.verdict as string | null);
}

function ipv6Reason(value: bigint): string | null {
  let best: Range<bigint> | null = null;
  for (const range of IPV6_RANGES) {
    const shift = BigInt(128 - range.bits);
    if (value >> shift === range.base >> shift && (best === null || range.bits > best.bits)) best = range;
  }
  const verdict = best === null ? null : best.verdict;
  if (verdict === null || typeof verdict === 'string') return verdict;
  // The IPv4 address carried: the low 32 bits (mapped, NAT64), or bits 16 to 47 (6to4).
  const carried = Number(verdict.embeds === '6to4' ? (value >> 80n) & 0xffffffffn : value & 0xffffffffn);
  const inner = ipv4Reason(carried);
  if (inner === null || verdict.embeds === 'mapped') return inner;
  return `a ${verdict.embeds === 'nat64' ? 'NAT64' : '6to4'} address embedding ${inner}`;
}

type ParsedAddress = { family: 4; value: number } | { family: 6; value: bigint };

/** An address's family and value; null unless node's isIP accepts it (once a zone is dropped). */
function parseAddress(text: string): ParsedAddress | null {
  if (typeof text !== 'string') return null;
  const zone = text.indexOf('%');
  const address = zone === -1 ? text : text.slice(0, zone);
  switch (isIP(address)) {
    case 4:
      return { family: 4, value: ipv4Value(address) };
    case 6:
      return { family: 6, value: ipv6Value(address) };
    default:
      return null;
  }
}

/** The 32-bit value of dotted-decimal IPv4 that isIPv4 accepted. */
function ipv4Value(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

/** The 128-bit value of IPv6 that isIPv6 accepted (no zone). */
function ipv6Value(address: string): bigint {
  let text = address.toLowerCase();
  // A dotted IPv4 tail (`::ffff:127.0.0.1`) is the last two groups.
  if (text.includes('.')) {
    const cut = text.lastIndexOf(':') + 1;
    const v4 = ipv4Value(text.slice(cut));
    text = `${text.slice(0, cut)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}

// ---------------------------------------------------------------------------------------------
// Hosts

/** A host's comparable form: lower-case, no brackets, no trailing dot; an IP literal as its value. */
function hostKey(host: string): string {
  let key = host.trim().toLowerCase();
  if (key.startsWith('[') && key.endsWith(']')) key = key.slice(1, -1);
  if (key.endsWith('.')) key = key.slice(0, -1);
  const parsed = parseAddress(key);
  if (parsed === null) return key;
  // IPv4-mapped IPv6 is its IPv4 address: one key for both.
  if (parsed.family === 6 && parsed.value >> 32n === 0xffffn) return `4:${Number(parsed.value & 0xffffffffn)}`;
  return `${parsed.family}:${parsed.value}`;
}

function allowlist(allowedHosts: ReadonlyArray<string>): Set<string> {
  return new Set(allowedHosts.filter((host) => typeof host === 'string').map(hostKey));
}

/** `localhost` and its subdomains: loopback whatever DNS says (RFC 6761). */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** An IP literal URL hostname without its brackets; null for a name. */
function ipLiteral(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? null : bare;
}

// ---------------------------------------------------------------------------------------------
// URLs

/** Syntax and scheme checks, and an IP-literal host's class: the URL, or why it is refused (a full sentence, stable wording). Synchronous, no DNS. */
export function checkCallbackUrl(value: unknown, options: CallbackUrlOptions): URL | string {
  if (typeof value !== 'string') return `The callback URL must be a string, got ${describe(value)}.`;
  if (value.trim() === '') return 'The callback URL is empty.';
  if (value.length > MAX_CALLBACK_URL_LENGTH) {
    return `The callback URL is ${value.length.toLocaleString('en-US')} characters long; at most ${MAX_CALLBACK_URL_LENGTH.toLocaleString('en-US')} are allowed.`;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'The callback URL is not a valid absolute URL.';
  }
  const scheme = url.protocol.slice(0, -1);
  if (options.production && scheme !== 'https') return `The callback URL must use https in production, not ${scheme}.`;
  if (scheme !== 'https' && scheme !== 'http') return `The callback URL must use https or http, not ${scheme}.`;
  if (url.username !== '' || url.password !== '') return 'The callback URL must not contain a username or password.';
  if (url.hostname === '') return 'The callback URL has no host.';
  if (allowlist(options.allowedHosts).has(hostKey(url.hostname))) return url;
  const literal = ipLiteral(url.hostname);
  if (literal !== null) {
    const reason = forbiddenAddressReason(literal);
    if (reason !== null) return `The callback URL's host ${literal} is ${reason}; ${publicOnly(literal, options)}.`;
  } else if (isLocalhostName(url.hostname)) {
    return `The callback URL's host ${url.hostname} is a loopback host name; ${publicOnly(url.hostname, options)}.`;
  }
  return url;
}

/** At registration: checkCallbackUrl, then the host resolved (all addresses, dns.promises.lookup with all:true, or the injected `lookup`) and refused if any address is forbidden (unless the host is allowlisted). Resolves to the URL or the reason. A host that does not resolve is refused with a clear reason. */
export async function validateCallbackUrl(
  value: unknown,
  options: CallbackUrlOptions & { lookup?: (hostname: string) => Promise<Array<{ address: string; family: number }>> },
): Promise<URL | string> {
  const url = checkCallbackUrl(value, options);
  if (typeof url === 'string') return url;
  const allowed = allowlist(options.allowedHosts);
  // An IP literal was classified already; an allowlisted host is not asked about.
  if (ipLiteral(url.hostname) !== null || allowed.has(hostKey(url.hostname))) return url;
  const host = url.hostname;
  const lookup = options.lookup ?? ((hostname: string) => dns.promises.lookup(hostname, { all: true }));
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await lookup(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return `The callback URL's host ${host} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}.`;
  }
  if (!Array.isArray(addresses) || addresses.length === 0) return `The callback URL's host ${host} resolves to no address.`;
  for (const { address } of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason !== null) return `The callback URL's host ${host} resolves to ${String(address)}, ${reason}; ${publicOnly(host, options)}.`;
  }
  return url;
}

// ---------------------------------------------------------------------------------------------
// Connections

/** A `lookup` function for http.request/https.request options (same signature as dns.lookup's callback form, handling options.all true/false) that resolves the host and fails the connection with an Error whose `code` is 'ERR_WEBHOOK_FORBIDDEN_ADDRESS' when an address is forbidden, unless the hostname is allowlisted: the check at connect time, against DNS rebinding. `underlying` is the resolver (tests give a fake one). */
export function guardedLookup(allowedHosts: ReadonlyArray<string>, underlying: LookupFunction = dns.lookup): LookupFunction {
  const allowed = allowlist(allowedHosts);
  return (hostname, options, callback) => {
    if (allowed.has(hostKey(hostname))) {
      underlying(hostname, options, callback);
      return;
    }
    underlying(hostname, options, (error, address, family) => {
      if (error) {
        callback(error, address, family);
        return;
      }
      const entries = Array.isArray(address) ? address : [{ address, family }];
      for (const entry of entries) {
        const reason = forbiddenAddressReason(entry.address);
        if (reason === null) continue;
        callback(connectionRefusal(String(entry.address), reason, hostname), options?.all === true ? [] : '', undefined);
        return;
      }
      callback(null, address, family);
    });
  };
}

/** The error a connection to a forbidden address fails with: a stable `code`, and the address, its class and the host it was for. */
function connectionRefusal(address: string, reason: string, hostname: string): NodeJS.ErrnoException {
  const refusal: NodeJS.ErrnoException = new Error(`Refused to connect to ${address} (${reason}) for ${hostname}.`);
  refusal.code = FORBIDDEN_ADDRESS_CODE;
  return refusal;
}

/** createConnection's callback as node's Agent calls it when no socket is made. */
type ConnectionFailed = (error: Error, socket?: Duplex) => void;

export interface GuardedAgentOptions {
  /** The same list as registration's `allowedHosts`. */
  allowedHosts: ReadonlyArray<string>;
  /** Sockets open at once (keep-alive, as http.Agent's `maxSockets`). */
  maxSockets: number;
  /** The resolver under guardedLookup (default dns.lookup; tests give a fake one). */
  lookup?: LookupFunction;
}

/**
 * A keep-alive http or https Agent that checks every socket before it opens. Node resolves a
 * name through the request's `lookup`, but connects to an IP-literal host (`127.0.0.1`, `::1`,
 * `::ffff:7f00:1`; a URL's decimal or hex IPv4 arrives here as dotted decimal) without asking
 * any, so a `lookup` alone never sees those: the literal is judged here, by the same rule and
 * allowlist, and a name gets guardedLookup whatever `lookup` the request asked for. A refused
 * socket is never created: the request fails with the refusal (code ERR_WEBHOOK_FORBIDDEN_ADDRESS)
 * before a byte is sent or read. A reused keep-alive socket was checked when it opened.
 */
export function guardedAgent(protocol: 'http:' | 'https:', options: GuardedAgentOptions): http.Agent {
  const agent = protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: options.maxSockets }) : new http.Agent({ keepAlive: true, maxSockets: options.maxSockets });
  const allowed = allowlist(options.allowedHosts);
  const lookup = guardedLookup(options.allowedHosts, options.lookup);
  const open = agent.createConnection.bind(agent);
  agent.createConnection = (connection, callback) => {
    const host = typeof connection.host === 'string' ? connection.host : '';
    const literal = ipLiteral(host);
    const reason = literal === null || allowed.has(hostKey(literal)) ? null : forbiddenAddressReason(literal);
    if (literal === null || reason === null) return open({ ...connection, lookup }, callback);
    const refusal = connectionRefusal(literal, reason, literal);
    // node's Agent always passes the callback; a caller without one gets the refusal thrown.
    if (callback === undefined) throw refusal;
    // A failed connection is reported with the error alone (node's Agent, createSocket's
    // `oncreate`, looks at nothing else); @types/node types the socket as always given.
    (callback as ConnectionFailed)(refusal);
    return undefined;
  };
  return agent;
}
