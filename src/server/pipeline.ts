/**
 * The operation pipeline: what every way in (GraphQL over HTTP and Server-Sent Events, the
 * graphql-transport-ws WebSocket, the resource routes) does with a GraphQL operation, decided
 * once, in one place. A transport only translates its wire format to these calls and the
 * outcome (outcomes.ts) back. The phases, in order, each with its way out:
 *
 *   authenticate   who is calling ─ 401 / 403 insufficient_scope / 503            authenticate()
 *   admit          a trace asked for that cannot be given ─ BAD_REQUEST / TRACE_NOT_ALLOWED;
 *                  the requests budget ─ 429 RATE_LIMITED / 503 RATE_LIMIT_UNAVAILABLE      admit()
 *   document       a known request's checked operation, at once (the fast path); else which
 *                  document (its text, a persisted one, only trusted ones ─ PERSISTED_QUERY_*),
 *                  parsed within the limits, its validation's work charged ─ 429, validated,
 *                  cached by text ─ 400; a text not seen before waits for its client's turn
 *                  (preparationQueue.ts)                                                  document()
 *   operation      choose it ─ OPERATION_RESOLUTION_FAILURE; a mutation over GET ─ notAllowed;
 *                  a subscription where nothing streams ─ SUBSCRIPTION_NOT_SUPPORTED      operation()
 *   withinLimits   depth, cost, nodes, … ─ *_LIMIT_EXCEEDED; introspection by role    withinLimits()
 *   authorize      planned per set of grants ─ FORBIDDEN fields, or the whole operation
 *                  refused (onDenied: 'reject', 403)                                       authorize()
 *   admit (cost)   with a cost budget: the request and its cost in one charge ─ 429 / 503  admitCost()
 *   execute        context factory, then the executor within the timeout ─ TIMEOUT, the
 *                  signal aborted on timeout or client gone; or subscribe; or, where a
 *                  @defer/@stream applies, the incremental executor (incrementalDelivery.ts),
 *                  refused earlier where the request cannot carry its payloads ─
 *                  INCREMENTAL_DELIVERY_NOT_ACCEPTABLE                                  execute()
 *   finish         codes on every error, masking in production, the cost report            finish()
 *
 * Rate limits (ratelimit/rateLimiter.ts) are charged once per operation, in one of two places:
 * with only a requests budget, at admission, before the document is even looked at; with a
 * cost budget, once the cost is known, the request and its cost together (one round trip to a
 * shared store). An operation refused before that point (a bad document, a limit) is charged
 * as one request and one point, so that refusals are not free to send. A request counts as more
 * than one when it brings more work (Documents.chargeFor: its size, a large new document), and a
 * new document whose validation is costly is charged that work once it is parsed, before it is
 * validated (validationCharged).
 *
 * Everything between a request's text and execution depends only on that text, the caller's
 * grants and this pipeline's fixed schema, limits and rules. So a small request text seen
 * before is remembered with its members (a KnownRequest), and once its operation has passed
 * every check for a set of grants it is executed at once the next time: the document phase's
 * fast path, for clients that send the same query again and again.
 */
import { GraphQLError } from 'graphql';
import type { ExecutionResult, GraphQLSchema, OperationTypeNode } from 'graphql';
import type { Analysis } from '../analysis/analyze.ts';
import { checkLimits, DEFAULT_LIMITS } from '../analysis/limits.ts';
import type { Limits } from '../analysis/limits.ts';
import { ErrorCode, codedError, withCode } from '../errors/codes.ts';
import { executePlan } from '../execution/execute.ts';
import { OperationPlan, planOperation } from '../execution/plan.ts';
import { describe } from '../jsutils/describe.ts';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { positiveInteger } from '../jsutils/positiveInteger.ts';
import type { PromiseOrValue } from '../jsutils/promiseOrValue.ts';
import { CacheCounts } from '../observability/cacheCounts.ts';
import { ErrorCounts } from '../observability/errorCounts.ts';
import { telemetry } from '../observability/openTelemetry.ts';
import type { Telemetry } from '../observability/openTelemetry.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import type { LogEntry } from '../observability/logEntry.ts';
import { clientAddress } from '../ratelimit/clientAddress.ts';
import { RateLimiter, isRefusal, throttleStatus } from '../ratelimit/rateLimiter.ts';
import type { ClientInfo, RatePolicy, RateRefusal, RateStanding } from '../ratelimit/rateLimiter.ts';
import type { Budget } from '../ratelimit/tokenBucket.ts';
import { accessFor, hasAnyRole, operationDenials, schemaHasRules } from '../security/access.ts';
import type { GrantAccess, OperationDenials } from '../security/access.ts';
import { challengeFor } from '../security/authError.ts';
import type { AuthError } from '../security/authError.ts';
import { createAuthentication } from '../security/authenticate.ts';
import type { RequestHeaders } from '../security/authenticate.ts';
import type { Identity } from '../security/identity.ts';
import { createDocumentResolver } from '../security/trustedDocuments.ts';
import type { DocumentResolver } from '../security/trustedDocuments.ts';
import { assertUsableSchema } from '../language/graphqlCompat.ts';
import { ClientSlots } from './clientSlots.ts';
import { DEFAULT_DOCUMENT_CACHE_BYTES, Documents, isParsed } from './documents.ts';
import type { ParsedDocument, PreparedDocument } from './documents.ts';
import { PreparationQueue } from './preparationQueue.ts';
import { checkContextFactory } from './contextFactory.ts';
import { ResultFinisher } from './finishResult.ts';
import { DefaultContext, OperationAbort, OperationCancelled } from './operationScope.ts';
import type { OperationScope } from './operationScope.ts';
import { executeIncrementally } from './incrementalDelivery.ts';
import type { IncrementalOptions } from './incrementalDelivery.ts';
import { rateLimited, requestErrors, withStanding } from './outcomes.ts';
import type { NotAllowed, OperationIncremental, OperationOutcome, OperationResult, OperationStream, RateLimited, SubsequentPayload } from './outcomes.ts';
import { introspectionRolesOf, onDeniedOf, rateLimitOptions, trustProxyOf } from './pipelineOptions.ts';
import type { PipelineOptions } from './pipelineOptions.ts';
import { ReadyOperation } from './readyOperation.ts';
import { isTraced, readJsonBody } from './request.ts';
import type { KnownRequest, OperationRequest, RequestParams } from './request.ts';
import { SubscriptionGroups } from './sharedSubscriptions.ts';
import { SubscriptionStarter } from './subscriptionStart.ts';

export type { LogEntry, OperationScope, PipelineOptions };
export type { IncrementalFormat, KnownRequest, OperationRequest, RequestParams } from './request.ts';
export { SMALL_REQUEST, readParams } from './request.ts';
export type {
  InitialPayload,
  NotAllowed,
  OperationIncremental,
  OperationOutcome,
  OperationResult,
  OperationStream,
  RateLimited,
  SubsequentPayload,
} from './outcomes.ts';
export { incrementalPayloads } from './incrementalDelivery.ts';
export { DEFAULT_DOCUMENT_CACHE_BYTES };
/** The public name of PromiseOrValue in this package's API before 0.2. */
export type MaybePromise<T> = PromiseOrValue<T>;

export interface OperationPipeline<Raw = unknown> {
  readonly schema: GraphQLSchema;
  readonly limits: Limits;
  readonly production: boolean;
  /** The rate limiter, when `rateLimit` is set. */
  readonly rateLimiter: RateLimiter | null;
  /** Who is calling, from the request's headers (or what a transport gives as such). */
  authenticate(headers: RequestHeaders): PromiseOrValue<Identity | AuthError>;
  /** The `WWW-Authenticate` value for an authentication failure (null for a 503). */
  challenge(error: AuthError): string | null;
  /**
   * A JSON request body, read once per small text: its members as a known request (with, once
   * its operation has passed every check, that operation: see the document phase), a batch's
   * items, or why it is no GraphQL request.
   */
  readBody(body: string | null): KnownRequest | unknown[] | GraphQLError;
  /** Runs one operation: every phase after authentication. */
  run(request: OperationRequest<Raw>, known?: KnownRequest): PromiseOrValue<OperationOutcome>;
  /**
   * The error to send when a subscription's stream fails (its source threw, or overflowed): a
   * GraphQLError as it is, coded; anything else is a fault, masked in production and logged.
   */
  readonly streamError: (error: unknown) => GraphQLError;
  /** Releases what the rate limiter's and persisted queries' stores hold (timers, Redis connections). */
  close(): Promise<void>;
  /** Where work that could hold the event loop waits for its client's turn (new documents, large bodies). */
  readonly preparation: PreparationQueue;
  /** The key a client's connections are counted under: its address, as the rate limiter keys an anonymous caller. */
  addressOf(client: ClientInfo): string;
  /**
   * Charges one request that a transport refuses before any operation runs, so that refusals are
   * no free way to spend the server's time: a credential that fails (charged to the client's
   * address, as an anonymous caller: who sent it is not known), or a resource route's failed
   * If-Match (the read it ran). The refusal when the budget is spent (answer 429 instead); null
   * when charged, or when there are no rate limits.
   */
  charge(identity: Identity, client: ClientInfo): PromiseOrValue<RateRefusal | null>;
  /** Hits and misses of the document and persisted-query caches, for metrics. */
  readonly cacheCounts: CacheCounts;
  /**
   * The errors its operations returned, by code, counted where they are made (results,
   * incremental payloads, subscription events, refusals), whatever the transport: for metrics.
   */
  readonly errorCounts: ErrorCounts;
  /** Where the pipeline's errors go (its `log` option): transports log their own faults there too. */
  readonly log: (entry: LogEntry) => void;
  /** The stores' readiness (a Redis rate-limit or persisted-query store), for readiness probes. */
  readonly readiness: ReadonlyArray<ReadinessCheck>;
}

export function createPipeline<Raw = unknown>(options: PipelineOptions<Raw>): OperationPipeline<Raw> {
  return new Pipeline(options);
}

/**
 * An operation with no list field and at most this many fields (fragments written out) has a
 * result small enough that generated code writes it faster than the native JSON.stringify.
 */
const SMALL_RESULT_FIELDS = 32;

const NO_CLIENT: ClientInfo = {};

/**
 * What the document, operation, limits and authorize phases come to: ready to execute, or
 * refused (RateLimited: the client's budget could not pay for validating its new document).
 */
type Check = ReadyOperation | OperationResult | NotAllowed | RateLimited;

/** A Check, or one whose validation was charged on the way. */
type Checked = Check | ValidationCharged;

/** A check whose new document's validation was charged after the request's admission: that charge's standing is the one to report. */
interface ValidationCharged {
  readonly kind: 'validationCharged';
  readonly checked: Check;
  readonly rate: RateStanding;
}

/** What the limits phase lets through: the cost analysis, and whether the operation introspects. */
interface WithinLimits {
  readonly analysis: Analysis | null;
  readonly introspects: boolean;
}

class Pipeline<Raw> implements OperationPipeline<Raw> {
  readonly schema: GraphQLSchema;
  readonly limits: Limits;
  readonly production: boolean;
  readonly rateLimiter: RateLimiter | null;
  readonly cacheCounts = new CacheCounts();
  readonly errorCounts = new ErrorCounts();
  readonly log: (entry: LogEntry) => void;
  readonly readiness: ReadonlyArray<ReadinessCheck>;
  readonly streamError: (error: unknown) => GraphQLError;
  /** Who is calling: the authentication's own function (security/authenticate.ts), called directly. */
  readonly authenticate: (headers: RequestHeaders) => PromiseOrValue<Identity | AuthError>;

  private readonly authentication: ReturnType<typeof createAuthentication>;
  private readonly realm: string;
  /** `introspection: { roles }`: the roles that may introspect (null: everyone or no one, decided at validation). */
  private readonly introspectionRoles: ReadonlyArray<string> | null;
  private readonly traceAllowed: boolean;
  /** How many proxies' X-Forwarded-For entries to trust. */
  private readonly trustProxy: number;
  /** Persisted queries and trusted documents: which document a request names. */
  private readonly resolver: DocumentResolver;
  private readonly documents: Documents;
  /**
   * New texts are prepared in turns, a client at a time, so that they cannot hold the event loop
   * together (the Node adapter queues large bodies here too).
   */
  readonly preparation = new PreparationQueue();
  /** Whether the schema has access rules: without, every operation is planned once, for everyone. */
  private readonly checksAccess: boolean;
  private readonly onDenied: 'null' | 'reject';
  /** Operation refusals under onDenied: 'reject', per plan (a plan is made for one set of grants). */
  private readonly denials = new WeakMap<OperationPlan, OperationDenials>();
  /** Whether executions measure their actual cost (the cost report, and refunds of a cost budget). */
  private readonly reportCost: boolean;
  private readonly timeoutMs: number;
  private readonly context: ((request: Raw, scope: OperationScope) => unknown) | undefined;
  private readonly finisher: ResultFinisher;
  private readonly subscriptions: SubscriptionStarter<Raw>;
  private readonly incremental: IncrementalOptions;
  /** `openTelemetry.document`: whether an operation's span carries its text. */
  private readonly tracesDocument: boolean;
  /** `openTelemetry.resolvers`: whether an operation's resolver calls get spans. */
  private readonly tracesResolvers: boolean;
  /** Operations running with their OpenTelemetry span (runTraced), until their outcome settles. */
  private tracedInFlight = 0;

  constructor(options: PipelineOptions<Raw>) {
    assertUsableSchema(options.schema, 'graphql-glassbox');
    this.schema = options.schema;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.production = options.production ?? process.env.NODE_ENV === 'production';
    const introspection = options.introspection ?? !this.production;
    this.introspectionRoles = introspectionRolesOf(introspection);
    this.traceAllowed = options.trace ?? !this.production;
    this.tracesDocument = options.openTelemetry?.document === true;
    this.tracesResolvers = options.openTelemetry?.resolvers === true;
    this.trustProxy = trustProxyOf(options);
    this.rateLimiter = options.rateLimit === undefined ? null : new RateLimiter(rateLimitOptions(options), this.schema);
    // Refunds need the actual cost, and a cost budget is reported where it is spent.
    this.reportCost = (options.reportCost ?? true) || this.rateLimiter?.hasCostBudget === true;
    this.resolver = createDocumentResolver(options.persistedQueries, options.trustedDocuments, this.cacheCounts);
    this.timeoutMs = options.executionTimeoutMs ?? 10_000;
    this.onDenied = onDeniedOf(options);
    this.realm = options.realm ?? 'graphql';
    this.log = options.log ?? ((entry: LogEntry) => console.error(entry.message, entry.requestId ?? '', entry.error ?? ''));
    this.documents = new Documents({
      schema: this.schema,
      limits: this.limits,
      noIntrospection: introspection === false,
      hideSuggestions: this.production,
      cacheCounts: this.cacheCounts,
      entries: options.documentCacheSize ?? 1000,
      maxBytes: options.documentCacheBytes ?? DEFAULT_DOCUMENT_CACHE_BYTES,
      validationThread: options.validationThread,
    });
    this.authentication = createAuthentication(options);
    this.authenticate = this.authentication.authenticate;
    this.checksAccess = schemaHasRules(this.schema);
    checkContextFactory(options.context);
    this.context = options.context;
    this.finisher = new ResultFinisher(this.production, this.reportCost, this.limits, this.log, this.errorCounts);
    this.streamError = (error) => this.finisher.streamError(error);
    this.incremental = { finisher: this.finisher, timeoutMs: this.timeoutMs, measureCost: this.reportCost, hideSuggestions: this.production };
    this.subscriptions = new SubscriptionStarter<Raw>({
      groups: options.shareSubscriptions === false ? null : new SubscriptionGroups(positiveInteger(options.subscriptionBufferSize ?? 1000, 'subscriptionBufferSize')),
      variableBytes: new ClientSlots(positiveInteger(options.maxSubscriptionBytesPerClient ?? 16 * 1024 * 1024, 'maxSubscriptionBytesPerClient')),
      finisher: this.finisher,
      contextFor: (request, scope) => this.contextFor(request, scope),
      clientOf: (request) => this.clientOf(request.identity, request.client),
      measureCost: this.reportCost,
      hideSuggestions: this.production,
    });
    this.readiness = [this.rateLimiter?.store.readiness, this.resolver.readiness].filter((check): check is ReadinessCheck => check !== undefined);
    this.checkManifest();
  }

  /** Every trusted document must parse and validate: a manifest that does not is a start-up error. */
  private checkManifest(): void {
    for (const [id, text] of this.resolver.manifest ?? []) {
      const prepared = this.documents.prepare(text);
      if (prepared.document === null) {
        throw new TypeError(`trustedDocuments.manifest: the document ${id} is not valid against the schema: ${prepared.errors.map((error) => error.message).join(' ')}`);
      }
    }
  }

  // ── authenticate ────────────────────────────────────────────────────────────────────────────

  challenge(error: AuthError): string | null {
    return challengeFor(error, this.authentication.schemes, this.realm);
  }

  readBody(body: string | null): KnownRequest | unknown[] | GraphQLError {
    // Clients send the same small bodies again and again: their members are read once.
    const known = body === null ? undefined : this.documents.known(body);
    if (known !== undefined) return known;
    const read = readJsonBody(body);
    if (Array.isArray(read) || read instanceof GraphQLError) return read;
    return this.documents.remember(body as string, read) ?? { params: read, ready: null };
  }

  /** Runs one operation: the phases after authentication, in order; the errors it returns are counted. */
  run(request: OperationRequest<Raw>, known?: KnownRequest): PromiseOrValue<OperationOutcome> {
    const otel = request.untraced === true ? null : telemetry();
    if (otel !== null) return this.runTraced(otel, request, known);
    const outcome = this.phases(request, known);
    return outcome instanceof Promise ? outcome.then(this.counted) : this.counted(outcome);
  }

  /** An operation's outcome, its errors counted by code (a stream's events are counted as they come: finishResult.ts). */
  private readonly counted = (outcome: OperationOutcome): OperationOutcome => {
    switch (outcome.kind) {
      case 'result':
        this.errorCounts.addErrors(outcome.result.errors);
        break;
      case 'incremental':
        this.errorCounts.addErrors(outcome.initial.errors);
        break;
      case 'rateLimited':
        this.errorCounts.add(outcome.refusal.code);
        break;
      case 'notAllowed':
        this.errorCounts.add(ErrorCode.MethodNotAllowed);
        break;
      default:
        break;
    }
    return outcome;
  };

  /**
   * run(), with the operation's OpenTelemetry span active while its phases run
   * (observability/openTelemetry.ts): what the operation's phases name it by (chosen()), and
   * what batches and a resolver's own spans find as their parent.
   */
  private runTraced(otel: Telemetry, request: OperationRequest<Raw>, known: KnownRequest | undefined): PromiseOrValue<OperationOutcome> {
    const span = request.upgradeHeaders === undefined ? otel.operationSpan(this.tracesResolvers) : otel.socketOperationSpan(this.tracesResolvers, request.upgradeHeaders);
    const ended = (settled: OperationOutcome): OperationOutcome => {
      this.tracedInFlight--;
      return otel.operationEnded(span, this.counted(settled));
    };
    const failed = (error: unknown): never => {
      this.tracedInFlight--;
      otel.operationFailed(span, error);
      throw error;
    };
    let outcome: PromiseOrValue<OperationOutcome>;
    this.tracedInFlight++;
    try {
      outcome = otel.within(span, () => this.phases(request, known));
    } catch (error) {
      return failed(error);
    }
    return outcome instanceof Promise ? outcome.then(ended, failed) : ended(outcome);
  }

  /**
   * The operation chosen: told to the request (its log line, metrics) and, when traced, to its
   * span, the active one while the operation's phases run (runTraced).
   */
  private chosen(request: OperationRequest<Raw>, kind: OperationTypeNode, name: string | undefined): void {
    request.chosen?.(kind, name);
    // Only an operation run by runTraced has a span to name.
    if (this.tracedInFlight > 0) telemetry()?.operationChosen(kind, name, this.tracesDocument ? request.params.query : null);
  }

  private phases(request: OperationRequest<Raw>, known: KnownRequest | undefined): PromiseOrValue<OperationOutcome> {
    const refused = this.traceRefusal(request.params);
    if (refused !== null) return refused;
    const limiter = this.rateLimiter;
    if (limiter !== null && request.uncharged !== true) return this.admit(limiter, request, known);
    const checked = this.document(request, known);
    if (checked instanceof Promise) return checked.then((settled) => this.executeChecked(settled, request, undefined));
    return this.executeChecked(checked, request, undefined);
  }

  // ── admit ───────────────────────────────────────────────────────────────────────────────────

  /**
   * A trace asked for (or a malformed ask) that cannot be honoured is answered first, like a
   * malformed request: uncharged. `extensions.trace` must be a boolean (BAD_REQUEST), and traces
   * allowed (TRACE_NOT_ALLOWED).
   */
  private traceRefusal(params: RequestParams): OperationResult | null {
    const trace = params.extensions?.['trace'];
    if (trace === undefined) return null;
    if (typeof trace !== 'boolean') {
      return requestErrors([codedError(`"extensions.trace" must be a boolean, got ${describe(trace)}.`, ErrorCode.BadRequest)]);
    }
    if (trace && !this.traceAllowed) {
      return requestErrors([codedError('Execution traces are not available on this server; send the request without "extensions.trace".', ErrorCode.TraceNotAllowed)]);
    }
    return null;
  }

  /**
   * Within the rate limits. With only a requests budget, the request is charged before anything
   * else is done for it; with a cost budget, once the cost is known (admitCost).
   */
  private admit(limiter: RateLimiter, request: OperationRequest<Raw>, known: KnownRequest | undefined): PromiseOrValue<OperationOutcome> {
    const policy = limiter.policyFor(request.identity);
    const key = limiter.keyFor(request.identity, request.client ?? NO_CLIENT);
    if (policy.cost !== null) return after(this.document(request, known), (checked) => this.admitCost(request, checked, limiter, policy, key));
    const admission = limiter.admit(policy, key, 0, this.documents.chargeFor(request.params.query, request.size));
    if (admission instanceof Promise) {
      return admission.then((settled) => (isRefusal(settled) ? rateLimited(settled) : this.checkAndExecute(request, known, settled)));
    }
    return isRefusal(admission) ? rateLimited(admission) : this.checkAndExecute(request, known, admission);
  }

  /** The phases from document to authorize, then execute (`rate`: the caller's standing, already charged, to report). */
  private checkAndExecute(request: OperationRequest<Raw>, known: KnownRequest | undefined, rate: RateStanding | undefined): PromiseOrValue<OperationOutcome> {
    const checked = this.document(request, known);
    if (checked instanceof Promise) return checked.then((settled) => this.executeChecked(settled, request, rate));
    return this.executeChecked(checked, request, rate);
  }

  private executeChecked(checked: Checked, request: OperationRequest<Raw>, rate: RateStanding | undefined): PromiseOrValue<OperationOutcome> {
    if (checked.kind === 'ready') return this.execute(checked, request, rate);
    if (checked.kind === 'validationCharged') return this.executeChecked(checked.checked, request, checked.rate);
    return rate === undefined ? checked : withStanding(checked, rate);
  }

  // ── document ────────────────────────────────────────────────────────────────────────────────

  /**
   * The request's document: for a known request whose operation passed every check for the
   * caller's grants, that operation at once (the fast path); else the document it names (its
   * text, a persisted query, a trusted document), then the phases that check it.
   */
  private document(request: OperationRequest<Raw>, known: KnownRequest | undefined): PromiseOrValue<Checked> {
    const ready = known?.ready;
    if (ready != null && this.mayRunAsChecked(ready, request)) return ready;
    const text = this.resolver.resolve(request.params);
    if (text instanceof Promise) return text.then((settled) => (typeof settled === 'string' ? this.checkInTurn(request, known, settled) : requestErrors([settled])));
    return typeof text === 'string' ? this.checkInTurn(request, known, text) : requestErrors([text]);
  }

  /**
   * A text prepared before is checked at once; a new one at once or in its client's turn
   * (preparationQueue.ts): parsed, its validation charged (validationCharged), validated, here or
   * in the worker thread, then checked.
   */
  private checkInTurn(request: OperationRequest<Raw>, known: KnownRequest | undefined, query: string): PromiseOrValue<Checked> {
    const kept = this.documents.kept(query);
    if (kept !== undefined) return this.check(request, known, query, kept);
    const client = () => this.clientOf(request.identity, request.client);
    return this.preparation.runOrQueue(client, () => {
      // By its turn another client's request may have prepared the same text: looked up again.
      const found = this.documents.keptOrParsed(query);
      if (!isParsed(found)) return this.check(request, known, query, found);
      return after(this.validationCharged(request, found), (charge) => {
        if (charge === null) return this.validateAndCheck(request, known, found, client);
        if (isRefusal(charge)) return rateLimited(charge);
        return after(this.validateAndCheck(request, known, found, client), (checked): ValidationCharged => ({ kind: 'validationCharged', checked, rate: charge }));
      });
    });
  }

  /**
   * A new document's validation, charged before it is done when it is more than a request's
   * worth of work (ParsedDocument.validationCharge, from the pairs the overlapping-fields rule
   * will compare), to the requests budget: the admission (a refusal when the client's budget
   * cannot pay), or null when nothing was charged.
   */
  private validationCharged(request: OperationRequest<Raw>, parsed: ParsedDocument): PromiseOrValue<RateStanding | RateRefusal | null> {
    const limiter = this.rateLimiter;
    if (parsed.validationCharge === 0 || limiter === null || request.uncharged === true) return null;
    const key = limiter.keyFor(request.identity, request.client ?? NO_CLIENT);
    return limiter.admitRequests(limiter.policyFor(request.identity), key, parsed.validationCharge);
  }

  /** A parsed text validated, then checked; validated in the worker thread, finished here in the client's next turn. */
  private validateAndCheck(request: OperationRequest<Raw>, known: KnownRequest | undefined, parsed: ParsedDocument, client: () => string): PromiseOrValue<Check> {
    const prepared = this.documents.validateNew(parsed, client);
    if (!(prepared instanceof Promise)) return this.check(request, known, parsed.query, prepared);
    return prepared.then((finish) => this.preparation.runOrQueue(client, () => this.check(request, known, parsed.query, finish())));
  }

  /** Whether an operation checked before for a request with the same text may run for this one as it is. */
  private mayRunAsChecked(ready: ReadyOperation, request: OperationRequest<Raw>): boolean {
    const { identity } = request;
    if (ready.access !== (this.checksAccess ? accessFor(this.schema, identity) : null)) return false;
    if (ready.operationType === 'mutation' ? request.readOnly : ready.operationType === 'subscription' && request.streams !== true) return false;
    if (ready.defers && request.incremental === undefined) return false;
    if (ready.introspects && !this.mayIntrospect(identity)) return false;
    const { params } = request;
    // A persisted query's registration (hash and query) seen before: registered again, in case
    // the store has let it go since (its text and hash were checked the first time).
    if (params.extensions != null && params.query !== null) this.resolver.accept?.(params, params.query, this.clientOf(identity, request.client));
    this.cacheCounts.documentHits++;
    // A persisted query named by its hash alone, known (an allowlist's ids are no cache).
    if (params.query === null && this.resolver.manifest === null) this.cacheCounts.apqHits++;
    this.chosen(request, ready.operationType, ready.plan.operation.name?.value);
    return true;
  }

  /** The phases that check a document (its text, prepared) for one request, in order; `known` then remembers the operation as checked. */
  private check(request: OperationRequest<Raw>, known: KnownRequest | undefined, query: string, prepared: PreparedDocument): Check {
    const { params } = request;
    if (prepared.document === null) return requestErrors(prepared.errors);
    if (params.extensions != null) this.resolver.accept?.(params, query, this.clientOf(request.identity, request.client));
    const chosen = this.operation(request, prepared);
    if (!(chosen instanceof OperationPlan)) return chosen;
    const limited = this.withinLimits(request, prepared, chosen);
    if ('kind' in limited) return limited;
    // An operation whose @defer or @stream applies, given its variables, needs a transport that carries its payloads.
    if (request.incremental === undefined && defers(chosen, limited.analysis)) return incrementalNotAcceptable();
    const ready = this.authorize(request, chosen, limited);
    if (known !== undefined && ready.kind === 'ready') known.ready = ready;
    return ready;
  }

  // ── operation ───────────────────────────────────────────────────────────────────────────────

  /** The operation the request names (the spec's GetOperation), and whether this request may carry it. */
  private operation(request: OperationRequest<Raw>, prepared: PreparedDocument): OperationPlan | OperationResult | NotAllowed {
    // The executor's own plan cache chooses the operation (and keeps the choice for execute()).
    const chosen = planOperation(this.schema, prepared.document!, request.params.operationName);
    if (!(chosen instanceof OperationPlan)) {
      return requestErrors(chosen.map((error) => withCode(error, ErrorCode.OperationResolutionFailure)));
    }
    const kind = chosen.operation.operation;
    this.chosen(request, kind, chosen.operation.name?.value);
    if (request.readOnly && kind === 'mutation') return { kind: 'notAllowed', operation: kind };
    if (kind === 'subscription' && request.streams !== true) {
      return requestErrors([
        codedError(
          'A subscription needs a transport that streams results: a WebSocket (graphql-transport-ws) or Server-Sent Events (Accept: text/event-stream).',
          ErrorCode.SubscriptionOverHttp,
        ),
      ]);
    }
    return chosen;
  }

  // ── withinLimits ────────────────────────────────────────────────────────────────────────────

  /** Depth, cost, nodes and the other limits; then introspection, when only some roles may. */
  private withinLimits(request: OperationRequest<Raw>, prepared: PreparedDocument, chosen: OperationPlan): WithinLimits | OperationResult {
    const checked = this.limitsChecked(prepared, chosen, request.params);
    if (checked.errors.length > 0) return requestErrors(checked.errors);
    const introspects = this.introspectionRoles !== null && this.documents.introspectionErrors(prepared).length > 0;
    if (introspects && !this.mayIntrospect(request.identity)) return requestErrors(this.documents.introspectionErrors(prepared));
    return { analysis: checked.analysis, introspects };
  }

  /** The limits' verdict, kept with the document when nothing in it depends on variables. */
  private limitsChecked(prepared: PreparedDocument, chosen: OperationPlan, params: RequestParams) {
    const cacheable = (chosen.operation.variableDefinitions?.length ?? 0) === 0;
    if (cacheable) {
      const known = prepared.checked.get(params.operationName);
      if (known !== undefined) return known;
    }
    // Introspection is allowed or refused by its own setting; where allowed, an IDE's schema
    // query must fit the cost limit with the default list sizes, so it is not costed. Its depth
    // and nodes still count: a schema query nested to blow up is still stopped.
    const checked = checkLimits({
      schema: this.schema,
      document: prepared.document!,
      operationName: params.operationName,
      variableValues: params.variables,
      limits: this.limits,
      introspection: 'uncosted',
    });
    if (cacheable) prepared.checked.set(params.operationName, checked);
    return checked;
  }

  private mayIntrospect(identity: Identity): boolean {
    return this.introspectionRoles === null || hasAnyRole(this.schema, identity, this.introspectionRoles);
  }

  // ── authorize ───────────────────────────────────────────────────────────────────────────────

  /**
   * The operation planned for the caller's grants (security/access.ts): a field the caller may
   * not use resolves to null with FORBIDDEN, or under onDenied: 'reject' refuses the operation.
   */
  private authorize(request: OperationRequest<Raw>, chosen: OperationPlan, limited: WithinLimits): ReadyOperation | OperationResult {
    const access: GrantAccess | null = this.checksAccess ? accessFor(this.schema, request.identity) : null;
    const plan = chosen.forAccess(access);
    if (this.onDenied === 'reject' && access !== null) {
      let denied = this.denials.get(plan);
      if (denied === undefined) {
        denied = operationDenials(this.schema, plan.operation, plan.fragments, access);
        this.denials.set(plan, denied);
      }
      if (denied.errors.length > 0) return { kind: 'result', result: { errors: [...denied.errors] }, requestError: true, denied };
    }
    const { analysis, introspects } = limited;
    const root = isSmall(analysis) ? plan.root : null;
    return new ReadyOperation(plan, access, chosen.operation.operation, introspects, analysis, root, defers(chosen, analysis));
  }

  // ── admit (cost) ────────────────────────────────────────────────────────────────────────────

  /**
   * A cost budget: the request and its requested cost (at least 1) are charged together once
   * the cost is known; after execution what was not spent is given back, and the result says
   * where the budget stands (`extensions.cost.throttleStatus`).
   */
  private admitCost(request: OperationRequest<Raw>, checked: Checked, limiter: RateLimiter, policy: RatePolicy, key: string): PromiseOrValue<OperationOutcome> {
    // Its validation was more than the budget could pay: refused, charged nothing more.
    if (checked.kind === 'rateLimited') return checked;
    // Its validation was charged: the charge below, of the request and its cost, reports the later standing.
    if (checked.kind === 'validationCharged') return this.admitCost(request, checked.checked, limiter, policy, key);
    const budget = policy.cost as Budget;
    let refused: OperationResult | NotAllowed | null = checked.kind === 'ready' ? null : checked;
    const requested = checked.kind === 'ready' ? Math.max(checked.analysis?.cost ?? 0, 1) : 1;
    if (requested > budget.limit) {
      // It could never be served, whatever the client waited: a request error, not a 429.
      refused = requestErrors([
        codedError(`Query cost ${requested} exceeds the rate-limit budget of ${budget.limit} points per ${budget.windowMs / 1000} s.`, ErrorCode.CostLimitExceeded, {
          measured: requested,
          limit: budget.limit,
        }),
      ]);
    }
    const charged = refused === null ? requested : 1;
    return after(limiter.admit(policy, key, charged, this.documents.chargeFor(request.params.query, request.size)), (admission): PromiseOrValue<OperationOutcome> => {
      if (isRefusal(admission)) return rateLimited(admission);
      if (refused !== null) return withStanding(refused, admission);
      return after(this.execute(checked as ReadyOperation, request, undefined), (outcome) => this.refund(outcome, limiter, admission, key, charged));
    });
  }

  /** What the execution did not spend of the cost charged, given back; the result says where the budget stands. */
  private refund(outcome: OperationResult | OperationStream | OperationIncremental, limiter: RateLimiter, admission: RateStanding, key: string, charged: number): OperationOutcome {
    if (outcome.kind === 'incremental') {
      // The actual cost is known with the last payload (its cost report), the refund then.
      return { ...outcome, subsequent: refundedWithLastPayload(outcome.subsequent, (extensions) => refundedCost(extensions, limiter, admission, key, charged).extensions), rate: admission };
    }
    if (outcome.kind !== 'result') return withStanding(outcome, admission);
    const { extensions, standing } = refundedCost(outcome.result.extensions, limiter, admission, key, charged);
    return { ...outcome, result: extensions === outcome.result.extensions ? outcome.result : { ...outcome.result, extensions }, rate: standing };
  }

  // ── execute ─────────────────────────────────────────────────────────────────────────────────

  /** Makes the operation's context, then executes it (or subscribes: shared, see sharedSubscriptions.ts). */
  private execute(ready: ReadyOperation, request: OperationRequest<Raw>, rate: RateStanding | undefined): PromiseOrValue<OperationResult | OperationStream | OperationIncremental> {
    if (ready.operationType === 'subscription') {
      const started = this.subscriptions.start(ready, request);
      return rate === undefined || !(started instanceof Promise) ? started : started.then((outcome) => withStanding(outcome, rate));
    }
    const abort = new OperationAbort(request.identity, request.connectionParams);
    const contextValue = this.contextFor(request, abort);
    if (isPromiseLike(contextValue)) {
      return Promise.resolve(contextValue).then((resolved) => this.executeWithinTimeout(ready, request, abort, resolved, rate));
    }
    return this.executeWithinTimeout(ready, request, abort, contextValue, rate);
  }

  private contextFor(request: OperationRequest<Raw>, scope: OperationAbort): unknown {
    return this.context ? this.context(request.raw, scope) : new DefaultContext(request.raw, scope);
  }

  /** Runs a checked operation; a synchronous execution is answered at once, an asynchronous one within the timeout. */
  private executeWithinTimeout(
    ready: ReadyOperation,
    request: OperationRequest<Raw>,
    abort: OperationAbort,
    contextValue: unknown,
    rate: RateStanding | undefined,
  ): PromiseOrValue<OperationResult | OperationIncremental> {
    if (ready.defers) return executeIncrementally(this.incremental, ready, request, abort, contextValue, rate, (result) => this.finish(result, ready, request, null, rate));
    const trace = isTraced(request.params);
    const executed = executePlan(ready.plan, {
      variableValues: request.params.variables,
      contextValue,
      measureCost: this.reportCost,
      signal: abort,
      hideSuggestions: this.production,
      trace,
    });
    // A traced result is written by JSON.stringify: the generated writers are for small results.
    const writer = trace ? null : ready.writer;
    if (!(executed instanceof Promise)) return this.finish(executed, ready, request, writer, rate);
    request.onClientGone?.(() => abort.abort(new OperationCancelled('The client closed the connection.')));
    const timeoutMs = this.timeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<null>((resolve) => {
      timer = setTimeout(resolve, timeoutMs, null);
    });
    return Promise.race([executed, timedOut]).then((result): OperationResult => {
      clearTimeout(timer);
      if (result !== null) return this.finish(result, ready, request, writer, rate);
      abort.abort(new OperationCancelled(`Execution timed out after ${timeoutMs} ms.`));
      const error = codedError(`Execution timed out after ${timeoutMs} ms.`, ErrorCode.Timeout);
      return { kind: 'result', result: { errors: [error], data: null }, requestError: false, rate };
    });
  }

  // ── finish ──────────────────────────────────────────────────────────────────────────────────

  /** The executor's result, finished (finishResult.ts: codes, masking, the cost report). */
  private finish(result: ExecutionResult, ready: ReadyOperation, request: OperationRequest<Raw>, writer: ReadyOperation['writer'], rate: RateStanding | undefined): OperationResult {
    // The request's id is for its errors' log lines: made only when there are errors.
    const requestId = result.errors === undefined ? undefined : request.requestId;
    return { kind: 'result', result: this.finisher.finish(result, ready.analysis, requestId), requestError: !('data' in result), writer, rate };
  }

  // ── what transports share ───────────────────────────────────────────────────────────────────

  charge(identity: Identity, client: ClientInfo): PromiseOrValue<RateRefusal | null> {
    const limiter = this.rateLimiter;
    if (limiter === null) return null;
    const admission = limiter.admit(limiter.policyFor(identity), limiter.keyFor(identity, client), 0);
    if (admission instanceof Promise) return admission.then((settled) => (isRefusal(settled) ? settled : null));
    return isRefusal(admission) ? admission : null;
  }

  addressOf(client: ClientInfo | undefined): string {
    return `ip:${clientAddress(client?.remoteAddress, client?.forwardedFor, this.trustProxy, 56) ?? 'unknown'}`;
  }

  /**
   * Who a request counts as, for bounds per client: its identity, or for an anonymous caller its
   * address (as the rate limiter keys it, with trustProxy hops trusted).
   */
  private clientOf(identity: Identity, client: ClientInfo | undefined): string {
    if (identity.kind !== 'anonymous') return `${identity.kind}:${identity.id}`;
    return this.addressOf(client);
  }

  close(): Promise<void> {
    return Promise.all([this.rateLimiter?.close(), this.resolver.close(), this.documents.close()]).then(() => undefined);
  }
}

/** A value now or later, then `next` of it: synchronous as long as the value is. */
function after<T, U>(value: PromiseOrValue<T>, next: (settled: T) => PromiseOrValue<U>): PromiseOrValue<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Whether an operation's result is bounded and small: no list field (GitHub's node count is the
 * sum over list fields) and few fields, fragments written out. The analysis is the cost
 * analyzer's, made before execution anyway.
 */
function isSmall(analysis: Analysis | null): boolean {
  return analysis !== null && analysis.nodes === 0 && analysis.fields <= SMALL_RESULT_FIELDS;
}

/**
 * Whether a @defer or @stream of the operation applies, given the request's variables: the
 * document writes one (the plan knows), and the analysis counts one whose `if` is not false.
 */
function defers(chosen: OperationPlan, analysis: Analysis | null): boolean {
  return chosen.incremental && analysis !== null && analysis.incremental > 0;
}

/**
 * An operation whose @defer or @stream applies, on a request that cannot carry incremental
 * payloads. Only an HTTP request can be one (Server-Sent Events and WebSockets carry them, and
 * resource routes that defer are refused at start), so the message says what to send over HTTP.
 */
function incrementalNotAcceptable(): OperationResult {
  return requestErrors([
    codedError(
      'This operation defers or streams part of its result (@defer, @stream): send it on its own, not in a batch, with the header "Accept: multipart/mixed; incrementalSpec=v0.2" (or "multipart/mixed; deferSpec=20220824" for the 2022 format).',
      ErrorCode.IncrementalNotAcceptable,
    ),
  ]);
}

/**
 * Gives back what an execution did not spend of the cost charged for it (its cost report's
 * `actual`, at least 1), and says in the report where the budget then stands (`throttleStatus`).
 * Extensions without an actual cost are returned as they are, with the admission's standing.
 */
function refundedCost(
  extensions: Record<string, unknown> | undefined,
  limiter: RateLimiter,
  admission: RateStanding,
  key: string,
  charged: number,
): { extensions: Record<string, unknown> | undefined; standing: RateStanding } {
  const cost = extensions?.['cost'] as { actual?: number } | undefined;
  if (cost?.actual === undefined) return { extensions, standing: admission };
  const standing = limiter.refund(admission, key, charged - Math.max(cost.actual, 1));
  const status = throttleStatus(standing);
  return { extensions: status === null ? extensions : { ...extensions, cost: { ...cost, throttleStatus: status } }, standing };
}

/** The payloads as they come, the last one's extensions passed through `finish` (incremental delivery's refund). */
async function* refundedWithLastPayload(
  payloads: AsyncGenerator<SubsequentPayload, void, void>,
  finish: (extensions: Record<string, unknown> | undefined) => Record<string, unknown> | undefined,
): AsyncGenerator<SubsequentPayload, void, void> {
  for await (const payload of payloads) {
    if (payload.hasNext) {
      yield payload;
      continue;
    }
    const extensions = finish(payload.extensions);
    yield extensions === payload.extensions ? payload : { ...payload, extensions };
  }
}
