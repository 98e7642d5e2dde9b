/**
 * What a pipeline is built from (createPipeline's options), and the checks that make a mistake
 * in them a start-up error.
 */
import type { GraphQLSchema } from 'graphql';
import type { Limits } from '../analysis/limits.ts';
import { describe } from '../jsutils/describe.ts';
import type { LogEntry } from '../observability/logEntry.ts';
import { readTrustProxy } from '../ratelimit/rateLimiter.ts';
import type { RateLimitOptions } from '../ratelimit/rateLimiter.ts';
import type { AuthenticationOptions } from '../security/authenticate.ts';
import type { PersistedQueriesOptions, TrustedDocumentsOptions } from '../security/trustedDocuments.ts';
import type { OperationScope } from './operationScope.ts';

export interface PipelineOptions<Raw = unknown> extends AuthenticationOptions {
  schema: GraphQLSchema;
  /**
   * The per-request context: where loaders come from. It may return a promise. Without a
   * factory, the context is `{ request, signal, identity }`.
   */
  context?: (request: Raw, scope: OperationScope) => unknown;
  limits?: Partial<Limits>;
  /** Parsed and validated documents kept, by query text (default 1000); as many small request texts too. */
  documentCacheSize?: number;
  /**
   * The most memory parsed documents may keep (default 32 MiB, estimated at about 120 bytes per
   * character of query text): however large the documents a client sends, the cache holds no more.
   */
  documentCacheBytes?: number;
  /**
   * Validate new documents of 1,024 characters or more in a worker thread, off the event loop
   * (default true; server/validationThread.ts). The answer is the same either way.
   */
  validationThread?: boolean;
  /** Execution time allowed (default 10 s); past it the client gets TIMEOUT and the signal aborts. */
  executionTimeoutMs?: number;
  /** Mask unexpected errors, refuse introspection, no suggestions (default: NODE_ENV is production). */
  production?: boolean;
  /** Allow introspection: to everyone, to no one, or to callers with one of the roles (default: not in production). */
  introspection?: boolean | { roles: ReadonlyArray<string> };
  /** Add `extensions.cost = { requested, actual, limit }` to results (default true). */
  reportCost?: boolean;
  /**
   * What a field the caller may not use does: `'null'` (default) makes it null with a FORBIDDEN
   * error at its path, the rest of the operation running; `'reject'` refuses the whole
   * operation before execution (403 under application/graphql-response+json).
   */
  onDenied?: 'null' | 'reject';
  /** The realm named in `WWW-Authenticate` challenges (default `graphql`). */
  realm?: string;
  /**
   * Subscribers of the same operation with the same variables and identity share one source
   * stream and one execution per event (default true; see sharedSubscriptions.ts for when to
   * turn it off).
   */
  shareSubscriptions?: boolean;
  /** Results a subscriber may fall behind before it gets SUBSCRIPTION_OVERFLOW, when shared (default 1,000). */
  subscriptionBufferSize?: number;
  /**
   * The most a client's open subscriptions may keep of variables, in characters of JSON, over
   * every transport together (default 16 MiB): a subscription keeps its variables for its
   * lifetime, so without a bound one client could pin any amount of memory with sockets full
   * of them. Past it: SUBSCRIPTION_VARIABLES_LIMIT_EXCEEDED, until one ends.
   */
  maxSubscriptionBytesPerClient?: number;
  /**
   * Requests and query-cost points per client per window (default: none). See
   * ratelimit/rateLimiter.ts; a cost budget turns the cost report (`reportCost`) on.
   */
  rateLimit?: RateLimitOptions;
  /**
   * How many proxies in front of the server append to X-Forwarded-For (default 0: the socket's
   * peer is the client). The same as `rateLimit.trustProxy`.
   */
  trustProxy?: number;
  /** Automatic persisted queries (default on, registered in memory; `false` turns them off). */
  persistedQueries?: boolean | PersistedQueriesOptions;
  /** Allowlist mode: only the documents of this manifest run (see security/trustedDocuments.ts). */
  trustedDocuments?: TrustedDocumentsOptions;
  log?: (entry: LogEntry) => void;
  /**
   * Whether a request may ask for an execution trace with `extensions: { trace: true }`
   * (execution/trace.ts): its resolver calls, batches and plan, as `extensions.trace`. Default:
   * allowed unless `production`; refused requests get TRACE_NOT_ALLOWED. A trace shows the
   * schema's shape and the server's timings, so production turns it on only on purpose.
   */
  trace?: boolean;
  /**
   * OpenTelemetry spans (made whenever `@opentelemetry/api` is installed and a tracer provider
   * registered; see docs/operations.md): `document: true` adds the operation's text as
   * `graphql.document` to its span (off by default: a document may hold secrets written inline);
   * `resolvers: true` adds a span per resolver call (`graphql.resolve <path>`; off by default: a
   * list of a thousand items makes thousands of spans).
   */
  openTelemetry?: { document?: boolean; resolvers?: boolean };
}

/** `rateLimit`, with `trustProxy` given at the top level or in it (not both, unless equal). */
export function rateLimitOptions(options: PipelineOptions<never>): RateLimitOptions {
  const rateLimit = options.rateLimit as RateLimitOptions;
  if (options.trustProxy === undefined) return rateLimit;
  const trustProxy = readTrustProxy(options.trustProxy, 'trustProxy');
  if (rateLimit !== null && typeof rateLimit === 'object' && rateLimit.trustProxy !== undefined && rateLimit.trustProxy !== trustProxy) {
    throw new TypeError(`trustProxy (${trustProxy}) and rateLimit.trustProxy (${String(rateLimit.trustProxy)}) differ; set one.`);
  }
  return rateLimit !== null && typeof rateLimit === 'object' ? { ...rateLimit, trustProxy } : rateLimit;
}

/** How many proxies' X-Forwarded-For entries to trust, wherever it was given. */
export function trustProxyOf(options: PipelineOptions<never>): number {
  return options.trustProxy !== undefined ? readTrustProxy(options.trustProxy, 'trustProxy') : (options.rateLimit?.trustProxy ?? 0);
}

/** `introspection: { roles }`, checked: a non-empty list of role names. */
export function introspectionRolesOf(introspection: boolean | { roles: ReadonlyArray<string> }): ReadonlyArray<string> | null {
  if (typeof introspection !== 'object') return null;
  const roles = introspection.roles;
  if (!Array.isArray(roles) || roles.length === 0 || roles.some((role) => typeof role !== 'string')) {
    throw new TypeError(`introspection.roles must be a non-empty list of role names, got ${describe(roles)}.`);
  }
  return roles;
}

export function onDeniedOf(options: PipelineOptions<never>): 'null' | 'reject' {
  const onDenied = options.onDenied ?? 'null';
  if (onDenied !== 'null' && onDenied !== 'reject') throw new TypeError(`onDenied must be 'null' or 'reject', got ${String(onDenied)}.`);
  return onDenied;
}
