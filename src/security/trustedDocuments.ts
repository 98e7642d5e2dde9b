/**
 * Which document a request runs: its own text, a persisted one by hash, or, in allowlist mode,
 * only one of the operator's trusted documents (OWASP's strongest GraphQL control). Decided
 * before parsing, so a document the server does not trust costs it a hash and a lookup.
 *
 * Automatic persisted queries (APQ), as Apollo Client's persisted-queries link sends them
 * (`extensions.persistedQuery = { version: 1, sha256Hash }`), on by default:
 *   - a hash alone: the document registered under it, or PERSISTED_QUERY_NOT_FOUND (message
 *     `PersistedQueryNotFound`, which the link answers by sending the query with the hash);
 *   - a hash with the query: the hash is checked (SHA-256 of the text, else BAD_REQUEST), the
 *     query registered and run;
 *   - `persistedQueries: false`: a hash gets PERSISTED_QUERY_NOT_SUPPORTED (the link then stops
 *     sending hashes).
 * Registered documents live in a bounded LRU in memory, or in Redis (shared by instances,
 * with a time to live).
 *
 * Allowlist (`trustedDocuments: { manifest }`): the manifest maps ids to documents, as Relay
 * (`{ "<md5>": "<text>" }`), GraphQL Codegen's client preset (`{ "<sha256>": "<text>" }`) and
 * Apollo's persisted-query manifest (`{ format: 'apollo-persisted-query-manifest', operations:
 * [{ id, body }] }`) write it. Each id is checked against its document when the server starts
 * (a SHA-256 or MD5 hash must be the document's), and each document is parsed and validated
 * there (pipeline.ts): a manifest that does not hold is a start-up error naming the id. Then a
 * request names its document by `documentId` (GraphQL over HTTP's trusted documents, with or
 * without the `sha256:` prefix) or by the APQ hash, or sends a text that is in the manifest;
 * an id not in it gets PERSISTED_QUERY_NOT_FOUND, any other text PERSISTED_QUERY_NOT_ALLOWED.
 * Nothing is registered at run time.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { GraphQLError } from 'graphql';
import type { Redis } from 'ioredis';
import { describe } from '../jsutils/describe.ts';
import { inspect } from '../jsutils/inspect.ts';
import { LruCache } from '../jsutils/lruCache.ts';
import { asRedis, loadIoredis } from '../redis/loadIoredis.ts';
import type { IoredisClient } from '../redis/ioredisClient.ts';
import { ErrorCode, codedError } from '../errors/codes.ts';
import { CacheCounts } from '../observability/cacheCounts.ts';
import { redisReadiness } from '../observability/health.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import { positiveInteger } from '../jsutils/positiveInteger.ts';

export interface PersistedQueriesOptions {
  /** Documents kept in memory (default 1,000, and at most 16 MiB of text). */
  cacheSize?: number;
  /**
   * Documents one client (an identity, or an anonymous address) may register in the Redis store
   * within `ttlSeconds` (default 1,000); past it its registrations still run but are not kept.
   */
  maxRegistrationsPerClient?: number;
  /** Keep registered documents in Redis, shared by every instance (url defaults to REDIS_URL). */
  store?: { type: 'redis'; url?: string; client?: IoredisClient; keyPrefix?: string; ttlSeconds?: number };
}

export interface TrustedDocumentsOptions {
  /** The manifest: an object, or the path of its JSON file. */
  manifest: string | Readonly<Record<string, unknown>>;
}

/** What a request says about its document. */
export interface DocumentRequest {
  readonly query: string | null;
  readonly documentId?: string | undefined;
  readonly extensions?: Readonly<Record<string, unknown>> | null | undefined;
}

export interface DocumentResolver {
  /** The manifest's documents by id, for the pipeline to check at start (null without an allowlist). */
  readonly manifest: ReadonlyMap<string, string> | null;
  /** The text to run, or the error that refuses the request; asynchronous only for a Redis lookup. */
  resolve(request: DocumentRequest): string | GraphQLError | Promise<string | GraphQLError>;
  /**
   * The request's document passed parsing and validation: a registration it carries (its hash
   * and its text) may now be kept. Nothing is kept before: a refused document is never stored.
   * `client` names who registers (an identity, or an anonymous address), for the per-client bound.
   */
  accept?(request: DocumentRequest, query: string, client: string): void;
  close(): Promise<void>;
  /** With a Redis store: whether it is connected (for readiness probes). */
  readonly readiness?: ReadinessCheck;
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX32 = /^[0-9a-f]{32}$/;

export function createDocumentResolver(
  persistedQueries: boolean | PersistedQueriesOptions | undefined,
  trustedDocuments: TrustedDocumentsOptions | undefined,
  counts: CacheCounts = new CacheCounts(),
): DocumentResolver {
  if (trustedDocuments !== undefined) return new Allowlist(readManifest(trustedDocuments));
  if (persistedQueries === false) return new Unpersisted();
  const options = persistedQueries === undefined || persistedQueries === true ? {} : persistedQueries;
  if (options === null || typeof options !== 'object') throw new TypeError(`persistedQueries must be true, false or an object, got ${describe(persistedQueries)}.`);
  return new AutomaticPersistedQueries(options, counts);
}

/** The id a request names its document by, lower-cased, or an error; undefined when none. */
function requestedId(request: DocumentRequest): string | GraphQLError | undefined {
  const persisted = request.extensions?.['persistedQuery'];
  if (persisted !== undefined && persisted !== null) {
    if (typeof persisted !== 'object' || Array.isArray(persisted)) {
      return codedError(`"extensions.persistedQuery" must be an object, got ${describe(persisted)}.`, ErrorCode.BadRequest);
    }
    const { version, sha256Hash } = persisted as { version?: unknown; sha256Hash?: unknown };
    if (version !== 1) return codedError(`Unsupported persisted query version ${inspect(version)}; only version 1 is.`, ErrorCode.BadRequest);
    if (typeof sha256Hash !== 'string' || !HEX64.test(sha256Hash.toLowerCase())) {
      return codedError('"extensions.persistedQuery.sha256Hash" must be a SHA-256 hash: 64 hexadecimal characters.', ErrorCode.BadRequest);
    }
    return sha256Hash.toLowerCase();
  }
  const id = request.documentId;
  if (id === undefined) return undefined;
  const bare = id.startsWith('sha256:') ? id.slice(7) : id;
  if (bare === '' || bare.length > 256) return codedError('"documentId" must be a document id of at most 256 characters.', ErrorCode.BadRequest);
  const lower = bare.toLowerCase();
  return HEX64.test(lower) || HEX32.test(lower) ? lower : bare;
}

function noQuery(): GraphQLError {
  return codedError('The request has no "query"; expected the GraphQL document as a string.', ErrorCode.BadRequest);
}

function notFound(): GraphQLError {
  return codedError('PersistedQueryNotFound', ErrorCode.PersistedQueryNotFound);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** No persisted queries: a hash is refused so that clients stop sending them. */
class Unpersisted implements DocumentResolver {
  readonly manifest = null;

  resolve(request: DocumentRequest): string | GraphQLError {
    if (request.extensions?.['persistedQuery'] != null || request.documentId !== undefined) {
      return codedError('PersistedQueryNotSupported', ErrorCode.PersistedQueryNotSupported);
    }
    return request.query ?? noQuery();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

class AutomaticPersistedQueries implements DocumentResolver {
  readonly manifest = null;
  readonly readiness?: ReadinessCheck;
  private readonly memory: LruCache<string, string>;
  /** `made`: the store's own connection, once made (readiness reads its status). */
  private readonly redis: { connection: Promise<Redis> | null; made: Redis | null; url: string | null; client: Redis | null; prefix: string; ttlSeconds: number } | null;
  private readonly counts: CacheCounts;
  private readonly maxPerClient: number;
  private closed = false;

  constructor(options: PersistedQueriesOptions, counts: CacheCounts) {
    this.counts = counts;
    const cacheSize = positiveInteger(options.cacheSize ?? 1000, 'persistedQueries.cacheSize');
    this.memory = new LruCache(cacheSize, { maxBytes: 16 * 1024 * 1024, sizeOf: (id, text) => id.length * 2 + text.length * 2 + 64 });
    this.maxPerClient = positiveInteger(options.maxRegistrationsPerClient ?? 1000, 'persistedQueries.maxRegistrationsPerClient');
    const store = options.store;
    if (store === undefined) {
      this.redis = null;
    } else {
      if (store === null || typeof store !== 'object' || store.type !== 'redis') throw new TypeError(`persistedQueries.store must be { type: 'redis', url? }, got ${describe(store)}.`);
      const url = store.client === undefined ? (store.url ?? process.env['REDIS_URL'] ?? '') : null;
      if (url !== null && (!URL.canParse(url) || !/^rediss?:$/.test(new URL(url).protocol))) {
        throw new TypeError('persistedQueries.store needs a redis:// or rediss:// url (or REDIS_URL).');
      }
      const ttlSeconds = positiveInteger(store.ttlSeconds ?? 86_400, 'persistedQueries.store.ttlSeconds');
      const redis = { connection: null, made: null, url, client: store.client === undefined ? null : asRedis(store.client), prefix: store.keyPrefix ?? 'graphql:apq:', ttlSeconds };
      this.redis = redis;
      this.readiness = redisReadiness(
        'persisted query store (Redis)',
        () => redis.client ?? redis.made,
        () => {
          if (!this.closed) this.connection().catch(() => undefined);
        },
      );
    }
  }

  resolve(request: DocumentRequest): string | GraphQLError | Promise<string | GraphQLError> {
    const id = requestedId(request);
    if (id === undefined) return request.query ?? noQuery();
    if (typeof id !== 'string') return id;
    if (!HEX64.test(id)) return codedError('"documentId" must name a SHA-256 hash here: 64 hexadecimal characters, optionally after "sha256:".', ErrorCode.BadRequest);
    const query = request.query;
    if (query !== null) {
      // A registration: checked here, kept once its document has passed (accept).
      if (this.memory.get(id) === query || sha256(query) === id) return query;
      return codedError('provided sha does not match query', ErrorCode.BadRequest);
    }
    const known = this.memory.get(id);
    if (known !== undefined) {
      this.counts.apqHits++;
      return known;
    }
    if (this.redis === null) {
      this.counts.apqMisses++;
      return notFound();
    }
    return this.connection().then(
      (redis) => redis.get(this.redis!.prefix + id),
    ).then(
      (text) => {
        // What Redis holds was checked when it was put there, by some instance: checked again, as cheap.
        if (text === null || sha256(text) !== id) {
          this.counts.apqMisses++;
          return notFound();
        }
        this.counts.apqHits++;
        this.memory.set(id, text);
        return text;
      },
      // Redis away: as if it had not been registered; the client sends the query, which runs.
      () => {
        this.counts.apqMisses++;
        return notFound();
      },
    );
  }

  close(): Promise<void> {
    this.closed = true;
    const redis = this.redis;
    if (redis === null || redis.connection === null || redis.client !== null) return Promise.resolve();
    const connection = redis.connection;
    redis.connection = null;
    return connection.then((client) => client.quit().then(() => undefined), () => undefined).catch(() => undefined);
  }

  accept(request: DocumentRequest, query: string, client: string): void {
    if (request.query === null || request.extensions?.['persistedQuery'] == null) return;
    const id = requestedId(request);
    // resolve() checked the hash against the text before the document ran.
    if (typeof id !== 'string') return;
    if (this.memory.get(id) === undefined) this.memory.set(id, query);
    this.remember(id, query, client);
  }

  /** Kept in Redis, unless the client has registered its share within the period (one script, so instances agree). */
  private remember(id: string, query: string, client: string): void {
    if (this.redis === null) return;
    const { prefix, ttlSeconds } = this.redis;
    this.connection()
      .then((redis) => redis.eval(REGISTER_SCRIPT, 2, prefix + id, `${prefix}registrations:${client}`, query, ttlSeconds, this.maxPerClient))
      .catch(() => undefined);
  }

  private connection(): Promise<Redis> {
    const redis = this.redis!;
    if (redis.client !== null) return Promise.resolve(redis.client);
    redis.connection ??= loadIoredis('persistedQueries.store').then(({ Redis: Client }) => {
      const client = new Client(redis.url as string, { connectionName: 'graphql-apq', commandTimeout: 1000, maxRetriesPerRequest: 1, enableOfflineQueue: true });
      client.on('error', () => undefined);
      redis.made = client;
      return client;
    });
    return redis.connection;
  }
}

/**
 * KEYS: the document's key, the client's registration count; ARGV: the text, the TTL, the most a
 * client may register within it. A document already kept has its TTL renewed, whoever sends it.
 */
const REGISTER_SCRIPT = `
if redis.call('EXPIRE', KEYS[1], ARGV[2]) == 1 then return 1 end
local count = redis.call('INCR', KEYS[2])
if count == 1 then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
if count > tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
`;

class Allowlist implements DocumentResolver {
  readonly manifest: ReadonlyMap<string, string>;
  private readonly texts: ReadonlySet<string>;

  constructor(manifest: ReadonlyMap<string, string>) {
    this.manifest = manifest;
    this.texts = new Set(manifest.values());
  }

  resolve(request: DocumentRequest): string | GraphQLError {
    const id = requestedId(request);
    if (id !== undefined) {
      if (typeof id !== 'string') return id;
      const document = this.manifest.get(id);
      if (document === undefined) return notFound();
      if (request.query !== null && request.query !== document) {
        return codedError(`The query sent is not the trusted document ${id}.`, ErrorCode.BadRequest);
      }
      return document;
    }
    const query = request.query;
    if (query === null) return noQuery();
    if (this.texts.has(query)) return query;
    return codedError('Only trusted documents may run on this server; this one is not in its manifest.', ErrorCode.PersistedQueryNotAllowed);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The manifest's documents by id, each id checked against its document. */
export function readManifest(options: TrustedDocumentsOptions): Map<string, string> {
  if (options === null || typeof options !== 'object') throw new TypeError(`trustedDocuments must be { manifest }, got ${describe(options)}.`);
  let manifest: unknown = options.manifest;
  if (typeof manifest === 'string') {
    try {
      manifest = JSON.parse(readFileSync(manifest, 'utf8'));
    } catch (error) {
      throw new TypeError(`trustedDocuments.manifest: cannot read ${manifest}: ${(error as Error).message}`);
    }
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    throw new TypeError(`trustedDocuments.manifest must map document ids to documents, got ${describe(manifest)}.`);
  }
  let entries: Array<[string, unknown]>;
  const record = manifest as Record<string, unknown>;
  if (record['format'] === 'apollo-persisted-query-manifest') {
    const operations = record['operations'];
    if (!Array.isArray(operations)) throw new TypeError('trustedDocuments.manifest: an Apollo persisted-query manifest needs an "operations" list.');
    entries = operations.map((operation: { id?: unknown; body?: unknown }) => [String(operation?.id), operation?.body]);
  } else {
    entries = Object.entries(record);
  }
  if (entries.length === 0) throw new TypeError('trustedDocuments.manifest is empty: no operation could run.');
  const documents = new Map<string, string>();
  for (const [rawId, document] of entries) {
    if (typeof document !== 'string') throw new TypeError(`trustedDocuments.manifest: the document of ${rawId} must be a string, got ${describe(document)}.`);
    const bare = rawId.startsWith('sha256:') ? rawId.slice(7) : rawId;
    const id = bare.toLowerCase();
    if (HEX64.test(id)) {
      if (sha256(document) !== id) throw new TypeError(`trustedDocuments.manifest: ${rawId} is not the SHA-256 hash of its document (which hashes to ${sha256(document)}).`);
    } else if (HEX32.test(id) && !rawId.startsWith('sha256:')) {
      const md5 = createHash('md5').update(document).digest('hex');
      if (md5 !== id) throw new TypeError(`trustedDocuments.manifest: ${rawId} is not the MD5 hash of its document (which hashes to ${md5}).`);
    } else {
      throw new TypeError(`trustedDocuments.manifest: ${JSON.stringify(rawId)} is not a document hash (SHA-256: 64 hexadecimal characters, optionally after "sha256:"; or Relay's MD5: 32).`);
    }
    documents.set(id, document);
  }
  return documents;
}
