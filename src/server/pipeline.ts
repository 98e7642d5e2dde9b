/**
 * The operation pipeline: what every way in (GraphQL over HTTP today; WebSocket, SSE and the
 * resource routes as they come) does with a GraphQL operation, decided once, in one place. A
 * transport only translates its wire format to these calls and their outcomes back.
 *
 *   authenticate ─ 401 / 403 insufficient_scope / 503                    authenticate()
 *   for each operation:                                                  run()
 *     rate limit, requests only ─ 429 RATE_LIMITED / 503 RATE_LIMIT_UNAVAILABLE
 *     which document: its text, a persisted one, or only trusted ones ─ PERSISTED_QUERY_*
 *     document: parse (length, tokens) + validate, cached by text ─ request errors (400)
 *     choose the operation ─ OPERATION_RESOLUTION_FAILURE; a mutation where only queries may run ─ refused
 *     limits and cost (depth, cost, nodes, ...) ─ *_LIMIT_EXCEEDED
 *     introspection, when only some roles may ─ GRAPHQL_VALIDATION_FAILED
 *     authorize, planned per set of grants ─ FORBIDDEN fields, or the whole operation (onDenied: 'reject', 403)
 *     rate limit with a cost budget: the request and its cost, in one charge ─ 429 / 503
 *     context factory, then execute within the timeout ─ TIMEOUT; signal aborted on timeout or client gone
 *     finish: codes on every error, masking in production, the cost report; the unspent cost refunded
 *
 * Rate limits (ratelimit/rateLimiter.ts) are charged once per operation, at one of two places:
 * with only a requests budget, first, before the document is even looked at; with a cost
 * budget, once the cost is known, the request and its cost together (one round trip to a
 * shared store). An operation refused before that point (a bad document, a limit) is charged
 * as one request and one point, so that refusals are not free to send.
 *
 * Everything between a request's text and execution depends only on that text, the caller's
 * grants and this pipeline's fixed schema, limits and rules. So a small request text seen
 * before is remembered with its parsed members (`known`), and once its operation has passed
 * every check for a set of grants it is executed at once the next time (KnownRequest.ready):
 * the fast path of a client that sends the same query again and again.
 */
import { createHash, randomUUID } from 'node:crypto';
import { GraphQLError, NoSchemaIntrospectionCustomRule, specifiedRules, validate } from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLSchema, OperationDefinitionNode, OperationTypeNode } from 'graphql';
import { checkLimits, DEFAULT_LIMITS, parseWithLimits } from '../analysis/limits.ts';
import type { Limits } from '../analysis/limits.ts';
import type { Analysis } from '../analysis/analyze.ts';
import { executePlan } from '../execution/execute.ts';
import { subscribePlan } from '../execution/subscribe.ts';
import { OperationPlan, planOperation } from '../execution/plan.ts';
import type { SelectionPlan } from '../execution/plan.ts';
import { describe } from '../jsutils/describe.ts';
import { isAsyncIterable } from '../jsutils/isAsyncIterable.ts';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { jsonSize } from '../jsutils/jsonSize.ts';
import { mapAsyncIterable } from '../jsutils/mapAsyncIterable.ts';
import { LruCache } from '../jsutils/lruCache.ts';
import { ClientSlots } from './clientSlots.ts';
import { accessFor, hasAnyRole, operationDenials, schemaHasRules } from '../security/access.ts';
import type { GrantAccess, OperationDenials } from '../security/access.ts';
import { challengeFor } from '../security/authError.ts';
import type { AuthError } from '../security/authError.ts';
import { createAuthentication } from '../security/authenticate.ts';
import type { AuthenticationOptions, RequestHeaders } from '../security/authenticate.ts';
import type { Identity } from '../security/identity.ts';
import { RateLimiter, isRefusal, readTrustProxy, throttleStatus } from '../ratelimit/rateLimiter.ts';
import type { ClientInfo, RateLimitOptions, RatePolicy, RateRefusal, RateStanding } from '../ratelimit/rateLimiter.ts';
import { clientAddress } from '../ratelimit/clientAddress.ts';
import type { Budget } from '../ratelimit/tokenBucket.ts';
import { createDocumentResolver } from '../security/trustedDocuments.ts';
import type { PersistedQueriesOptions, TrustedDocumentsOptions } from '../security/trustedDocuments.ts';
import { GraphQLErrorCode, codedError, withCode } from '../errors/codes.ts';
import { CacheCounts } from '../observability/cacheCounts.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import { NO_ROOT_FIELD_MESSAGE, assertUsableSchema } from '../language/graphqlCompat.ts';
import { SubscriptionGroups } from './sharedSubscriptions.ts';

import type { PromiseOrValue } from '../jsutils/promiseOrValue.ts';
import type { LogEntry } from '../observability/logEntry.ts';

export type { LogEntry };
/** The public name of PromiseOrValue in this package's API before 0.2. */
export type MaybePromise<T> = PromiseOrValue<T>;

/** What a context factory receives beside the transport's request. */
export interface OperationScope {
  /**
   * Aborts when the execution times out or the client goes away. Made on first read (a signal
   * is dear on Node 20), so read it only where it is used, or keep the scope itself.
   */
  readonly signal: AbortSignal;
  /** Who is calling (the anonymous identity when nobody signed in). */
  readonly identity: Identity;
  /** What a WebSocket client sent with `connection_init` (undefined over HTTP). */
  readonly connectionParams: Readonly<Record<string, unknown>> | undefined;
}

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
}

/** The members of one GraphQL request, as received. */
export interface RequestParams {
  /** The document's text; null when the request names a persisted or trusted document instead. */
  readonly query: string | null;
  readonly operationName: string | null;
  readonly variables: Record<string, unknown> | null;
  /** The request's `extensions` (where `persistedQuery` is). */
  readonly extensions?: Readonly<Record<string, unknown>> | null;
  /** A trusted document's id (GraphQL over HTTP's `documentId`). */
  readonly documentId?: string;
}

/** One operation to run, as a transport hands it over. */
export interface OperationRequest<Raw = unknown> {
  readonly params: RequestParams;
  readonly identity: Identity;
  /** The transport's own request object, handed to the context factory. */
  readonly raw: Raw;
  /** Whether the request may change nothing (an HTTP GET): a mutation gets `notAllowed`. */
  readonly readOnly: boolean;
  /**
   * Whether the transport can carry a stream of results (WebSocket, Server-Sent Events): a
   * subscription then gets `{ stream }`; else it is refused with SUBSCRIPTION_NOT_SUPPORTED.
   */
  readonly streams?: boolean;
  /** What a WebSocket client sent with `connection_init`, for the context factory. */
  readonly connectionParams?: Readonly<Record<string, unknown>>;
  /** Where the request came from (socket peer, X-Forwarded-For): who an anonymous caller is counted as. */
  readonly client?: ClientInfo;
  /**
   * Not charged to the rate limits: a read a transport makes as part of a request that is
   * charged (a resource route's If-Match check of the resource it is about to change).
   */
  readonly uncharged?: boolean;
  /**
   * Registers a callback for the client going away before the response is complete; called at
   * once if it already has. Registered only for executions that go asynchronous.
   */
  onClientGone?(callback: () => void): void;
  /** Told the operation's type and name once the document has chosen it (for request logs and metrics). */
  chosen?(type: OperationTypeNode, name: string | undefined): void;
  /**
   * The request's id (its request line's, and the `x-request-id` answered), read only when an
   * unexpected error is masked: the masked error and its log entry then carry the id the
   * request line carries. Without one, each masked error gets a new id.
   */
  readonly requestId?: string;
}

/** What running an operation came to. */
export type OperationOutcome = OperationResult | OperationStream | NotAllowed | RateLimited;

/** Refused by the rate limiter: over budget (429) or the limiter's store away (503). Nothing ran. */
export interface RateLimited {
  readonly rateLimited: RateRefusal;
}

/**
 * A subscription's response stream: one finished result per event. Closing it (`return()`)
 * closes the source stream and aborts the operation's signal.
 */
export interface OperationStream {
  readonly stream: AsyncGenerator<ExecutionResult, void, void>;
  /** The caller's rate-limit standing, when limits are on. */
  readonly rate?: RateStanding;
}

export interface OperationResult {
  readonly result: ExecutionResult;
  /** Whether the result is a request error (no `data`): 400 under application/graphql-response+json. */
  readonly requestError: boolean;
  /** Set when the operation was refused for fields the caller may not use (onDenied: 'reject'): a 403. */
  readonly denied?: OperationDenials;
  /**
   * For a result known to be small (see isSmall): the operation's root selection plan, whose
   * generated writer writes `data` (compileStringify.ts). Otherwise the native JSON.stringify does.
   */
  readonly writer?: SelectionPlan | null;
  /** The caller's rate-limit standing after this operation, when limits are on (for RateLimit headers). */
  readonly rate?: RateStanding;
}

/** An operation this request may not carry: a mutation over GET. */
export interface NotAllowed {
  readonly notAllowed: 'mutation';
}

/** A small request text seen before: its members, and once its operation passed every check, how to run it. */
export interface KnownRequest {
  readonly params: RequestParams;
  ready: ReadyOperation | null;
}

/** An operation that has passed every check before execution, for one set of grants. */
class ReadyOperation {
  constructor(
    /** The chosen operation, planned for `access` (it holds the schema, document and operation). */
    readonly plan: OperationPlan,
    readonly access: GrantAccess | null,
    readonly kind: OperationDefinitionNode['operation'],
    /** Whether it reads the schema (introspection), which `introspection: { roles }` checks per caller. */
    readonly introspects: boolean,
    /** The cost analysis, for the cost report and a cost budget. */
    readonly analysis: Analysis | null,
    /** The root selection plan when the result is small (see isSmall), whose generated writer writes `data`. */
    readonly writer: SelectionPlan | null,
  ) {}
}

export interface OperationPipeline<Raw = unknown> {
  readonly schema: GraphQLSchema;
  readonly limits: Limits;
  readonly production: boolean;
  /** The rate limiter, when `rateLimit` is set. */
  readonly rateLimiter: RateLimiter | null;
  /** Who is calling, from the request's headers (or what a transport gives as such). */
  authenticate(headers: RequestHeaders): MaybePromise<Identity | AuthError>;
  /** The `WWW-Authenticate` value for an authentication failure (null for a 503). */
  challenge(error: AuthError): string | null;
  /** The request text seen before, if it was remembered. */
  known(text: string): KnownRequest | undefined;
  /** Remembers a small request text's members (texts longer than SMALL_REQUEST are not kept). */
  remember(text: string, params: RequestParams): KnownRequest | undefined;
  /** Runs one operation: every step after authentication. */
  run(request: OperationRequest<Raw>, known?: KnownRequest): MaybePromise<OperationOutcome>;
  /**
   * The error to send when a subscription's stream fails (its source threw, or overflowed): a
   * GraphQLError as it is, coded; anything else is a fault, masked in production and logged.
   */
  streamError(error: unknown): GraphQLError;
  /** Releases what the rate limiter's and persisted queries' stores hold (timers, Redis connections). */
  close(): Promise<void>;
  /** The key a client's connections are counted under: its address, as the rate limiter keys an anonymous caller. */
  addressOf(client: ClientInfo): string;
  /**
   * Charges one request that a transport refuses before any operation runs, so that refusals are
   * no free way to spend the server's time: a credential that fails (charged to the client's
   * address, as an anonymous caller: who sent it is not known), or a resource route's failed
   * If-Match (the read it ran). The refusal when the budget is spent (answer 429 instead); null
   * when charged, or when there are no rate limits.
   */
  charge(identity: Identity, client: ClientInfo): MaybePromise<RateRefusal | null>;
  /** Hits and misses of the document and persisted-query caches, for metrics. */
  readonly cacheCounts: CacheCounts;
  /** Where the pipeline's errors go (its `log` option): transports log their own faults there too. */
  readonly log: (entry: LogEntry) => void;
  /** The stores' readiness (a Redis rate-limit or persisted-query store), for readiness probes. */
  readonly readiness: ReadonlyArray<ReadinessCheck>;
}

/**
 * An operation with no list field and at most this many fields (fragments written out) has a
 * result small enough that generated code writes it faster than the native JSON.stringify.
 */
const SMALL_RESULT_FIELDS = 32;

/** Request texts up to this many characters have their parsed members remembered (a few MB at most). */
export const SMALL_REQUEST = 4096;

/** Characters of a new document that count as one request more (see validationCharge). */
const VALIDATION_UNIT = 10_000;

/** The bytes of parsed documents kept, by default (`documentCacheBytes`). */
export const DEFAULT_DOCUMENT_CACHE_BYTES = 32 * 1024 * 1024;
/**
 * What a parsed document keeps alive per character of its text, at most: its AST, validation and
 * plans. Measured on the demo schema: 112 bytes for the densest documents (short fields, each
 * with a sub-selection), about 1 for a long comment; the estimate is the dense case's.
 */
const DOCUMENT_BYTES_PER_CHARACTER = 120;
/** The bytes of small request bodies kept already read (KnownRequest). */
const KNOWN_REQUEST_CACHE_BYTES = 16 * 1024 * 1024;

/** What a query text becomes once: its document and validation errors, or its parse errors. */
interface PreparedDocument {
  readonly document: DocumentNode | null;
  readonly errors: ReadonlyArray<GraphQLError>;
  /** Limit checks of operations without variables, whose outcome cannot change (by operation name). */
  readonly checked: Map<string | null, { analysis: Analysis | null; errors: GraphQLError[] }>;
  /** With `introspection: { roles }`: the errors of the no-introspection rule, found on first need. */
  introspectionErrors?: ReadonlyArray<GraphQLError>;
}

export function createPipeline<Raw = unknown>(options: PipelineOptions<Raw>): OperationPipeline<Raw> {
  assertUsableSchema(options.schema, 'graphql-engine');
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const production = options.production ?? process.env.NODE_ENV === 'production';
  const introspection = options.introspection ?? !production;
  const introspectionRoles = typeof introspection === 'object' ? checkIntrospectionRoles(introspection) : null;
  const traceAllowed = options.trace ?? !production;
  // How many proxies' X-Forwarded-For entries to trust, wherever it was given (checked below with the rate limits).
  const trustProxy = options.trustProxy !== undefined ? readTrustProxy(options.trustProxy, 'trustProxy') : (options.rateLimit?.trustProxy ?? 0);
  const limiter = options.rateLimit === undefined ? null : new RateLimiter(rateLimitOptions(options), options.schema);
  // Refunds need the actual cost, and a cost budget is reported where it is spent.
  const reportCost = (options.reportCost ?? true) || limiter?.hasCostBudget === true;
  const cacheCounts = new CacheCounts();
  const resolver = createDocumentResolver(options.persistedQueries, options.trustedDocuments, cacheCounts);
  const timeoutMs = options.executionTimeoutMs ?? 10_000;
  const onDenied = options.onDenied ?? 'null';
  if (onDenied !== 'null' && onDenied !== 'reject') throw new TypeError(`onDenied must be 'null' or 'reject', got ${String(onDenied)}.`);
  const realm = options.realm ?? 'graphql';
  const log = options.log ?? ((entry: LogEntry) => console.error(entry.message, entry.requestId ?? '', entry.error ?? ''));
  // Bounded in bytes as well as entries: a client chooses the texts. A parsed document (its AST,
  // its plans) keeps up to about 120 bytes per character of its text alive.
  const documents = new LruCache<string, PreparedDocument>(options.documentCacheSize ?? 1000, {
    maxBytes: options.documentCacheBytes ?? DEFAULT_DOCUMENT_CACHE_BYTES,
    sizeOf: (query) => query.length * DOCUMENT_BYTES_PER_CHARACTER + 1024,
  });
  // A known request keeps its ready operation, and so its document and plans, alive after the
  // document cache has let them go: it is sized as the document it holds.
  const knownRequests = new LruCache<string, KnownRequest>(options.documentCacheSize ?? 1000, {
    maxBytes: KNOWN_REQUEST_CACHE_BYTES,
    sizeOf: (text) => text.length * DOCUMENT_BYTES_PER_CHARACTER + 512,
  });
  // With introspection for some roles, documents are validated as for everyone, and whether
  // they introspect is checked per caller (see mayIntrospect).
  const rules = introspection === false ? [...specifiedRules, NoSchemaIntrospectionCustomRule] : specifiedRules;
  const schema = options.schema;
  const authentication = createAuthentication(options);
  // A schema without rules plans every operation once, for everyone (no access to look up).
  const checksAccess = schemaHasRules(schema);
  const groups =
    options.shareSubscriptions === false ? null : new SubscriptionGroups(positiveCount(options.subscriptionBufferSize ?? 1000, 'subscriptionBufferSize'));
  /** Characters of variables each client's open subscriptions keep (maxSubscriptionBytesPerClient). */
  const subscriptionBytes = new ClientSlots(positiveCount(options.maxSubscriptionBytesPerClient ?? 16 * 1024 * 1024, 'maxSubscriptionBytesPerClient'));
  /** Operation refusals under onDenied: 'reject', per plan (a plan is made for one set of grants). */
  const denials = new WeakMap<OperationPlan, OperationDenials>();
  // Every trusted document must parse and validate: a manifest that does not is a start-up error.
  for (const [id, text] of resolver.manifest ?? []) {
    const prepared = prepare(text);
    if (prepared.document === null) {
      throw new TypeError(`trustedDocuments.manifest: the document ${id} is not valid against the schema: ${prepared.errors.map((error) => error.message).join(' ')}`);
    }
  }

  function prepare(query: string): PreparedDocument {
    let prepared = documents.get(query);
    if (prepared !== undefined) {
      cacheCounts.documentHits++;
    } else {
      cacheCounts.documentMisses++;
      const parsed = parseWithLimits(query, limits);
      if ('errors' in parsed) return { document: null, errors: parsed.errors, checked: new Map() };
      const errors = validated(parsed.document).map((error) => withCode(error, GraphQLErrorCode.ValidationFailed));
      prepared = { document: errors.length > 0 ? null : parsed.document, errors, checked: new Map() };
      // Nothing refused is kept: a client would choose what fills the cache.
      if (prepared.document !== null) {
        documents.set(query, prepared);
        cacheCounts.documentCacheBytes = documents.bytes;
      }
    }
    return prepared;
  }

  /**
   * Who a request counts as, for bounds per client: its identity, or for an anonymous caller its
   * address (as the rate limiter keys it, with trustProxy hops trusted).
   */
  function clientOf(identity: Identity, client: ClientInfo | undefined): string {
    if (identity.kind !== 'anonymous') return `${identity.kind}:${identity.id}`;
    return addressOf(client);
  }

  /**
   * The requests a request counts as: one, and one more for every VALIDATION_UNIT characters of
   * a document that is not in the cache, which is parsed and validated for it: a large new
   * document costs the server more, so it costs the client more.
   */
  function validationCharge(query: string | null): number {
    if (query === null || query.length < VALIDATION_UNIT || documents.get(query) !== undefined) return 1;
    return 1 + Math.floor(query.length / VALIDATION_UNIT);
  }

  function charge(identity: Identity, client: ClientInfo): MaybePromise<RateRefusal | null> {
    if (limiter === null) return null;
    const admission = limiter.admit(limiter.policyFor(identity), limiter.keyFor(identity, client), 0);
    if (admission instanceof Promise) return admission.then((settled) => (isRefusal(settled) ? settled : null));
    return isRefusal(admission) ? admission : null;
  }

  function addressOf(client: ClientInfo | undefined): string {
    return `ip:${clientAddress(client?.remoteAddress, client?.forwardedFor, trustProxy, 56) ?? 'unknown'}`;
  }

  /**
   * graphql-js's validation. A rule can throw rather than report (graphql 16's single-root-field
   * rule does, for a subscription whose root field's @skip reads a variable): what it throws is
   * the document's validation error, a 400 like any other, never a fault of the server.
   */
  function validated(document: DocumentNode): ReadonlyArray<GraphQLError> {
    try {
      return validate(schema, document, rules, { hideSuggestions: production });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return [new GraphQLError(`The document could not be validated: ${message}`)];
    }
  }

  /** The no-introspection rule's errors for a document (none when it does not introspect). */
  function introspectionErrorsOf(prepared: PreparedDocument): ReadonlyArray<GraphQLError> {
    prepared.introspectionErrors ??= validate(schema, prepared.document as DocumentNode, [NoSchemaIntrospectionCustomRule]).map((error) =>
      withCode(error, GraphQLErrorCode.ValidationFailed),
    );
    return prepared.introspectionErrors;
  }

  function mayIntrospect(identity: Identity): boolean {
    return introspectionRoles === null || hasAnyRole(schema, identity, introspectionRoles);
  }

  /** Runs one operation: within the rate limits when they are on. */
  function run(request: OperationRequest<Raw>, known?: KnownRequest): MaybePromise<OperationOutcome> {
    // A trace asked for (or a malformed ask) is answered first, like a malformed request: uncharged.
    const extensions = request.params.extensions;
    if (extensions != null && extensions['trace'] !== undefined) {
      const refused = traceRefusal(extensions['trace'], traceAllowed);
      if (refused !== null) return refused;
    }
    if (limiter === null || request.uncharged === true) {
      // The fast path first: a known request whose operation passed every check for these grants.
      const ready = readyFor(request, known);
      return ready !== null ? startOperation(ready, request) : runUnlimited(request, known);
    }
    const policy = limiter.policyFor(request.identity);
    const key = limiter.keyFor(request.identity, request.client ?? NO_CLIENT);
    if (policy.cost === null) {
      // Requests only: charged before anything else is done for the request.
      const admission = limiter.admit(policy, key, 0, validationCharge(request.params.query));
      if (admission instanceof Promise) return admission.then((settled) => (isRefusal(settled) ? { rateLimited: settled } : runUnlimited(request, known, settled)));
      return isRefusal(admission) ? { rateLimited: admission } : runUnlimited(request, known, admission);
    }
    return after(readyOrChecked(request, known), (checked) => runWithCost(request, checked, limiter, policy, key));
  }

  /** Checks an operation and executes it (`rate`: the caller's standing, already charged, to report). */
  function runUnlimited(request: OperationRequest<Raw>, known: KnownRequest | undefined, rate?: RateStanding): MaybePromise<OperationOutcome> {
    const checked = readyOrChecked(request, known);
    if (checked instanceof Promise) return checked.then((settled) => startChecked(settled, request, rate));
    return startChecked(checked, request, rate);
  }

  function startChecked(checked: ReadyOperation | OperationResult | NotAllowed, request: OperationRequest<Raw>, rate: RateStanding | undefined): MaybePromise<OperationOutcome> {
    if (checked instanceof ReadyOperation) return startOperation(checked, request, rate);
    return rate === undefined ? checked : withStanding(checked, rate);
  }

  /**
   * A cost budget: the request and its requested cost (at least 1) are charged together once
   * the cost is known; after execution what was not spent is given back, and the result says
   * where the budget stands (`extensions.cost.throttleStatus`).
   */
  function runWithCost(
    request: OperationRequest<Raw>,
    checked: ReadyOperation | OperationResult | NotAllowed,
    rateLimiter: RateLimiter,
    policy: RatePolicy,
    key: string,
  ): MaybePromise<OperationOutcome> {
    const budget = policy.cost as Budget;
    let refused: OperationResult | NotAllowed | null = checked instanceof ReadyOperation ? null : checked;
    const requested = checked instanceof ReadyOperation ? Math.max(checked.analysis?.cost ?? 0, 1) : 1;
    if (requested > budget.limit) {
      // It could never be served, whatever the client waited: a request error, not a 429.
      refused = requestErrors([
        codedError(
          `Query cost ${requested} exceeds the rate-limit budget of ${budget.limit} points per ${budget.windowMs / 1000} s.`,
          'COST_LIMIT_EXCEEDED',
          { measured: requested, limit: budget.limit },
        ),
      ]);
    }
    const charged = refused === null ? requested : 1;
    return after(rateLimiter.admit(policy, key, charged, validationCharge(request.params.query)), (admission): MaybePromise<OperationOutcome> => {
      if (isRefusal(admission)) return { rateLimited: admission };
      if (refused !== null) return withStanding(refused, admission);
      return after(startOperation(checked as ReadyOperation, request), (outcome) => {
        if (!('result' in outcome)) return withStanding(outcome, admission);
        const cost = outcome.result.extensions?.['cost'] as { actual?: number } | undefined;
        const standing = cost?.actual === undefined ? admission : rateLimiter.refund(admission, key, charged - Math.max(cost.actual, 1));
        const status = throttleStatus(standing);
        const result = cost === undefined || status === null ? outcome.result : { ...outcome.result, extensions: { ...outcome.result.extensions, cost: { ...cost, throttleStatus: status } } };
        return { ...outcome, result, rate: standing };
      });
    });
  }

  /** The operation ready to run (at once for a known request that passed before), or why it may not. */
  function readyOrChecked(request: OperationRequest<Raw>, known: KnownRequest | undefined): MaybePromise<ReadyOperation | OperationResult | NotAllowed> {
    const ready = readyFor(request, known);
    if (ready !== null) return ready;
    const access = checksAccess ? accessFor(schema, request.identity) : null;
    const text = resolver.resolve(request.params);
    if (text instanceof Promise) {
      return text.then((settled) => (typeof settled === 'string' ? check(request, known, settled, access) : requestErrors([settled])));
    }
    return typeof text === 'string' ? check(request, known, text, access) : requestErrors([text]);
  }

  /** The known request's operation, when it passed every check for the caller's grants and may run as this request asks. */
  function readyFor(request: OperationRequest<Raw>, known: KnownRequest | undefined): ReadyOperation | null {
    const ready = known?.ready;
    if (ready == null) return null;
    const { identity } = request;
    if (
      ready.access === (checksAccess ? accessFor(schema, identity) : null) &&
      (ready.kind === 'query' || (ready.kind === 'mutation' ? !request.readOnly : request.streams === true)) &&
      (!ready.introspects || mayIntrospect(identity))
    ) {
      // A persisted query's registration (hash and query) seen before: registered again, in
      // case the store has let it go since (its text and hash were checked the first time).
      if (request.params.extensions != null && request.params.query !== null) {
        resolver.accept?.(request.params, request.params.query, clientOf(identity, request.client));
      }
      cacheCounts.documentHits++;
      // A persisted query named by its hash alone, known (an allowlist's ids are no cache).
      if (request.params.query === null && resolver.manifest === null) cacheCounts.apqHits++;
      request.chosen?.(ready.kind, ready.plan.operation.name?.value);
      return ready;
    }
    return null;
  }

  /** Checks an operation (document, choice, kind, limits, introspection, authorization); `known` then remembers it as ready. */
  function check(request: OperationRequest<Raw>, known: KnownRequest | undefined, query: string, access: GrantAccess | null): ReadyOperation | OperationResult | NotAllowed {
    const { params, identity } = request;
    const prepared = prepare(query);
    if (prepared.document === null) return requestErrors(prepared.errors);
    const document = prepared.document;
    if (params.extensions != null) resolver.accept?.(params, query, clientOf(identity, request.client));

    // The executor's own plan cache chooses the operation (and keeps the choice for execute()).
    const chosen = planOperation(schema, document, params.operationName);
    if (!(chosen instanceof OperationPlan)) {
      return requestErrors(chosen.map((error) => withCode(error, GraphQLErrorCode.OperationResolutionFailure)));
    }
    const kind = chosen.operation.operation;
    request.chosen?.(kind, chosen.operation.name?.value);
    if (request.readOnly && kind === 'mutation') return { notAllowed: kind };
    if (kind === 'subscription' && request.streams !== true) {
      return requestErrors([
        codedError(
          'A subscription needs a transport that streams results: a WebSocket (graphql-transport-ws) or Server-Sent Events (Accept: text/event-stream).',
          GraphQLErrorCode.SubscriptionOverHttp,
        ),
      ]);
    }

    const checked = checkOperation(prepared, document, chosen.operation, params);
    if (checked.errors.length > 0) return requestErrors(checked.errors);

    const introspects = introspectionRoles !== null && introspectionErrorsOf(prepared).length > 0;
    if (introspects && !mayIntrospect(identity)) return requestErrors(introspectionErrorsOf(prepared));

    const plan = chosen.forAccess(access);
    if (onDenied === 'reject' && access !== null) {
      let denied = denials.get(plan);
      if (denied === undefined) {
        denied = operationDenials(schema, plan.operation, plan.fragments, access);
        denials.set(plan, denied);
      }
      if (denied.errors.length > 0) return { result: { errors: [...denied.errors] }, requestError: true, denied };
    }

    const operation = new ReadyOperation(plan, access, kind, introspects, checked.analysis, isSmall(checked.analysis) ? plan.root : null);
    if (known !== undefined) known.ready = operation;
    return operation;
  }

  /** Makes the operation's context, then executes it (or subscribes: shared, see sharedSubscriptions.ts). */
  function startOperation(ready: ReadyOperation, request: OperationRequest<Raw>, rate?: RateStanding): MaybePromise<OperationResult | OperationStream> {
    if (ready.kind === 'subscription') {
      // A subscription keeps its variables for its lifetime: only those its operation declares,
      // within the client's budget of them.
      const variables = declaredVariables(ready.plan.operation, request.params.variables);
      const held = holdVariables(variables, request);
      if (held === null) return requestErrors([subscriptionBytesError(variables)]);
      // A traced subscriber gets executions of its own: a group's results are shared as they are.
      const key = groups === null || isTraced(request) ? null : groupKey(variables);
      const subscribed =
        groups === null || key === null
          ? startSubscription(ready, request, variables)
          : groups.join(ready.plan, request.identity, key, () => startSubscription(ready, request, variables));
      const started = held === NOTHING_HELD ? subscribed : releasedAtEnd(subscribed, held);
      return rate === undefined ? started : started.then((outcome) => withStanding(outcome, rate) as OperationResult | OperationStream);
    }
    const abort = new OperationAbort(request.identity, request.connectionParams);
    const contextValue = options.context ? options.context(request.raw, abort) : new DefaultContext(request.raw, abort);
    if (isPromiseLike(contextValue)) {
      return Promise.resolve(contextValue).then((resolved) => executeOperation(ready, request, abort, resolved, rate));
    }
    return executeOperation(ready, request, abort, contextValue, rate);
  }

  /**
   * Takes the characters a subscription's variables keep from its client's budget: the function
   * that gives them back, NOTHING_HELD for a subscription without variables, null when the
   * budget has not that much left.
   */
  function holdVariables(variables: Readonly<Record<string, unknown>> | null, request: OperationRequest<Raw>): (() => void) | null {
    const size = variablesSize(variables);
    if (size === 0) return NOTHING_HELD;
    return subscriptionBytes.take(clientOf(request.identity, request.client), size);
  }

  function subscriptionBytesError(variables: Readonly<Record<string, unknown>> | null): GraphQLError {
    return codedError(
      `This client's subscriptions keep as many characters of variables as one client may (${subscriptionBytes.perClient}); this one's would be ${variablesSize(variables)} more. End a subscription before starting another.`,
      GraphQLErrorCode.SubscriptionVariablesLimit,
    );
  }

  /**
   * Subscribes to a checked operation: the response stream, each event's result finished like a
   * query's (codes, masking, the cost report), or the errors that kept the stream from starting.
   * Ending the stream aborts the operation's signal, so resolvers waiting on it stop too.
   */
  async function startSubscription(
    ready: ReadyOperation,
    request: OperationRequest<Raw>,
    variables: Readonly<Record<string, unknown>> | null,
  ): Promise<OperationResult | OperationStream> {
    const abort = new OperationAbort(request.identity, request.connectionParams);
    const contextValue = await (options.context ? options.context(request.raw, abort) : new DefaultContext(request.raw, abort));
    let subscribed: Awaited<ReturnType<typeof subscribePlan>>;
    try {
      subscribed = await subscribePlan(ready.plan, {
        variableValues: variables,
        contextValue,
        measureCost: reportCost,
        signal: abort,
        hideSuggestions: production,
        trace: isTraced(request),
      });
    } catch (error) {
      if (leftNoRootField(error)) return requestErrors([noRootField()]);
      throw error;
    }
    const { analysis } = ready;
    if (!isAsyncIterable(subscribed)) {
      if (leftNoRootField(subscribed.errors?.[0])) return requestErrors([noRootField()]);
      return { result: finishResult(subscribed, analysis, request.requestId), requestError: !('data' in subscribed) };
    }
    // The stream keeps the request's id, not the request: its unused variables are let go.
    const requestId = request.requestId;
    const stream = mapAsyncIterable(
      subscribed,
      (result) => finishResult(result, analysis, requestId),
      () => abort.abort(new Error('The subscription ended.')),
    );
    return { stream };
  }

  /** Runs a checked operation; a synchronous execution is answered at once, an asynchronous one within the timeout. */
  function executeOperation(
    ready: ReadyOperation,
    request: OperationRequest<Raw>,
    abort: OperationAbort,
    contextValue: unknown,
    rate: RateStanding | undefined,
  ): MaybePromise<OperationResult> {
    const trace = isTraced(request);
    const executed = executePlan(ready.plan, {
      variableValues: request.params.variables,
      contextValue,
      measureCost: reportCost,
      signal: abort,
      hideSuggestions: production,
      trace,
    });
    const analysis = ready.analysis;
    // A traced result is written by JSON.stringify: the generated writers are for small results.
    const writer = trace ? null : ready.writer;
    if (!(executed instanceof Promise)) return { result: finishResult(executed, analysis, request.requestId), requestError: !('data' in executed), writer, rate };
    request.onClientGone?.(() => abort.abort(new Error('The client closed the connection.')));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<null>((resolve) => {
      timer = setTimeout(resolve, timeoutMs, null);
    });
    return Promise.race([executed, timedOut]).then((result): OperationResult => {
      clearTimeout(timer);
      if (result === null) {
        abort.abort(new Error(`Execution timed out after ${timeoutMs} ms.`));
        const error = codedError(`Execution timed out after ${timeoutMs} ms.`, GraphQLErrorCode.Timeout);
        return { result: { errors: [error], data: null }, requestError: false, rate };
      }
      return { result: finishResult(result, analysis, request.requestId), requestError: !('data' in result), writer, rate };
    });
  }

  /** Limits, checked once per operation when nothing in them depends on variables. */
  function checkOperation(prepared: PreparedDocument, document: DocumentNode, operation: OperationDefinitionNode, params: RequestParams) {
    const cacheable = (operation.variableDefinitions?.length ?? 0) === 0;
    if (cacheable) {
      const known = prepared.checked.get(params.operationName);
      if (known !== undefined) return known;
    }
    // Introspection is allowed or refused by its own setting; where allowed, an IDE's schema query
    // (about 15,000 points with the default list sizes) must fit the cost limit, so it is not
    // costed. Its depth and nodes still count: a schema query nested to blow up is still stopped.
    const checked = checkLimits({ schema, document, operationName: params.operationName, variableValues: params.variables, limits, introspection: 'uncosted' });
    if (cacheable) prepared.checked.set(params.operationName, checked);
    return checked;
  }

  function streamError(error: unknown): GraphQLError {
    if (error instanceof GraphQLError) return withCode(error, GraphQLErrorCode.InternalServerError);
    const requestId = randomUUID();
    log({ level: 'error', message: 'A subscription stream failed.', requestId, error });
    const message = production || !(error instanceof Error) ? 'Unexpected error.' : error.message;
    return codedError(message, GraphQLErrorCode.InternalServerError, { requestId });
  }

  /** Codes on every error, unexpected errors masked in production, and the cost report. */
  function finishResult(result: ExecutionResult, analysis: Analysis | null, requestId: string | undefined): ExecutionResult {
    let errors = result.errors;
    if (errors !== undefined) {
      const isVariableError = !('data' in result);
      errors = errors.map((error) => {
        if (isVariableError) return withCode(error, GraphQLErrorCode.BadUserInput);
        // A resolver's GraphQLError is meant for the client (and keeps its code: located errors
        // carry their original's extensions); anything else thrown is a fault, hidden in production.
        const original = error.originalError;
        if (production && original != null && !(original instanceof GraphQLError)) {
          const errorId = requestId ?? randomUUID();
          log({ level: 'error', message: `Unexpected error in a resolver: ${error.message}`, requestId: errorId, error: original ?? error });
          return new GraphQLError('Unexpected error.', {
            nodes: error.nodes,
            source: error.source,
            positions: error.positions,
            path: error.path,
            extensions: { code: GraphQLErrorCode.InternalServerError, requestId: errorId },
          });
        }
        return withCode(error, GraphQLErrorCode.InternalServerError);
      });
    }
    // Nothing to add (no errors to code, no cost report): the executor's result is answered as it is.
    if (errors === undefined && result.extensions === undefined && !(reportCost && analysis !== null)) return result;
    const finished: ExecutionResult = errors === undefined ? { data: result.data } : { errors, data: result.data };
    if (reportCost && analysis !== null) {
      const actual = (result.extensions?.['cost'] as { actual?: number } | undefined)?.actual ?? 0;
      finished.extensions = { cost: { requested: analysis.cost, actual, limit: limits.cost === false ? null : limits.cost } };
    }
    const trace = result.extensions?.['trace'];
    if (trace !== undefined) (finished.extensions ??= {})['trace'] = trace;
    return finished;
  }

  return {
    schema,
    limits,
    production,
    rateLimiter: limiter,
    authenticate: authentication.authenticate,
    challenge: (error) => challengeFor(error, authentication.schemes, realm),
    known: (text) => (text.length <= SMALL_REQUEST ? knownRequests.get(text) : undefined),
    remember(text, params) {
      if (text.length > SMALL_REQUEST) return undefined;
      const known: KnownRequest = { params, ready: null };
      knownRequests.set(text, known);
      return known;
    },
    run,
    streamError,
    addressOf,
    charge,
    close: () => Promise.all([limiter?.close(), resolver.close()]).then(() => undefined),
    cacheCounts,
    log,
    readiness: [limiter?.store.readiness, resolver.readiness].filter((check): check is ReadinessCheck => check !== undefined),
  };
}

/** A value now or later, then `next` of it: synchronous as long as the value is. */
function after<T, U>(value: MaybePromise<T>, next: (settled: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

const NO_CLIENT: ClientInfo = {};

/** The outcome, with the caller's rate-limit standing for the transport to report. */
function withStanding(outcome: OperationOutcome, standing: RateStanding): OperationOutcome {
  // Written out rather than spread: a spread is several times slower, on every limited request.
  if ('result' in outcome) {
    const { result, requestError, denied, writer } = outcome;
    return denied === undefined ? { result, requestError, writer, rate: standing } : { result, requestError, denied, writer, rate: standing };
  }
  return 'stream' in outcome ? { stream: outcome.stream, rate: standing } : outcome;
}

/** `rateLimit`, with `trustProxy` given at the top level or in it (not both, unless equal). */
function rateLimitOptions(options: PipelineOptions<never>): RateLimitOptions {
  const rateLimit = options.rateLimit as RateLimitOptions;
  if (options.trustProxy === undefined) return rateLimit;
  const trustProxy = readTrustProxy(options.trustProxy, 'trustProxy');
  if (rateLimit !== null && typeof rateLimit === 'object' && rateLimit.trustProxy !== undefined && rateLimit.trustProxy !== trustProxy) {
    throw new TypeError(`trustProxy (${trustProxy}) and rateLimit.trustProxy (${String(rateLimit.trustProxy)}) differ; set one.`);
  }
  return rateLimit !== null && typeof rateLimit === 'object' ? { ...rateLimit, trustProxy } : rateLimit;
}

function positiveCount(value: number, name: string): number {
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive whole number, got ${String(value)}.`);
  return value;
}

/** Whether the request asked for an execution trace (checked by traceRefusal in run()). */
function isTraced(request: { readonly params: RequestParams }): boolean {
  return request.params.extensions?.['trace'] === true;
}

/** Why `extensions.trace` cannot be honoured: not a boolean (BAD_REQUEST), or traces refused (TRACE_NOT_ALLOWED); null when it can. */
function traceRefusal(trace: unknown, allowed: boolean): OperationResult | null {
  if (typeof trace !== 'boolean') {
    return requestErrors([codedError(`"extensions.trace" must be a boolean, got ${describe(trace)}.`, GraphQLErrorCode.BadRequest)]);
  }
  if (trace && !allowed) {
    return requestErrors([codedError('Execution traces are not available on this server; send the request without "extensions.trace".', GraphQLErrorCode.TraceNotAllowed)]);
  }
  return null;
}

/** The characters of JSON a subscription's variables take (their values'; names are the operation's). */
function variablesSize(variables: Readonly<Record<string, unknown>> | null): number {
  let size = 0;
  for (const name in variables) size += jsonSize(variables[name]);
  return size;
}

/** What holdVariables answers for a subscription that keeps no variables. */
const NOTHING_HELD = (): void => undefined;

/** The subscription's outcome, with `release` called once its stream ends, or at once when it did not start. */
function releasedAtEnd(started: Promise<OperationResult | OperationStream>, release: () => void): Promise<OperationResult | OperationStream> {
  return started.then(
    (outcome) => {
      if (!('stream' in outcome)) {
        release();
        return outcome;
      }
      return { ...outcome, stream: mapAsyncIterable(outcome.stream, (result) => result, release) };
    },
    (error: unknown) => {
      release();
      throw error;
    },
  );
}

/** The variables an operation declares, from those a request sent: the others are never read. */
function declaredVariables(operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>> | null): Readonly<Record<string, unknown>> | null {
  if (variables === null) return null;
  const declared: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (Object.hasOwn(variables, name)) declared[name] = variables[name];
  }
  return declared;
}

/**
 * The key of a subscription's group among those of one operation and identity: a hash of its
 * variables' JSON (a fixed 43 characters, however large the variables). Null (no group: the
 * subscription runs on its own) when they are too deeply nested to write out.
 */
function groupKey(variables: Readonly<Record<string, unknown>> | null): string | null {
  if (variables === null) return '';
  let text: string;
  try {
    text = JSON.stringify(variables);
  } catch {
    return null;
  }
  return createHash('sha256').update(text).digest('base64url');
}

/**
 * `@skip`/`@include` left a subscription no root field: graphql-js fails taking the first one
 * apart (graphqlCompat.ts NO_ROOT_FIELD_MESSAGE: 16 throws it, 17 answers with it). The client
 * chose the variables: a request error, said plainly.
 */
function leftNoRootField(error: unknown): boolean {
  return error instanceof Error && error.message === NO_ROOT_FIELD_MESSAGE;
}

function noRootField(): GraphQLError {
  return codedError('The subscription selects no root field: its @skip and @include directives left none.', GraphQLErrorCode.BadRequest);
}

function requestErrors(errors: ReadonlyArray<GraphQLError>): OperationResult {
  return { result: { errors: [...errors] }, requestError: true };
}

function checkIntrospectionRoles(introspection: { roles: ReadonlyArray<string> }): ReadonlyArray<string> {
  const roles = introspection.roles;
  if (!Array.isArray(roles) || roles.length === 0 || roles.some((role) => typeof role !== 'string')) {
    throw new TypeError(`introspection.roles must be a non-empty list of role names, got ${describe(roles)}.`);
  }
  return roles;
}

/**
 * Whether an operation was abandoned (timeout, client gone), readable as a plain flag by the
 * executor, and as an AbortSignal by resolvers, made only if one asks for it; and who is calling.
 */
class OperationAbort implements OperationScope {
  aborted = false;
  reason: unknown = undefined;
  readonly identity: Identity;
  private controller: AbortController | null = null;

  readonly connectionParams: Readonly<Record<string, unknown>> | undefined;

  constructor(identity: Identity, connectionParams: Readonly<Record<string, unknown>> | undefined) {
    this.identity = identity;
    this.connectionParams = connectionParams;
  }

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/** The context when there is no factory: the transport's request, the caller, and the operation's signal (made when read). */
class DefaultContext<Raw> {
  readonly request: Raw;
  readonly identity: Identity;
  private readonly scope: OperationScope;

  constructor(request: Raw, scope: OperationScope) {
    this.request = request;
    this.identity = scope.identity;
    this.scope = scope;
  }

  get signal(): AbortSignal {
    return this.scope.signal;
  }
}

/**
 * Whether an operation's result is bounded and small: no list field (GitHub's node count is the
 * sum over list fields) and few fields, fragments written out. The analysis is the cost
 * analyzer's, made before execution anyway.
 */
function isSmall(analysis: Analysis | null): boolean {
  return analysis !== null && analysis.nodes === 0 && analysis.fields <= SMALL_RESULT_FIELDS;
}

/** The members of a GraphQL request (`query`, `operationName`, `variables`, `extensions`), checked for their types. */
export function readParams(payload: unknown): RequestParams | GraphQLError {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return codedError('A GraphQL request must be a JSON object with a "query".', GraphQLErrorCode.BadRequest);
  }
  const { query, operationName, variables, extensions, documentId } = payload as Record<string, unknown>;
  if (documentId !== undefined && typeof documentId !== 'string') {
    return codedError(`"documentId" must be a string, got ${describe(documentId)}.`, GraphQLErrorCode.BadRequest);
  }
  const named = documentId !== undefined || (extensions != null && typeof extensions === 'object' && (extensions as Record<string, unknown>)['persistedQuery'] != null);
  if ((query === undefined || query === null) && !named) {
    return codedError('The request has no "query"; expected the GraphQL document as a string.', GraphQLErrorCode.BadRequest);
  }
  if (query != null && typeof query !== 'string') {
    return codedError(`"query" must be a string, got ${describe(query)}.`, GraphQLErrorCode.BadRequest);
  }
  if (operationName != null && typeof operationName !== 'string') {
    return codedError(`"operationName" must be a string or null, got ${describe(operationName)}.`, GraphQLErrorCode.BadRequest);
  }
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return codedError(`"variables" must be an object or null, got ${describe(variables)}.`, GraphQLErrorCode.BadRequest);
  }
  if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) {
    return codedError(`"extensions" must be an object or null, got ${describe(extensions)}.`, GraphQLErrorCode.BadRequest);
  }
  const params: { -readonly [K in keyof RequestParams]: RequestParams[K] } = {
    query: (query as string | null | undefined) ?? null,
    operationName: (operationName as string | null | undefined) ?? null,
    variables: (variables as Record<string, unknown> | null | undefined) ?? null,
  };
  // Only present members are set: most requests have neither, and keep the smaller shape.
  if (extensions != null) params.extensions = extensions as Record<string, unknown>;
  if (documentId !== undefined) params.documentId = documentId;
  return params;
}
