/**
 * GraphQL over HTTP, without the HTTP: a plain request in, `[body, init]` out.
 *
 * The protocol logic knows nothing of `node:http` (server.ts only converts), and nothing of
 * documents, authorization or execution either: those are the operation pipeline's
 * (server/pipeline.ts), which every transport shares. What is HTTP's is here, in this order:
 *
 *   route (router.ts): operational routes, resource routes, CORS preflight ─ 204, GraphiQL, 404
 *   method ─ 405     CSRF prevention ─ 400     Accept ─ 406     Content-Type ─ 415
 *   authenticate (the pipeline) ─ 401 / 403 / 503 with WWW-Authenticate
 *   read the request: JSON body or query string ─ 400 BAD_REQUEST; batch size ─ 400 BATCH_LIMIT_EXCEEDED
 *            (each refusal so far, 503 aside, is charged to the client's address: 429 once its
 *            budget is spent, held as RateLimitOptions.holdRefusalsMs says)
 *   for each operation: the pipeline's phases (a mutation over GET ─ 405; over the rate limit ─
 *            429 with Retry-After, or 503 when the limiter's store is away; a batch's item
 *            refused gets RATE_LIMITED in its place)
 *   respond: application/graphql-response+json (400 when there is no data, 403 when the
 *            operation was refused for its fields) or application/json (200), ETag and 304
 *            for GET, RateLimit-Policy and RateLimit when limits are on, CORS headers for listed
 *            origins; or, for `Accept: text/event-stream`, Server-Sent Events (eventStream.ts);
 *            an operation whose @defer/@stream applies: multipart/mixed (multipartStream.ts),
 *            or Server-Sent Events, one payload each; without an Accept for either, 406
 *            INCREMENTAL_DELIVERY_NOT_ACCEPTABLE
 *
 * Media types and status codes follow the GraphQL-over-HTTP specification.
 */
import { GraphQLError } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { checkBatchSize } from '../../analysis/limits.ts';
import { ErrorCode, codedError, httpStatus } from '../../errors/codes.ts';
import { LruCache } from '../../jsutils/lruCache.ts';
import { positiveInteger } from '../../jsutils/positiveInteger.ts';
import type { PromiseOrValue } from '../../jsutils/promiseOrValue.ts';
import type { OperationalRoutes } from '../../observability/endpoints.ts';
import type { RateStanding } from '../../ratelimit/rateLimiter.ts';
import { AuthError, insufficientScope } from '../../security/authError.ts';
import { createCors } from '../../security/cors.ts';
import type { CorsOptions } from '../../security/cors.ts';
import { createCsrfCheck } from '../../security/csrf.ts';
import type { CsrfCheck, CsrfPreventionOptions } from '../../security/csrf.ts';
import { ANONYMOUS } from '../../security/identity.ts';
import type { Identity } from '../../security/identity.ts';
import { ClientSlots } from '../../server/clientSlots.ts';
import { unreachable } from '../../server/outcomes.ts';
import { SMALL_REQUEST, createPipeline, incrementalPayloads, readParams } from '../../server/pipeline.ts';
import type {
  IncrementalFormat,
  KnownRequest,
  OperationIncremental,
  OperationOutcome,
  OperationPipeline,
  OperationRequest,
  OperationResult,
  OperationStream,
  PipelineOptions,
  RequestParams,
} from '../../server/pipeline.ts';
import { createResourceHandler } from '../rest/resourceHandler.ts';
import type { ResourceHandler, ResourcesOptions } from '../rest/resourceHandler.ts';
import { graphqlFailure, httpFailure, notAllowedAnswer, rateLimitedAnswer, smallResultText, withHeaders, withRateHeaders } from './answers.ts';
import { EventStream } from './eventStream.ts';
import { createGraphiql } from './graphiql.ts';
import type { GraphiqlOptions } from './graphiql.ts';
import { EtagMemo, addRateHeaders, clientInfo, etagOf, headerOf, matchesEtag } from '../httpHeaders.ts';
import { HttpOperation } from '../httpOperation.ts';
import { EVENT_STREAM, GRAPHQL_RESPONSE, JSON_RESPONSE, MULTIPART, checkContentType, negotiate, paramsFromQueryString } from './mediaTypes.ts';
import type { Accepted } from './mediaTypes.ts';
import { MultipartStream } from './multipartStream.ts';
import { ENDPOINT_METHODS, RESOURCE_METHODS, Router } from './router.ts';
import type { Route } from './router.ts';
import type { PlainRequest } from '../plainRequest.ts';

export type { MaybePromise, LogEntry, OperationScope } from '../../server/pipeline.ts';

export type { PlainRequest } from '../plainRequest.ts';

export interface ResponseInit {
  status: number;
  headers: Record<string, string>;
  /** Written only after this many milliseconds: the answer to a client over its rate limit (RateLimitOptions.holdRefusalsMs). */
  holdMs?: number;
}

/**
 * A response: its body (text, none, or chunks written as they come: Server-Sent Events, or the
 * parts of a multipart/mixed incremental delivery) and status and headers.
 */
export type HandlerResponse = [body: string | null | EventStream | MultipartStream, init: ResponseInit];

export interface HandlerOptions<Raw = unknown> extends PipelineOptions<Raw> {
  /** Where the endpoint is (default `/graphql`). */
  path?: string;
  /** Let web pages from these origins call the endpoint (default: no CORS headers, same-origin pages only). */
  cors?: CorsOptions;
  /**
   * Refuse requests a browser could send cross-site without a preflight (default on, as in
   * Apollo Server 4+; `false` turns it off; see security/csrf.ts).
   */
  csrfPrevention?: boolean | CsrfPreventionOptions;
  /** Subscriptions over Server-Sent Events one client (an address) may have open (default 100); past it, 429 TOO_MANY_CONNECTIONS. */
  maxEventStreamsPerClient?: number;
  /** How often an idle Server-Sent Events response gets a comment to keep it alive (default 12,000 ms). */
  sseHeartbeatMs?: number;
  /**
   * The resource-style surface under `/api` (rest/resourceHandler.ts): routes that are GraphQL
   * operations, by version: `{ version: 'v1', routes: { 'GET /books/{id}': 'query ...' } }`.
   */
  resources?: ResourcesOptions;
  /**
   * The GraphiQL IDE (graphiql.ts): a browser's GET of the endpoint gets the page, its assets
   * are under `<path>/graphiql/`. Default on, except in production (`production`, or NODE_ENV);
   * off, a browser gets a short page that says so (406).
   */
  graphiql?: boolean | GraphiqlOptions;
  /** Whether a graphql-transport-ws WebSocket listens on the same path (createServer sets it): GraphiQL runs subscriptions there. */
  subscriptionsOverWebSocket?: boolean;
}

/** The resource routes' headers a page may read (with `cors`). */
const RESOURCE_EXPOSED_HEADERS = ['etag', 'location', 'link', 'api-version', 'deprecation', 'sunset', 'retry-after', 'ratelimit', 'ratelimit-policy'];

/** The handler: a function from a plain request to `[body, init]`. */
export interface Handler<Raw = unknown> {
  /** The answer to a request; `route`: where the router sent it, when the transport has asked already. */
  (request: PlainRequest<Raw>, route?: Route): PromiseOrValue<HandlerResponse>;
  /**
   * Headers for an answer the transport writes itself, without the handler (a body too large,
   * bytes that are not UTF-8): the CORS headers the request's origin gets, so that a page can
   * read why it was refused. Null when there are none.
   */
  headersFor(headers: PlainRequest['headers']): Readonly<Record<string, string>> | null;
  /** Where requests go: the transport asks once, before it reads a body (router.ts). */
  readonly router: Router;
  /** The operation pipeline it runs operations through, for other transports to share (its caches and credentials too). */
  readonly pipeline: OperationPipeline<Raw>;
}

/** Builds the handler. `operational`: createServer's own routes (made for the handler's pipeline), for the router. */
export function createHandler<Raw = unknown>(
  options: HandlerOptions<Raw>,
  operational: ((pipeline: OperationPipeline<Raw>) => OperationalRoutes) | null = null,
): Handler<Raw> {
  const http = new GraphQLOverHttp(options, operational);
  const handle = (request: PlainRequest<Raw>, route?: Route): PromiseOrValue<HandlerResponse> => http.handle(request, route);
  return Object.assign(handle, {
    headersFor: (headers: PlainRequest['headers']) => http.cors?.headers(typeof headers['origin'] === 'string' ? headers['origin'] : undefined) ?? null,
    router: http.router,
    pipeline: http.pipeline,
  });
}

class GraphQLOverHttp<Raw> {
  readonly pipeline: OperationPipeline<Raw>;
  readonly router: Router;
  readonly cors;
  private readonly path: string;
  private readonly resources: ResourceHandler<Raw> | null;
  private readonly csrf: CsrfCheck | null;
  /** Subscriptions over Server-Sent Events each client (an address) has open. */
  private readonly streamSlots: ClientSlots;
  private readonly heartbeatMs: number;
  /** The entity tags of GET answers, by URL (short ones): made again only when the answer changes (see EtagMemo). */
  private readonly getEtags = new LruCache<string, EtagMemo>(1000, { maxBytes: 16 * 1024 * 1024, sizeOf: (url) => url.length * 2 + EtagMemo.MAX_BYTES });

  constructor(options: HandlerOptions<Raw>, operational: ((pipeline: OperationPipeline<Raw>) => OperationalRoutes) | null) {
    this.path = options.path ?? '/graphql';
    this.pipeline = createPipeline(options);
    this.resources = options.resources === undefined ? null : createResourceHandler(options.resources, this.pipeline);
    this.cors = options.cors === undefined ? null : createCors(options.cors, ENDPOINT_METHODS);
    // The resource routes' own policy: their methods, and the headers their answers carry for pages to read.
    const resourceCors =
      options.cors === undefined || this.resources === null
        ? null
        : createCors({ ...options.cors, exposedHeaders: options.cors.exposedHeaders ?? RESOURCE_EXPOSED_HEADERS }, RESOURCE_METHODS);
    this.csrf = options.csrfPrevention === false ? null : createCsrfCheck(options.csrfPrevention ?? true);
    const graphiql = createGraphiql({ path: this.path, option: options.graphiql, production: this.pipeline.production, webSocket: options.subscriptionsOverWebSocket === true });
    this.router = new Router({ path: this.path, resources: this.resources, graphiql, cors: this.cors, resourceCors, operational: operational?.(this.pipeline) ?? null });
    this.streamSlots = new ClientSlots(positiveInteger(options.maxEventStreamsPerClient ?? 100, 'maxEventStreamsPerClient'));
    this.heartbeatMs = positiveInteger(options.sseHeartbeatMs ?? 12_000, 'sseHeartbeatMs');
  }

  /** The answer to a request (routed here when the transport has not), with the CORS headers of its route for the request's origin. */
  handle(request: PlainRequest<Raw>, route: Route = this.router.route(request.method, request.url, request.headers)): PromiseOrValue<HandlerResponse> {
    const response = this.answer(request, route);
    if (this.cors === null) return response;
    const allowed = this.router.corsHeaders(route, request.headers);
    if (allowed === null) return response;
    if (response instanceof Promise) return response.then((settled) => withHeaders(settled, allowed));
    return withHeaders(response, allowed);
  }

  private answer(request: PlainRequest<Raw>, route: Route): PromiseOrValue<HandlerResponse> {
    switch (route.kind) {
      case 'graphql':
        return this.endpoint(request);
      case 'resources':
        // A POST is the one method that changes something and that a page can send cross-site
        // without a preflight (a form, a text or an empty body, its variables in the query string).
        if (this.csrf !== null && request.method === 'POST') {
          const refused = this.csrf(request.headers);
          if (refused !== null) return this.chargedRefusal(request, httpFailure(ErrorCode.CsrfPrevented, refused));
        }
        return (this.resources as ResourceHandler<Raw>).handle(request);
      case 'preflight':
        return [null, { status: 204, headers: route.headers }];
      case 'graphiql':
        return route.answer;
      case 'notFound':
        return this.chargedRefusal(request, httpFailure(ErrorCode.NotFound, `Nothing is served at ${route.pathname}; the GraphQL endpoint is ${this.path}.`));
      case 'operational':
        return [route.answer[2], { status: route.answer[0], headers: route.answer[1] }];
      default:
        return unreachable(route);
    }
  }

  /** The GraphQL endpoint: the request's method and media types, then who is calling. */
  private endpoint(request: PlainRequest<Raw>): PromiseOrValue<HandlerResponse> {
    const method = request.method;
    if (method !== 'GET' && method !== 'POST') {
      return this.chargedRefusal(request, httpFailure(ErrorCode.MethodNotAllowed, `Method ${method} is not allowed; use GET or POST.`, { allow: 'GET, POST' }));
    }
    // A POST's Content-Type, read once. Refused, it is answered 415 only after CSRF prevention
    // and Accept; accepted, it is JSON, which no page can send cross-site without a preflight:
    // such a POST passes CSRF prevention without the check reading its headers again.
    const unsupported = method === 'POST' ? checkContentType(headerOf(request.headers, 'content-type')) : null;
    if (this.csrf !== null && (method !== 'POST' || unsupported !== null)) {
      const refused = this.csrf(request.headers);
      if (refused !== null) return this.chargedRefusal(request, httpFailure(ErrorCode.CsrfPrevented, refused));
    }
    const accepted = negotiate(headerOf(request.headers, 'accept'));
    if (accepted === null) {
      return this.chargedRefusal(request, httpFailure(ErrorCode.NotAcceptable, 'The Accept header allows neither application/graphql-response+json nor application/json.'));
    }
    if (unsupported !== null) return this.chargedRefusal(request, httpFailure(ErrorCode.UnsupportedMediaType, unsupported));
    const identity = this.pipeline.authenticate(request.headers);
    if (identity instanceof Promise) return identity.then((settled) => this.authenticated(request, accepted, settled));
    return this.authenticated(request, accepted, identity);
  }

  /** A request that is no GraphQL request (no operation runs): its error counted here, where it is made, and charged. */
  private notARequest(request: PlainRequest<Raw>, mediaType: string, error: GraphQLError): PromiseOrValue<HandlerResponse> {
    this.pipeline.errorCounts.add(error.extensions['code']);
    return this.chargedRefusal(request, graphqlFailure(mediaType, error));
  }

  /** Once the caller is known: read the request's operations and run them. */
  private authenticated(request: PlainRequest<Raw>, accepted: Accepted, identity: Identity | AuthError): PromiseOrValue<HandlerResponse> {
    if (identity instanceof AuthError) return this.refusedCredential(request, identity);
    const mediaType = accepted.mediaType;
    const streams = mediaType === EVENT_STREAM;
    const read = this.readRequest(request);
    if (read instanceof GraphQLError) return this.notARequest(request, mediaType, read);
    if (!Array.isArray(read)) {
      // One operation: its body (a GET's URL) is its own, charged by its size.
      const size = request.method === 'GET' ? request.url.length : request.body === null ? undefined : request.body.length;
      return this.respondTo(request, mediaType, this.pipeline.run(operationRequest(request, identity, read.params, streams, accepted.incremental, size), read));
    }
    if (streams) {
      return this.notARequest(request, mediaType, codedError('A batch cannot be sent as Server-Sent Events; send one operation per request.', ErrorCode.BadRequest));
    }
    if (read.length === 0) return this.notARequest(request, mediaType, codedError('The batch is empty.', ErrorCode.BadRequest));
    const tooMany = checkBatchSize(read.length, this.pipeline.limits);
    if (tooMany !== null) return this.notARequest(request, mediaType, tooMany);
    return this.runBatch(request, mediaType, identity, read);
  }

  /**
   * The request's members: a GET's from its query string, a POST's from its JSON body (read
   * once per small body by the pipeline, which keeps what it checked of it), or a batch's items.
   */
  private readRequest(request: PlainRequest<Raw>): KnownRequest | unknown[] | GraphQLError {
    if (request.method !== 'GET') return this.pipeline.readBody(request.body);
    const queryStart = request.url.indexOf('?');
    const payload = paramsFromQueryString(queryStart === -1 ? '' : request.url.slice(queryStart + 1));
    if (payload instanceof GraphQLError) return payload;
    const params = readParams(payload);
    return params instanceof GraphQLError ? params : { params, ready: null };
  }

  /** A batch's operations run one after another; each gets its own result. */
  private async runBatch(request: PlainRequest<Raw>, mediaType: string, identity: Identity, items: unknown[]): Promise<HandlerResponse> {
    const results: ExecutionResult[] = [];
    // The headers report the standing after the last operation charged.
    let standing: RateStanding | undefined;
    // A batch with an operation refused for its client's budget is held as that refusal would be.
    let holdMs = 0;
    for (const [index, item] of items.entries()) {
      // Each operation may parse and validate a new document: the event loop gets a turn
      // between them, so a batch holds it no longer than its largest operation does.
      if (index > 0) await new Promise((resolve) => setImmediate(resolve));
      const params = readParams(item);
      if (params instanceof GraphQLError) {
        results.push({ errors: [params] });
        continue;
      }
      // Never incremental: an item whose @defer or @stream applies is refused in its place.
      const outcome = await this.pipeline.run(operationRequest(request, identity, params, false, undefined));
      switch (outcome.kind) {
        case 'notAllowed':
          return notAllowedAnswer(outcome.operation);
        case 'rateLimited':
          standing = outcome.refusal.standing ?? standing;
          holdMs = Math.max(holdMs, outcome.refusal.holdMs);
          results.push({ errors: [codedError(outcome.refusal.message, outcome.refusal.code, { retryAfter: outcome.refusal.retryAfter })] });
          break;
        case 'result':
        case 'stream':
          // A batch's operations are never sent as streams: a subscription is refused as a result.
          standing = outcome.rate ?? standing;
          if (outcome.kind === 'result') results.push(outcome.result);
          break;
        case 'incremental':
          // Cannot happen (the item carried no incremental format); closed all the same.
          void outcome.subsequent.return().catch(() => undefined);
          results.push(outcome.initial);
          break;
        default:
          return unreachable(outcome);
      }
    }
    const answer = this.respondWith(request, mediaType, results, null, standing);
    if (holdMs > 0) answer[1].holdMs = holdMs;
    return answer;
  }

  /** The response to one operation's outcome. */
  private respondTo(request: PlainRequest<Raw>, mediaType: string, outcome: PromiseOrValue<OperationOutcome>): PromiseOrValue<HandlerResponse> {
    if (outcome instanceof Promise) return outcome.then((settled) => this.respondToSettled(request, mediaType, settled));
    return this.respondToSettled(request, mediaType, outcome);
  }

  private respondToSettled(request: PlainRequest<Raw>, mediaType: string, outcome: OperationOutcome): HandlerResponse {
    switch (outcome.kind) {
      case 'result':
        if (mediaType === EVENT_STREAM) return this.eventStreamResponse(request, outcome);
        return this.respondWith(request, mediaType, outcome.result, outcome, outcome.rate);
      case 'stream':
        return this.eventStreamResponse(request, outcome);
      case 'incremental':
        if (mediaType === EVENT_STREAM) return this.eventStreamResponse(request, outcome);
        return this.multipartResponse(new MultipartStream(outcome.initial, outcome.subsequent, this.pipeline.streamError), outcome.rate);
      case 'notAllowed':
        return notAllowedAnswer(outcome.operation);
      case 'rateLimited':
        return rateLimitedAnswer(outcome.refusal);
      default:
        return unreachable(outcome);
    }
  }

  /**
   * The response: the result (or a batch's results) in the negotiated media type, with its
   * status (400 for a request error under application/graphql-response+json, 403 when the
   * operation was refused for fields the caller may not use; a batch is always 200), and for
   * GET an ETag (or 304).
   */
  private respondWith(
    request: PlainRequest<Raw>,
    mediaType: string,
    results: ExecutionResult | ExecutionResult[],
    outcome: OperationResult | null,
    standing: RateStanding | undefined,
  ): HandlerResponse {
    const writer = outcome?.writer ?? null;
    const body = writer !== null && !Array.isArray(results) ? smallResultText(results, writer) : JSON.stringify(results);
    const status = outcome === null || !outcome.requestError ? 200 : requestErrorStatus(mediaType, outcome);
    const headers: Record<string, string> = standing === undefined ? { 'content-type': mediaType } : withRateHeaders(mediaType, standing);
    const denied = outcome?.denied;
    if (denied !== undefined && denied.missingScopes.length > 0) {
      const refusal = insufficientScope('Bearer', 'The credential lacks scopes this operation needs.', denied.missingScopes);
      headers['www-authenticate'] = this.pipeline.challenge(refusal) as string;
    }
    if (request.method === 'GET' && status === 200) {
      const etag = request.url.length <= SMALL_REQUEST ? this.etagMemoOf(request.url).etagOf(body) : etagOf(body);
      headers['etag'] = etag;
      // An answer to a request with a credential is that caller's: no shared cache may keep it
      // (RFC 9111 covers Authorization by itself, not X-API-Key).
      headers['cache-control'] = request.headers['authorization'] !== undefined || request.headers['x-api-key'] !== undefined ? 'private, no-cache' : 'no-cache';
      if (matchesEtag(headerOf(request.headers, 'if-none-match'), etag)) return [null, { status: 304, headers: { etag } }];
    }
    return [body, { status, headers }];
  }

  private etagMemoOf(url: string): EtagMemo {
    let memo = this.getEtags.get(url);
    if (memo === undefined) {
      memo = new EtagMemo();
      this.getEtags.set(url, memo);
    }
    return memo;
  }

  /** Incremental payloads (or one result) as multipart/mixed, each part written as soon as it is ready. */
  private multipartResponse(body: MultipartStream, rate: RateStanding | undefined): HandlerResponse {
    // X-Accel-Buffering: a proxy such as nginx would otherwise hold parts back to fill its buffer.
    const headers: Record<string, string> = { 'content-type': MULTIPART, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
    if (rate !== undefined) addRateHeaders(headers, rate);
    return [body, { status: 200, headers }];
  }

  /** Server-Sent Events: a query's one result, a request error's, a subscription's stream of them, or an incremental delivery's payloads. */
  private eventStreamResponse(request: PlainRequest<Raw>, outcome: OperationResult | OperationStream | OperationIncremental): HandlerResponse {
    let release: (() => void) | null = null;
    if (outcome.kind === 'stream') {
      // A subscription holds a connection for as long as it lasts: a client may hold only so many.
      release = this.streamSlots.take(this.pipeline.addressOf(clientInfo(request)));
      if (release === null) {
        void outcome.stream.return().catch(() => undefined);
        return httpFailure(ErrorCode.TooManyConnections, `This client has ${this.streamSlots.perClient} event streams open already.`, { 'retry-after': '5' });
      }
    }
    const results = outcome.kind === 'stream' ? outcome.stream : outcome.kind === 'incremental' ? (incrementalPayloads(outcome) as AsyncGenerator<ExecutionResult, void, void>) : outcome.result;
    const body = new EventStream(results, this.heartbeatMs, this.pipeline.streamError, release, outcome.kind === 'stream');
    // X-Accel-Buffering: a proxy such as nginx would otherwise hold events back to fill its buffer.
    const headers: Record<string, string> = { 'content-type': EVENT_STREAM, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
    if (outcome.rate !== undefined) addRateHeaders(headers, outcome.rate);
    return [body, { status: 200, headers }];
  }

  /** A credential refused: charged (chargedRefusal), unless the authenticator could not answer (503). */
  private refusedCredential(request: PlainRequest<Raw>, error: AuthError): PromiseOrValue<HandlerResponse> {
    if (error.status === 503) return this.authFailure(error);
    return this.chargedRefusal(request, this.authFailure(error));
  }

  /**
   * A request refused before any operation ran (a credential, CSRF prevention, its method or
   * media types, a path that serves nothing, a body that is no GraphQL request): charged to the
   * client's address, so that refusals are not free to send. Once its budget is spent the
   * answer is the 429, held like any other (RateLimitOptions.holdRefusalsMs).
   */
  private chargedRefusal(request: PlainRequest<Raw>, refusal: HandlerResponse): PromiseOrValue<HandlerResponse> {
    const charged = this.pipeline.charge(ANONYMOUS, clientInfo(request));
    if (charged instanceof Promise) return charged.then((settled) => (settled === null ? refusal : rateLimitedAnswer(settled)));
    return charged === null ? refusal : rateLimitedAnswer(charged);
  }

  /** 401, 403 or 503, in the service's error shape, with the challenge that says what to send. */
  private authFailure(error: AuthError): HandlerResponse {
    const headers: Record<string, string> = { 'content-type': JSON_RESPONSE };
    const challenge = this.pipeline.challenge(error);
    if (challenge !== null) headers['www-authenticate'] = challenge;
    return [JSON.stringify({ error: { code: error.code, message: error.message } }), { status: error.status, headers }];
  }
}

function operationRequest<Raw>(
  request: PlainRequest<Raw>,
  identity: Identity,
  params: RequestParams,
  streams: boolean,
  incremental: IncrementalFormat | undefined,
  size?: number,
): OperationRequest<Raw> {
  return new HttpOperation(request, identity, params, request.method === 'GET', streams, false, incremental, size);
}

/**
 * The status of a request error: 406 for an operation whose @defer or @stream applies and an
 * Accept that allows no incremental payloads, whatever the media type; else, under
 * application/graphql-response+json, 403 for an operation refused for its fields and 400 for the
 * rest; 200 under application/json (GraphQL over HTTP's legacy type).
 */
function requestErrorStatus(mediaType: string, outcome: OperationResult): number {
  const code = outcome.result.errors?.[0]?.extensions['code'];
  if (code === ErrorCode.IncrementalNotAcceptable) return httpStatus(code);
  if (mediaType !== GRAPHQL_RESPONSE) return 200;
  return outcome.denied !== undefined ? 403 : 400;
}
