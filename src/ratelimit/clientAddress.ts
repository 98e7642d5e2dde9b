/**
 * Who a request comes from, by address: the key an anonymous client is rate-limited by.
 *
 * The address is the socket's peer, unless `trustProxy` hops of proxies stand in front of the
 * server: each appends the address it received from to X-Forwarded-For, so the client is the
 * entry `trustProxy` places from the right of [...X-Forwarded-For, peer]. Entries further left
 * were written by whoever sent the request and prove nothing: a forged chain longer than the
 * trusted hops changes nothing. An entry that is not an address (garbage from a proxy) gives
 * way to the nearest valid one to its right, which a trusted hop wrote.
 *
 * One client, one key, whatever the spelling: IPv4 in dotted decimal; an IPv4-mapped IPv6
 * address (`::ffff:192.0.2.1`, `::ffff:c000:201`) is its IPv4 address; IPv6 is written in
 * full lower-case hex and cut to its /`ipv6Subnet` prefix (default /56: one home or small
 * network gets a whole /56 or /64 from its provider, and would otherwise have 2^64 keys to
 * rotate through). Zones (`%eth0`), brackets and ports (`[::1]:443`, `192.0.2.1:8080`) are
 * dropped.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The canonical key of an address, or null when it is not one. */
export function normalizeAddress(text: string, ipv6Subnet: number): string | null {
  let address = text.trim();
  if (address.startsWith('[')) {
    const end = address.indexOf(']');
    if (end === -1) return null;
    address = address.slice(1, end);
  } else if (address.includes('.') && address.indexOf(':') === address.lastIndexOf(':') && address.includes(':')) {
    // IPv4 with a port.
    address = address.slice(0, address.indexOf(':'));
  }
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return null;
  const groups = ipv6Groups(address);
  if (groups === null) return null;
  // IPv4-mapped (::ffff:a.b.c.d): the IPv4 client it is.
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    const high = groups[6] as number;
    const low = groups[7] as number;
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  let bits = ipv6Subnet;
  const kept: string[] = [];
  for (const group of groups) {
    const mask = bits >= 16 ? 0xffff : bits <= 0 ? 0 : (0xffff << (16 - bits)) & 0xffff;
    kept.push((group & mask).toString(16));
    bits -= 16;
  }
  return ipv6Subnet === 128 ? kept.join(':') : `${kept.join(':')}/${ipv6Subnet}`;
}

/** The eight 16-bit groups of a valid IPv6 address (node's isIPv6 said so). */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  // A trailing dotted IPv4 part is two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const octets = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${(((octets[0] as number) << 8) | (octets[1] as number)).toString(16)}:${(((octets[2] as number) << 8) | (octets[3] as number)).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - left.length - right.length;
  if (rest === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...left, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...right].map((group) => parseInt(group, 16));
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}

/**
 * The client's address key: from the peer and X-Forwarded-For with `trustProxy` hops trusted,
 * normalized. Null when not even the peer's address is known (a test's plain request).
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | ReadonlyArray<string> | undefined,
  trustProxy: number,
  ipv6Subnet: number,
): string | null {
  const peerKey = peer === undefined ? null : normalizeAddress(peer, ipv6Subnet);
  if (trustProxy === 0 || forwardedFor === undefined) return peerKey;
  const chain = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',');
  // From the right: the peer is hop 0, the last X-Forwarded-For entry hop 1, and so on.
  let key = peerKey;
  for (let hop = 1; hop <= trustProxy && hop <= chain.length; hop++) {
    const entry = normalizeAddress(chain[chain.length - hop] as string, ipv6Subnet);
    // Garbage where an address should be: the nearest valid address to its right stands.
    if (entry === null) break;
    key = entry;
  }
  return key;
}
