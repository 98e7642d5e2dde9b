/**
 * The client address a request is rate-limited by (src/ratelimit/clientAddress.ts): one key per
 * client whatever the spelling of its address, IPv6 cut to its subnet, and X-Forwarded-For read
 * only as far as the trusted proxies wrote it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientAddress, normalizeAddress } from '../src/ratelimit/clientAddress.ts';

describe('normalizeAddress: IPv4', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['192.0.2.1:8080', '192.0.2.1'],
    [' 192.0.2.1 ', '192.0.2.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255:65535', '255.255.255.255'],
  ])('%j is %s', (text, key) => {
    expect(normalizeAddress(text, 56)).toBe(key);
  });

  it.each([
    ['::ffff:192.0.2.1'],
    ['::ffff:c000:201'],
    ['::FFFF:192.0.2.1'],
    ['::FFFF:C000:201'],
    ['0:0:0:0:0:ffff:c000:0201'],
    ['0000:0000:0000:0000:0000:FFFF:C000:0201'],
    ['[::ffff:192.0.2.1]:443'],
    ['[::ffff:c000:201]:443'],
  ])('reads the IPv4-mapped IPv6 address %j as 192.0.2.1, whatever the subnet', (text) => {
    for (const subnet of [56, 64, 128]) expect(normalizeAddress(text, subnet)).toBe('192.0.2.1');
  });

  it('reads IPv4-mapped addresses of 0.0.0.0/16 and 255.255.255.255 as IPv4 too', () => {
    expect(normalizeAddress('::ffff:0.0.0.1', 56)).toBe('0.0.0.1');
    expect(normalizeAddress('::ffff:0:1', 56)).toBe('0.0.0.1');
    expect(normalizeAddress('::ffff:0:0', 128)).toBe('0.0.0.0');
    expect(normalizeAddress('::ffff:ffff:ffff', 56)).toBe('255.255.255.255');
    // Not mapped: ::fffe:… and ::1:ffff:… are IPv6.
    expect(normalizeAddress('::fffe:c000:201', 128)).toBe('0:0:0:0:0:fffe:c000:201');
    expect(normalizeAddress('::1:ffff:c000:201', 128)).toBe('0:0:0:0:1:ffff:c000:201');
  });
});

describe('normalizeAddress: IPv6', () => {
  const spellings = [
    '2001:db8:85a3:12ab::1',
    '2001:0db8:85a3:12ab:0000:0000:0000:0001',
    '2001:DB8:85A3:12AB::1',
    '2001:db8:85a3:12ab:0:0:0:1',
    '2001:db8:85a3:12ab::1%eth0',
    '[2001:db8:85a3:12ab::1]:443',
    '[2001:db8:85a3:12ab::1%eth0]:443',
    '[2001:db8:85a3:12ab::1]',
    '2001:db8:85a3:12ab::0.0.0.1',
  ];

  it.each(spellings)('gives %j the key of its /56 by default', (text) => {
    expect(normalizeAddress(text, 56)).toBe('2001:db8:85a3:1200:0:0:0:0/56');
  });

  it.each(spellings)('keeps all of %j at /128, with no suffix', (text) => {
    expect(normalizeAddress(text, 128)).toBe('2001:db8:85a3:12ab:0:0:0:1');
  });

  it.each(spellings)('gives %j the key of its /64', (text) => {
    expect(normalizeAddress(text, 64)).toBe('2001:db8:85a3:12ab:0:0:0:0/64');
  });

  it('gives two addresses of one /56 one key, and addresses of different /56 different keys', () => {
    expect(normalizeAddress('2001:db8:85a3:1200::', 56)).toBe('2001:db8:85a3:1200:0:0:0:0/56');
    expect(normalizeAddress('2001:db8:85a3:12ff:ffff:ffff:ffff:ffff', 56)).toBe('2001:db8:85a3:1200:0:0:0:0/56');
    expect(normalizeAddress('2001:db8:85a3:1300::1', 56)).toBe('2001:db8:85a3:1300:0:0:0:0/56');
    expect(normalizeAddress('2001:db8:85a3:11ff::1', 56)).toBe('2001:db8:85a3:1100:0:0:0:0/56');
    // At /64 the same two of the first pair differ.
    expect(normalizeAddress('2001:db8:85a3:1200::', 64)).toBe('2001:db8:85a3:1200:0:0:0:0/64');
    expect(normalizeAddress('2001:db8:85a3:12ff:ffff:ffff:ffff:ffff', 64)).toBe('2001:db8:85a3:12ff:0:0:0:0/64');
  });

  it('cuts at any prefix length, inside a group too', () => {
    expect(normalizeAddress('2001:db8:85a3:12ab:ffff::1', 57)).toBe('2001:db8:85a3:1280:0:0:0:0/57');
    expect(normalizeAddress('2001:db8:85a3:12ab:ffff::1', 48)).toBe('2001:db8:85a3:0:0:0:0:0/48');
    expect(normalizeAddress('2001:db8:85a3:12ab:ffff::1', 127)).toBe('2001:db8:85a3:12ab:ffff:0:0:0/127');
    expect(normalizeAddress('::1', 128)).toBe('0:0:0:0:0:0:0:1');
    expect(normalizeAddress('::1', 56)).toBe('0:0:0:0:0:0:0:0/56');
  });

  it.each([['not-an-ip'], ['999.1.1.1'], [''], ['   '], ['1.2.3'], [':::'], ['1.2.3.4.5'], ['2001:db8::1::2'], ['[::1'], ['12345::'], ['g::1'], ['::ffff:999.0.0.1']])(
    'gives null for %j',
    (text) => {
      expect(normalizeAddress(text, 56)).toBeNull();
      expect(normalizeAddress(text, 128)).toBeNull();
    },
  );
});

describe('clientAddress', () => {
  it('ignores X-Forwarded-For entirely when no proxy is trusted', () => {
    expect(clientAddress('10.0.0.1', '1.1.1.1', 0, 56)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', ['1.1.1.1', '2.2.2.2'], 0, 56)).toBe('10.0.0.1');
    expect(clientAddress('::ffff:10.0.0.1', 'garbage', 0, 56)).toBe('10.0.0.1');
    expect(clientAddress('2001:db8:85a3:12ab::1', '1.1.1.1', 0, 56)).toBe('2001:db8:85a3:1200:0:0:0:0/56');
  });

  it('takes the last X-Forwarded-For entry with one trusted proxy', () => {
    expect(clientAddress('10.0.0.1', '1.1.1.1', 1, 56)).toBe('1.1.1.1');
    expect(clientAddress('10.0.0.1', '[2001:db8:85a3:12ab::1]:5000', 1, 56)).toBe('2001:db8:85a3:1200:0:0:0:0/56');
    expect(clientAddress('10.0.0.1', ' 1.1.1.1 ', 1, 128)).toBe('1.1.1.1');
  });

  it('ignores the forged entries of a chain longer than the trusted hops', () => {
    expect(clientAddress('10.0.0.1', '1.1.1.1, 2.2.2.2, 3.3.3.3', 1, 56)).toBe('3.3.3.3');
    expect(clientAddress('10.0.0.1', '1.1.1.1, 2.2.2.2, 3.3.3.3', 2, 56)).toBe('2.2.2.2');
    expect(clientAddress('10.0.0.1', '1.1.1.1, 2.2.2.2, 3.3.3.3', 3, 56)).toBe('1.1.1.1');
  });

  it('takes the leftmost entry of a chain shorter than the trusted hops', () => {
    expect(clientAddress('10.0.0.1', '1.1.1.1, 2.2.2.2', 5, 56)).toBe('1.1.1.1');
    expect(clientAddress('10.0.0.1', '2.2.2.2', 2, 56)).toBe('2.2.2.2');
  });

  it('lets a garbage entry give way to the nearest valid address to its right', () => {
    expect(clientAddress('10.0.0.1', '1.1.1.1, garbage', 2, 56)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', 'garbage, 2.2.2.2', 2, 56)).toBe('2.2.2.2');
    expect(clientAddress('10.0.0.1', '1.1.1.1, garbage, 3.3.3.3', 3, 56)).toBe('3.3.3.3');
    expect(clientAddress('10.0.0.1', '', 1, 56)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', '1.1.1.1, , 3.3.3.3', 3, 56)).toBe('3.3.3.3');
  });

  it('reads a header given as several strings as one chain', () => {
    expect(clientAddress('10.0.0.1', ['1.1.1.1, 2.2.2.2', '3.3.3.3'], 1, 56)).toBe('3.3.3.3');
    expect(clientAddress('10.0.0.1', ['1.1.1.1, 2.2.2.2', '3.3.3.3'], 2, 56)).toBe('2.2.2.2');
    expect(clientAddress('10.0.0.1', ['1.1.1.1', '2.2.2.2', '3.3.3.3'], 3, 56)).toBe('1.1.1.1');
  });

  it('uses the peer when there is no X-Forwarded-For', () => {
    expect(clientAddress('10.0.0.1', undefined, 1, 56)).toBe('10.0.0.1');
    expect(clientAddress('[::ffff:10.0.0.1]:1234', undefined, 2, 56)).toBe('10.0.0.1');
  });

  it('gives null when the peer is unknown and nothing trusted names the client', () => {
    expect(clientAddress(undefined, undefined, 0, 56)).toBeNull();
    expect(clientAddress(undefined, '1.1.1.1', 0, 56)).toBeNull();
    expect(clientAddress(undefined, undefined, 1, 56)).toBeNull();
    expect(clientAddress('garbage', undefined, 0, 56)).toBeNull();
    expect(clientAddress(undefined, 'garbage', 1, 56)).toBeNull();
    // A trusted proxy's entry names the client even when the peer's address is unknown.
    expect(clientAddress(undefined, '1.1.1.1', 1, 56)).toBe('1.1.1.1');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties: every spelling of an address gives one key.

/** The expected key, computed from the 128-bit value (BigInt), independently of the code. */
function expectedKey(groups: ReadonlyArray<number>, subnet: number): string {
  const value = groups.reduce((sum, group) => (sum << 16n) | BigInt(group), 0n);
  if (value >> 32n === 0xffffn) {
    const v4 = Number(value & 0xffffffffn);
    return [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join('.');
  }
  const all = (1n << 128n) - 1n;
  const mask = subnet === 0 ? 0n : (all << BigInt(128 - subnet)) & all;
  const masked = value & mask;
  const parts: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) parts.push(((masked >> shift) & 0xffffn).toString(16));
  return subnet === 128 ? parts.join(':') : `${parts.join(':')}/${subnet}`;
}

/** RFC 5952: lower case, no leading zeros, the first longest run of two or more zero groups as `::`. */
function canonicalSpelling(groups: ReadonlyArray<number>): string {
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.length < 2) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** `::` in place of the zero run starting at `start` (one group or more). */
function compressAt(groups: ReadonlyArray<number>, start: number): string {
  let end = start;
  while (end < 8 && groups[end] === 0) end += 1;
  const hex = groups.map((group) => group.toString(16));
  return `${hex.slice(0, start).join(':')}::${hex.slice(end).join(':')}`;
}

const fullSpelling = (groups: ReadonlyArray<number>): string => groups.map((group) => group.toString(16).padStart(4, '0')).join(':');

/** The first six groups in hex, the last two as dotted IPv4. */
function dottedTailSpelling(groups: ReadonlyArray<number>): string {
  const [g6, g7] = [groups[6] as number, groups[7] as number];
  return `${groups.slice(0, 6).map((group) => group.toString(16)).join(':')}:${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
}

/** Groups with many zeros, so that `::` has runs to stand for. */
const groupArbitrary = fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.integer({ min: 0, max: 0xffff }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xff }) });
const subnetArbitrary = fc.oneof(fc.constantFrom(56, 64, 128), fc.integer({ min: 1, max: 128 }));
const portArbitrary = fc.integer({ min: 1, max: 65_535 });

describe('normalizeAddress: properties', () => {
  it('gives every spelling of a random IPv6 address one key: its /subnet, or its IPv4 when mapped', () => {
    fc.assert(
      fc.property(fc.array(groupArbitrary, { minLength: 8, maxLength: 8 }), subnetArbitrary, portArbitrary, (groups, subnet, port) => {
        const key = expectedKey(groups, subnet);
        const canonical = canonicalSpelling(groups);
        const spellings = [
          canonical,
          fullSpelling(groups),
          groups.map((group) => group.toString(16)).join(':'),
          canonical.toUpperCase(),
          fullSpelling(groups).toUpperCase(),
          `[${canonical}]:${port}`,
          `[${fullSpelling(groups).toUpperCase()}]:${port}`,
          `[${canonical}]`,
          `${canonical}%eth0`,
          `[${canonical}%eth0]:${port}`,
          dottedTailSpelling(groups),
          ...groups.flatMap((group, i) => (group === 0 && (i === 0 || groups[i - 1] !== 0) ? [compressAt(groups, i)] : [])),
        ];
        for (const spelling of spellings) expect(normalizeAddress(spelling, subnet), `${spelling} at /${subnet}`).toBe(key);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads every IPv4-mapped spelling of a random IPv4 address as that address', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(0, 255), fc.integer({ min: 0, max: 255 })), { minLength: 4, maxLength: 4 }), subnetArbitrary, portArbitrary, (octets, subnet, port) => {
        const dotted = octets.join('.');
        const high = (octets[0]! << 8) | octets[1]!;
        const low = (octets[2]! << 8) | octets[3]!;
        const hex = `${high.toString(16)}:${low.toString(16)}`;
        const spellings = [
          dotted,
          `${dotted}:${port}`,
          `::ffff:${dotted}`,
          `::FFFF:${dotted}`,
          `::ffff:${hex}`,
          `::FFFF:${hex.toUpperCase()}`,
          `0:0:0:0:0:ffff:${hex}`,
          `0000:0000:0000:0000:0000:ffff:${high.toString(16).padStart(4, '0')}:${low.toString(16).padStart(4, '0')}`,
          `0:0:0:0:0:ffff:${dotted}`,
          `[::ffff:${dotted}]:${port}`,
          `[::ffff:${hex}]:${port}`,
          `::ffff:${dotted}%eth0`,
        ];
        for (const spelling of spellings) expect(normalizeAddress(spelling, subnet), `${spelling} at /${subnet}`).toBe(dotted);
      }),
      { numRuns: 1000 },
    );
  });
});
