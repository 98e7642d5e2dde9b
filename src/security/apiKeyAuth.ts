/**
 * apiKeyAuth: API keys, sent as `X-API-Key: <key>` or `Authorization: ApiKey <key>`.
 *
 * The server never holds a key itself, only its SHA-256 (`hashApiKey`), so a leaked list or
 * database row cannot be replayed. A key is high-entropy random text, not a password, so a
 * fast unsalted hash is the right tool (a slow password hash would cost every request, and
 * salting defeats the lookup by hash). The presented key's hash is compared with the stored
 * ones in constant time, all of them every time, so timing tells nothing about how close a
 * guess came. Once verified, a key's identity is cached (credentialCache.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { describe } from '../jsutils/describe.ts';
import { invalidCredential } from './authError.ts';
import type { AuthError } from './authError.ts';
import type { Authenticator, AuthRequest, AuthResult } from './authenticate.ts';
import { CredentialCache } from './credentialCache.ts';
import { makeIdentity } from './identity.ts';
import type { Identity } from './identity.ts';

export interface ApiKeyRecord {
  /** The key's id: the identity's id, safe to log. */
  readonly id: string;
  /** The SHA-256 of the key, in hex: `hashApiKey(key)`. */
  readonly hash: string;
  readonly roles?: ReadonlyArray<string>;
  readonly scopes?: ReadonlyArray<string>;
  /** When the key stops working: a Date, an ISO 8601 string or milliseconds since the epoch. Absent or null: never. */
  readonly expiresAt?: Date | string | number | null;
  /** Anything else to hand resolvers as `identity.claims`. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

export interface ApiKeyAuthOptions {
  /** The keys, as records holding hashes. Give this or `lookup`. */
  keys?: ReadonlyArray<ApiKeyRecord>;
  /** Finds the record whose hash is given (from a database, say); null or undefined when there is none. */
  lookup?: (hash: string) => ApiKeyRecord | null | undefined | Promise<ApiKeyRecord | null | undefined>;
  /** Verified keys remembered (default 10,000). */
  cacheSize?: number;
  /**
   * How long a verified key is remembered, in milliseconds, when keys come from `lookup`
   * (default 60 s): a key revoked in the store stops working within this time. Keys given as a
   * list are remembered until they expire.
   */
  cacheMaxAgeMs?: number;
}

/** The SHA-256 of an API key, in hex: what the server stores in place of the key. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;

export function apiKeyAuth(options: ApiKeyAuthOptions): Authenticator {
  if (options === null || typeof options !== 'object') throw new TypeError(`apiKeyAuth: expected options, got ${describe(options)}.`);
  const { keys, lookup } = options;
  if ((keys === undefined) === (lookup === undefined)) {
    throw new TypeError('apiKeyAuth: give either `keys` (a list of records with hashes) or `lookup` (a function from a hash to a record), not both or neither.');
  }
  if (lookup !== undefined && typeof lookup !== 'function') {
    throw new TypeError(`apiKeyAuth: lookup must be a function from a SHA-256 hex hash to a record, got ${describe(lookup)}.`);
  }
  const stored = keys === undefined ? null : storedKeys(keys);
  const cache = new CredentialCache(options.cacheSize ?? 10_000, lookup !== undefined ? (options.cacheMaxAgeMs ?? 60_000) : Infinity);

  return {
    scheme: 'ApiKey',
    authenticate({ credential }: AuthRequest): AuthResult | Promise<AuthResult> {
      if (credential === null || credential.scheme !== 'ApiKey') return null;
      const key = credential.value;
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const digest = createHash('sha256').update(key, 'utf8').digest();
      if (stored === null) return cache.verify(key, () => fromLookup(lookup as NonNullable<ApiKeyAuthOptions['lookup']>, digest));
      const outcome = fromList(stored, digest);
      if (!(outcome instanceof Error)) cache.remember(key, outcome);
      return outcome;
    },
  };
}

/** The identity of the key whose digest this is, from the list: every stored digest compared, in constant time. */
function fromList(list: ReadonlyArray<StoredKey>, digest: Buffer): Identity | AuthError {
  let found: StoredKey | undefined;
  for (const candidate of list) {
    if (timingSafeEqual(candidate.digest, digest) && found === undefined) found = candidate;
  }
  return found === undefined ? unknownKey() : identityOf(found.record, found.expiresAt);
}

/** The identity of the key whose digest this is, from the application's lookup. */
async function fromLookup(lookup: NonNullable<ApiKeyAuthOptions['lookup']>, digest: Buffer): Promise<Identity | AuthError> {
  const hash = digest.toString('hex');
  const record = await lookup(hash);
  if (record === null || record === undefined) return unknownKey();
  const checked = checkRecord(record, 'the record lookup returned');
  // The store matched on the hash already; comparing again, in constant time, guards against
  // a store that matched loosely (a case-insensitive collation, a prefix index).
  return timingSafeEqual(checked.digest, digest) ? identityOf(checked.record, checked.expiresAt) : unknownKey();
}

interface StoredKey {
  readonly record: ApiKeyRecord;
  readonly digest: Buffer;
  readonly expiresAt: number | null;
}

function storedKeys(keys: ReadonlyArray<ApiKeyRecord>): StoredKey[] {
  if (!Array.isArray(keys)) throw new TypeError(`apiKeyAuth: keys must be an array of records, got ${describe(keys)}.`);
  const ids = new Set<string>();
  const hashes = new Set<string>();
  return keys.map((record, index) => {
    const checked = checkRecord(record, `keys[${index}]`);
    if (ids.has(record.id)) throw new TypeError(`apiKeyAuth: two keys have the id "${record.id}"; ids must be unique.`);
    const hash = record.hash.toLowerCase();
    if (hashes.has(hash)) throw new TypeError(`apiKeyAuth: keys[${index}] ("${record.id}") has the same hash as an earlier key.`);
    ids.add(record.id);
    hashes.add(hash);
    return checked;
  });
}

function checkRecord(record: ApiKeyRecord, where: string): StoredKey {
  if (record === null || typeof record !== 'object') throw new TypeError(`apiKeyAuth: ${where} must be a record, got ${describe(record)}.`);
  if (typeof record.id !== 'string' || record.id === '') throw new TypeError(`apiKeyAuth: ${where} needs an "id" (a non-empty string).`);
  if (typeof record.hash !== 'string' || !SHA256_HEX.test(record.hash)) {
    throw new TypeError(`apiKeyAuth: ${where} ("${record.id}") needs a "hash": the key's SHA-256 in hex (64 characters; see hashApiKey).`);
  }
  for (const list of ['roles', 'scopes'] as const) {
    const names = record[list];
    if (names !== undefined && (!Array.isArray(names) || names.some((name) => typeof name !== 'string'))) {
      throw new TypeError(`apiKeyAuth: ${where} ("${record.id}") has ${list} that are not an array of strings.`);
    }
  }
  return { record, digest: Buffer.from(record.hash, 'hex'), expiresAt: expiryOf(record, where) };
}

function expiryOf(record: ApiKeyRecord, where: string): number | null {
  const value = record.expiresAt;
  if (value === undefined || value === null) return null;
  const time = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : value;
  if (typeof time !== 'number' || Number.isNaN(time)) {
    throw new TypeError(`apiKeyAuth: ${where} ("${record.id}") has an expiresAt that is not a date: ${String(value)}.`);
  }
  return time;
}

function identityOf(record: ApiKeyRecord, expiresAt: number | null): Identity | AuthError {
  if (expiresAt !== null && expiresAt <= Date.now()) {
    return invalidCredential('ApiKey', `The API key expired at ${new Date(expiresAt).toISOString()}.`);
  }
  return makeIdentity({
    id: record.id,
    kind: 'apiKey',
    roles: record.roles ?? [],
    scopes: record.scopes ?? [],
    mfa: false,
    expiresAt,
    claims: record.claims ?? {},
  });
}

function unknownKey(): AuthError {
  return invalidCredential('ApiKey', 'The API key is not valid.');
}
