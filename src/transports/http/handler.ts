/**
 * GraphQL over HTTP, without the HTTP: a plain request in, `[body, init]` out.
 *
 * The protocol logic knows nothing of `node:http` (server.ts only converts), and nothing of
 * documents, authorization or execution either: those are the operation pipeline's
 * (server/pipeline.ts), which every transport shares. What is HTTP's is here:
 *
 *   path ─ 404     CORS preflight (OPTIONS) ─ 204     method ─ 405     CSRF prevention ─ 400
 *   Accept ─ 406          Content-Type ─ 415
 *   authenticate (the pipeline) ─ 401 / 403 / 503 with WWW-Authenticate
 *   JSON body and members ─ 400 BAD_REQUEST      batch size ─ 400 BATCH_LIMIT_EXCEEDED
 *   for each operation: the pipeline (a mutation over GET ─ 405; over the rate limit ─ 429 with
 *            Retry-After, or 503 when the limiter's store is away; a batch's item refused
 *            gets RATE_LIMITED in its place)
 *   respond: application/graphql-response+json (400 when there is no data, 403 when the
 *            operation was refused for its fields) or application/json (200), ETag and 304
 *            for GET, RateLimit-Policy and RateLimit when limits are on, CORS headers for listed
 *            origins; or, for `Accept: text/event-stream`,
 *            Server-Sent Events (eventStream.ts): a subscription's results as they come
 *
 * Media types and status codes follow the GraphQL-over-HTTP specification.
 */
import { GraphQLError } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { checkBatchSize } from '../../analysis/limits.ts';
import type { SelectionPlan } from '../../execution/plan.ts';
import { stringifyData } from '../../execution/compileStringify.ts';
import { GraphQLErrorCode, HttpErrorCode, codedError, httpErrorBody } from '../../errors/codes.ts';
import type { HttpError } from '../../errors/codes.ts';
import { SMALL_REQUEST, createPipeline, readParams } from '../../server/pipeline.ts';
import type {
  KnownRequest,
  MaybePromise,
  OperationOutcome,
  OperationPipeline,
  OperationRequest,
  OperationResult,
  OperationStream,
  PipelineOptions,
  RequestParams,
} from '../../server/pipeline.ts';
import { EventStream } from './eventStream.ts';
import { createGraphiql } from './graphiql.ts';
import type { GraphiqlOptions } from './graphiql.ts';
import { EtagMemo, addRateHeaders, clientInfo, etagOf, headerOf, matchesEtag, mediaRanges } from './headers.ts';
import { HttpOperation } from './httpOperation.ts';
import { createResourceHandler } from '../rest/resourceHandler.ts';
import type { ResourcesOptions } from '../rest/resourceHandler.ts';
import { AuthError, insufficientScope } from '../../security/authError.ts';
import { createCors } from '../../security/cors.ts';
import type { CorsOptions } from '../../security/cors.ts';
import { createCsrfCheck } from '../../security/csrf.ts';
import { ClientSlots } from '../../server/clientSlots.ts';
import type { CsrfPreventionOptions } from '../../security/csrf.ts';
import { ANONYMOUS } from '../../security/identity.ts';
import type { Identity } from '../../security/identity.ts';
import { rateLimitHeader } from '../../ratelimit/rateLimiter.ts';
import type { RateRefusal, RateStanding } from '../../ratelimit/rateLimiter.ts';
import { LruCache, memoizeText } from '../../jsutils/lruCache.ts';
import { stringifySmall } from '../../jsutils/stringifySmall.ts';

export type { MaybePromise, LogEntry, OperationScope } from '../../server/pipeline.ts';

/** A request as any transport can describe it. */
export interface PlainRequest<Raw = unknown> {
  readonly method: string;
  /** Path and query string, as on the request line: `/graphql?query=...`. */
  readonly url: string;
  /** Header values by lower-case name. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body as UTF-8 text, or null when there is none. */
  readonly body: string | null;
  /** The transport's own request object, handed to the context factory. */
  readonly raw: Raw;
  /** The address of the socket's peer (for rate limits by address). */
  readonly remoteAddress?: string | undefined;
  /**
   * Registers a callback for the client going away before the response is complete; called
   * at once if it already has. The handler registers only for executions that go asynchronous:
   * a synchronous one is over before the transport could notice anything. (A hook rather than
   * an AbortSignal: on Node 20 creating a signal costs several microseconds, a tenth of a small
   * request's whole time, so signals are made only when someone asks; see OperationAbort.)
   */
  onClientGone?(callback: () => void): void;
  /** The request's id (for its request line), when the transport gives one: masked errors carry it. */
  readonly requestId?: string;
}

export interface ResponseInit {
  status: number;
  headers: Record<string, string>;
}

/** A response: its body (text, none, or Server-Sent Events written as they come) and status and headers. */
export type HandlerResponse = [body: string | null | EventStream, init: ResponseInit];

export interface HandlerOptions<Raw = unknown> extends PipelineOptions<Raw> {
  /** Where the endpoint is (default `/graphql`). */
  path?: string;
  /** Let web pages from these origins call the endpoint (default: no CORS headers, same-origin pages only). */
  cors?: CorsOptions;
  /** Refuse requests a browser could send cross-site without a preflight (default off; see security/csrf.ts). */
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
   * are under `<path>/graphiql/`. Default on, except in production (`production`, or NODE_ENV).
   */
  graphiql?: boolean | GraphiqlOptions;
  /** Whether a graphql-transport-ws WebSocket listens on the same path (createServer sets it): GraphiQL runs subscriptions there. */
  subscriptionsOverWebSocket?: boolean;
}

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_RESPONSE = 'application/json; charset=utf-8';
/** GraphQL over Server-Sent Events (eventStream.ts), chosen by `Accept: text/event-stream`. */
const EVENT_STREAM = 'text/event-stream; charset=utf-8';
const METHODS = ['GET', 'POST'];
/** The resource routes' methods, and the headers of their answers a page may read (with `cors`). */
const RESOURCE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const RESOURCE_EXPOSED_HEADERS = ['etag', 'location', 'link', 'api-version', 'deprecation', 'sunset', 'retry-after', 'ratelimit', 'ratelimit-policy'];

/** The handler: a function from a plain request to `[body, init]`. */
export interface Handler<Raw = unknown> {
  (request: PlainRequest<Raw>): MaybePromise<HandlerResponse>;
  /**
   * Headers for an answer the transport writes itself, without the handler (a body too large,
   * bytes that are not UTF-8): the CORS headers the request's origin gets, so that a page can
   * read why it was refused. Null when there are none.
   */
  headersFor(headers: PlainRequest['headers']): Readonly<Record<string, string>> | null;
  /** The operation pipeline it runs operations through, for other transports to share (its caches and credentials too). */
  readonly pipeline: OperationPipeline<Raw>;
}

/** Builds the handler. */
export function createHandler<Raw = unknown>(options: HandlerOptions<Raw>): Handler<Raw> {
  const path = options.path ?? '/graphql';
  const pipeline: OperationPipeline<Raw> = createPipeline(options);
  const resources = options.resources === undefined ? null : createResourceHandler(options.resources, pipeline);
  const cors = options.cors === undefined ? null : createCors(options.cors, METHODS);
  // The resource routes' own policy: their methods, and the headers their answers carry for pages to read.
  const resourceCors =
    options.cors === undefined || resources === null
      ? null
      : createCors({ ...options.cors, exposedHeaders: options.cors.exposedHeaders ?? RESOURCE_EXPOSED_HEADERS }, RESOURCE_METHODS);
  const csrf = options.csrfPrevention === undefined || options.csrfPrevention === false ? null : createCsrfCheck(options.csrfPrevention);
  const graphiql = createGraphiql({ path, option: options.graphiql, production: pipeline.production, webSocket: options.subscriptionsOverWebSocket === true });
  const streamSlots = new ClientSlots(options.maxEventStreamsPerClient ?? 100);
  if (!Number.isInteger(streamSlots.perClient) || streamSlots.perClient <= 0) {
    throw new TypeError(`maxEventStreamsPerClient must be a positive whole number, got ${String(options.maxEventStreamsPerClient)}.`);
  }
  const heartbeatMs = options.sseHeartbeatMs ?? 12_000;
  if (!Number.isInteger(heartbeatMs) || heartbeatMs <= 0) throw new TypeError(`sseHeartbeatMs must be a positive whole number of milliseconds, got ${String(heartbeatMs)}.`);

  /**
   * The response: the result (or a batch's results) in the negotiated media type, with its
   * status (400 for a request error under application/graphql-response+json, 403 when the
   * operation was refused for fields the caller may not use; a batch is always 200), and for
   * GET an ETag (or 304).
   */
  function respondWith(
    request: PlainRequest<Raw>,
    mediaType: string,
    results: ExecutionResult | ExecutionResult[],
    outcome: OperationResult | null,
    standing: RateStanding | undefined,
  ): HandlerResponse {
    const writer = outcome?.writer ?? null;
    const body = writer !== null && !Array.isArray(results) ? resultText(results, writer) : JSON.stringify(results);
    const status = mediaType !== GRAPHQL_RESPONSE || outcome === null || !outcome.requestError ? 200 : outcome.denied !== undefined ? 403 : 400;
    const headers: Record<string, string> = standing === undefined ? { 'content-type': mediaType } : withRateHeaders(mediaType, standing);
    const denied = outcome?.denied;
    if (denied !== undefined && denied.missingScopes.length > 0) {
      const refusal = insufficientScope('Bearer', 'The credential lacks scopes this operation needs.', denied.missingScopes);
      headers['www-authenticate'] = pipeline.challenge(refusal) as string;
    }
    if (request.method === 'GET' && status === 200) {
      const etag = request.url.length <= SMALL_REQUEST ? etagMemoOf(request.url).etagOf(body) : etagOf(body);
      headers['etag'] = etag;
      // An answer to a request with a credential is that caller's: no shared cache may keep it
      // (RFC 9111 covers Authorization by itself, not X-API-Key).
      headers['cache-control'] = request.headers['authorization'] !== undefined || request.headers['x-api-key'] !== undefined ? 'private, no-cache' : 'no-cache';
      if (matchesEtag(headerOf(request.headers, 'if-none-match'), etag)) return [null, { status: 304, headers: { etag } }];
    }
    return [body, { status, headers }];
  }

  /** The entity tags of GET answers, by URL (short ones): made again only when the answer changes (see EtagMemo). */
  const getEtags = new LruCache<string, EtagMemo>(1000, { maxBytes: 16 * 1024 * 1024, sizeOf: (url) => url.length * 2 + EtagMemo.MAX_BYTES });
  function etagMemoOf(url: string): EtagMemo {
    let memo = getEtags.get(url);
    if (memo === undefined) {
      memo = new EtagMemo();
      getEtags.set(url, memo);
    }
    return memo;
  }

  /** A batch's operations run one after another; each gets its own result. */
  async function runBatch(request: PlainRequest<Raw>, mediaType: string, identity: Identity, items: unknown[]): Promise<HandlerResponse> {
    const results: ExecutionResult[] = [];
    // The headers report the standing after the last operation charged.
    let standing: RateStanding | undefined;
    for (const [index, item] of items.entries()) {
      // Each operation may parse and validate a new document: the event loop gets a turn
      // between them, so a batch holds it no longer than its largest operation does.
      if (index > 0) await new Promise((resolve) => setImmediate(resolve));
      const params = readParams(item);
      if (params instanceof GraphQLError) {
        results.push({ errors: [params] });
        continue;
      }
      const outcome = await pipeline.run(operationRequest(request, identity, params, false));
      if ('notAllowed' in outcome) return notAllowed(outcome.notAllowed);
      if ('rateLimited' in outcome) {
        const refusal = outcome.rateLimited;
        standing = refusal.standing ?? standing;
        results.push({ errors: [codedError(refusal.message, refusal.code, { retryAfter: refusal.retryAfter })] });
        continue;
      }
      standing = (outcome as OperationResult).rate ?? standing;
      results.push((outcome as OperationResult).result);
    }
    return respondWith(request, mediaType, results, null, standing);
  }

  function handle(request: PlainRequest<Raw>): MaybePromise<HandlerResponse> {
    const url = request.url;
    // Most requests are POSTs to the endpoint itself, with no query string to look for.
    const queryStart = url === path ? -1 : url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    if (pathname !== path && resources !== null && resources.owns(pathname)) {
      if (request.method === 'OPTIONS' && resourceCors !== null) {
        return [null, { status: 204, headers: { allow: RESOURCE_METHODS.join(', '), ...resourceCors.preflight(headerOf(request.headers, 'origin')) } }];
      }
      // A POST is the one method that changes something and that a page can send cross-site
      // without a preflight (a form, a text or an empty body, its variables in the query string).
      if (csrf !== null && request.method === 'POST') {
        const refused = csrf(request.headers);
        if (refused !== null) return httpFailure(HttpErrorCode.CsrfPrevented, refused);
      }
      return resources.handle(request);
    }
    if (graphiql !== null && (request.method === 'GET' || request.method === 'HEAD')) {
      const page = graphiql.serve(pathname, request.headers);
      if (page !== null) return page;
    }
    if (pathname !== path) return httpFailure(HttpErrorCode.NotFound, `Nothing is served at ${pathname}; the GraphQL endpoint is ${path}.`);
    const method = request.method;
    if (method !== 'GET' && method !== 'POST') {
      if (method === 'OPTIONS' && cors !== null) return [null, { status: 204, headers: { allow: 'GET, POST, OPTIONS', ...cors.preflight(headerOf(request.headers, 'origin')) } }];
      return httpFailure(HttpErrorCode.MethodNotAllowed, `Method ${method} is not allowed; use GET or POST.`, { allow: 'GET, POST' });
    }
    if (csrf !== null) {
      const refused = csrf(request.headers);
      if (refused !== null) return httpFailure(HttpErrorCode.CsrfPrevented, refused);
    }
    const mediaType = negotiate(headerOf(request.headers, 'accept'));
    if (mediaType === null) {
      return httpFailure(
        HttpErrorCode.NotAcceptable,
        'The Accept header allows neither application/graphql-response+json nor application/json.',
      );
    }
    if (method === 'POST') {
      const unsupported = checkContentType(headerOf(request.headers, 'content-type'));
      if (unsupported !== null) return httpFailure(HttpErrorCode.UnsupportedMediaType, unsupported);
    }
    const identity = pipeline.authenticate(request.headers);
    if (identity instanceof Promise) return identity.then((settled) => proceed(request, mediaType, queryStart, settled));
    return proceed(request, mediaType, queryStart, identity);
  }

  /** Once the caller is known: read the request's operations and run them. */
  function proceed(request: PlainRequest<Raw>, mediaType: string, queryStart: number, identity: Identity | AuthError): MaybePromise<HandlerResponse> {
    if (identity instanceof AuthError) return refusedCredential(request, identity);
    const streams = mediaType === EVENT_STREAM;
    let payload: unknown;
    let known: KnownRequest | undefined;
    if (request.method === 'GET') {
      const parsed = paramsFromQueryString(queryStart === -1 ? '' : request.url.slice(queryStart + 1));
      if (parsed instanceof GraphQLError) return graphqlFailure(mediaType, parsed);
      payload = parsed;
    } else {
      const body = request.body;
      // Clients send the same small bodies again and again (a query without variables, or
      // with the same ones): their members are read once, and once their operation has passed
      // every check it is executed at once (the pipeline's KnownRequest). Nothing downstream writes to them.
      known = body !== null ? pipeline.known(body) : undefined;
      if (known !== undefined) return respondTo(request, mediaType, pipeline.run(operationRequest(request, identity, known.params, streams), known));
      if (body === null || body.trim() === '') {
        return graphqlFailure(mediaType, codedError('The request body is empty; expected a JSON object with a "query".', GraphQLErrorCode.BadRequest));
      }
      try {
        payload = JSON.parse(body);
      } catch (error) {
        return graphqlFailure(
          mediaType,
          codedError(`The request body is not valid JSON: ${(error as Error).message}`, GraphQLErrorCode.BadRequest),
        );
      }
    }

    if (Array.isArray(payload)) {
      if (streams) {
        return graphqlFailure(mediaType, codedError('A batch cannot be sent as Server-Sent Events; send one operation per request.', GraphQLErrorCode.BadRequest));
      }
      if (payload.length === 0) return graphqlFailure(mediaType, codedError('The batch is empty.', GraphQLErrorCode.BadRequest));
      const tooMany = checkBatchSize(payload.length, pipeline.limits);
      if (tooMany !== null) return graphqlFailure(mediaType, tooMany);
      return runBatch(request, mediaType, identity, payload);
    }
    const params = readParams(payload);
    if (params instanceof GraphQLError) return graphqlFailure(mediaType, params);
    if (request.method === 'POST') known = pipeline.remember(request.body as string, params);
    return respondTo(request, mediaType, pipeline.run(operationRequest(request, identity, params, streams), known));
  }

  /** The response to one operation's outcome. */
  function respondTo(request: PlainRequest<Raw>, mediaType: string, outcome: MaybePromise<OperationOutcome>): MaybePromise<HandlerResponse> {
    if (outcome instanceof Promise) return outcome.then((settled) => respondToSettled(request, mediaType, settled));
    return respondToSettled(request, mediaType, outcome);
  }

  function respondToSettled(request: PlainRequest<Raw>, mediaType: string, outcome: OperationOutcome): HandlerResponse {
    // The usual case first: a result, as JSON.
    if (mediaType !== EVENT_STREAM && 'result' in outcome) return respondWith(request, mediaType, outcome.result, outcome, outcome.rate);
    if ('notAllowed' in outcome) return notAllowed(outcome.notAllowed);
    if ('rateLimited' in outcome) return rateLimited(outcome.rateLimited);
    if (mediaType === EVENT_STREAM) return eventStreamResponse(request, outcome);
    return respondWith(request, mediaType, (outcome as OperationResult).result, outcome as OperationResult, undefined);
  }

  /** Server-Sent Events: a query's one result, a request error's, or a subscription's stream of them. */
  function eventStreamResponse(request: PlainRequest<Raw>, outcome: OperationResult | OperationStream): HandlerResponse {
    let release: (() => void) | null = null;
    if ('stream' in outcome) {
      // A subscription holds a connection for as long as it lasts: a client may hold only so many.
      release = streamSlots.take(pipeline.addressOf(clientInfo(request)));
      if (release === null) {
        void outcome.stream.return().catch(() => undefined);
        return httpFailure(HttpErrorCode.TooManyConnections, `This client has ${streamSlots.perClient} event streams open already.`, { 'retry-after': '5' });
      }
    }
    const body = new EventStream('stream' in outcome ? outcome.stream : outcome.result, heartbeatMs, pipeline.streamError, release);
    // X-Accel-Buffering: a proxy such as nginx would otherwise hold events back to fill its buffer.
    const headers: Record<string, string> = { 'content-type': EVENT_STREAM, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
    if (outcome.rate !== undefined) addRateHeaders(headers, outcome.rate);
    return [body, { status: 200, headers }];
  }

  /** A credential refused: charged to the client's address (429 once its budget is spent), else the refusal. */
  function refusedCredential(request: PlainRequest<Raw>, error: AuthError): MaybePromise<HandlerResponse> {
    if (error.status === 503) return authFailure(error);
    const charged = pipeline.charge(ANONYMOUS, clientInfo(request));
    if (charged instanceof Promise) return charged.then((refusal) => (refusal === null ? authFailure(error) : rateLimited(refusal)));
    return charged === null ? authFailure(error) : rateLimited(charged);
  }

  /** 401, 403 or 503, in the service's error shape, with the challenge that says what to send. */
  function authFailure(error: AuthError): HandlerResponse {
    const headers: Record<string, string> = { 'content-type': JSON_RESPONSE };
    const challenge = pipeline.challenge(error);
    if (challenge !== null) headers['www-authenticate'] = challenge;
    return [JSON.stringify({ error: { code: error.code, message: error.message } }), { status: error.status, headers }];
  }

  if (cors === null) return Object.assign(handle, { headersFor: () => null, pipeline });
  // CORS headers go on every answer to a listed origin, errors included, so that the page can read why.
  const handleWithCors = (request: PlainRequest<Raw>): MaybePromise<HandlerResponse> => {
    const policy = resourceCors !== null && resources !== null && request.url !== path && resources.owns(request.url.split('?')[0] as string) ? resourceCors : cors;
    const allowed = policy.headers(headerOf(request.headers, 'origin'));
    const response = handle(request);
    if (allowed === null) return response;
    if (response instanceof Promise) return response.then((settled) => withHeaders(settled, allowed));
    return withHeaders(response, allowed);
  };
  return Object.assign(handleWithCors, {
    headersFor: (headers: PlainRequest['headers']) => cors.headers(typeof headers['origin'] === 'string' ? headers['origin'] : undefined),
    pipeline,
  });
}

function operationRequest<Raw>(request: PlainRequest<Raw>, identity: Identity, params: RequestParams, streams: boolean): OperationRequest<Raw> {
  return new HttpOperation(request, identity, params, request.method === 'GET', streams);
}

/**
 * Over the rate limit (429) or the limiter's store away (503): `{ error: { code, message } }`,
 * Retry-After in seconds, and where the budgets stand.
 */
function rateLimited(refusal: RateRefusal): HandlerResponse {
  const headers: Record<string, string> = { 'content-type': JSON_RESPONSE, 'retry-after': String(refusal.retryAfter) };
  if (refusal.standing !== null) addRateHeaders(headers, refusal.standing);
  return [JSON.stringify({ error: { code: refusal.code, message: refusal.message } }), { status: refusal.status, headers }];
}

/** A response's headers with RateLimit-Policy and RateLimit: made whole at once, not grown. */
function withRateHeaders(mediaType: string, standing: RateStanding): Record<string, string> {
  const current = rateLimitHeader(standing);
  if (current === null) return { 'content-type': mediaType };
  return { 'content-type': mediaType, 'ratelimit-policy': standing.policy.header, ratelimit: current };
}


function notAllowed(kind: 'mutation'): HandlerResponse {
  return httpFailure(HttpErrorCode.MethodNotAllowed, `A ${kind} cannot be sent with GET; use POST.`, { allow: 'POST' });
}

function withHeaders(response: HandlerResponse, extra: Readonly<Record<string, string>>): HandlerResponse {
  const [body, init] = response;
  const headers = { ...init.headers, ...extra };
  // Both vary (the resource routes by version headers, CORS by Origin): the answer varies by all.
  const vary = init.headers['vary'];
  if (vary !== undefined && extra['vary'] !== undefined) {
    const names = `${vary}, ${extra['vary']}`.split(',').map((name) => name.trim());
    headers['vary'] = names.filter((name, index) => names.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === index).join(', ');
  }
  return [body, { status: init.status, headers }];
}

/**
 * A small result's JSON text: `data` by the root plan's generated writer, the cost report by
 * stringifySmall; the same text JSON.stringify gives (see compileStringify.ts). Results with
 * errors, and anything unusual, are left to JSON.stringify.
 */
function resultText(result: ExecutionResult, root: SelectionPlan): string {
  if (result.errors === undefined && (Object.prototype as { toJSON?: unknown }).toJSON === undefined) {
    const data = stringifyData(root, result.data);
    if (data !== undefined) {
      if (result.extensions === undefined) return '{"data":' + data + '}';
      const extensions = stringifySmall(result.extensions);
      if (extensions !== undefined) return '{"data":' + data + ',"extensions":' + extensions + '}';
    }
  }
  return JSON.stringify(result);
}

function httpFailure(error: HttpError, message: string, extraHeaders: Record<string, string> = {}): HandlerResponse {
  return [httpErrorBody(error, message), { status: error[1], headers: { 'content-type': JSON_RESPONSE, ...extraHeaders } }];
}

/**
 * A request that is not a well-formed GraphQL request: 400, with a GraphQL-shaped body (JSON,
 * also when events were asked for: there is no operation to stream).
 */
function graphqlFailure(mediaType: string, error: GraphQLError): HandlerResponse {
  return [JSON.stringify({ errors: [error] }), { status: 400, headers: { 'content-type': mediaType === EVENT_STREAM ? JSON_RESPONSE : mediaType } }];
}

/**
 * The response media type the Accept header allows: application/graphql-response+json when
 * accepted, else application/json; a missing header, `*\/*` or `application/*` mean JSON.
 * `text/event-stream` listed before any JSON type means Server-Sent Events.
 */
function negotiate(accept: string | undefined): string | null {
  return accept === undefined ? JSON_RESPONSE : negotiateText(accept);
}

const negotiateText = memoizeText((accept: string): string | null => {
  if (accept.trim() === '') return JSON_RESPONSE;
  let json = false;
  let wildcard = false;
  for (const { type } of mediaRanges(accept)) {
    if (type === 'text/event-stream' && !json) return EVENT_STREAM;
    if (type === 'application/graphql-response+json') return GRAPHQL_RESPONSE;
    if (type === 'application/json') json = true;
    else if (type === '*/*' || type === 'application/*') wildcard = true;
  }
  return json || wildcard ? JSON_RESPONSE : null;
});

/** POST bodies are JSON in UTF-8; null when acceptable, else why not (by header value, remembered). */
function checkContentType(contentType: string | undefined): string | null {
  return contentType === undefined ? checkContentTypeUncached(undefined) : contentTypeVerdict(contentType);
}

const contentTypeVerdict = memoizeText(checkContentTypeUncached);

function checkContentTypeUncached(contentType: string | undefined): string | null {
  if (contentType === undefined || contentType.trim() === '') {
    return 'The request has no Content-Type; send application/json.';
  }
  const [type = '', ...parameters] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'application/json') {
    return `Content-Type ${type.trim()} is not supported; send application/json.`;
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset' && value.trim().replace(/"/g, '').toLowerCase() !== 'utf-8') {
      return `Charset ${value.trim()} is not supported; send UTF-8.`;
    }
  }
  return null;
}

/** GET parameters: `query`, `operationName`, `documentId`, and `variables`/`extensions` as JSON strings. */
function paramsFromQueryString(search: string): Record<string, unknown> | GraphQLError {
  const parameters = new URLSearchParams(search);
  const payload: Record<string, unknown> = {};
  for (const name of ['query', 'operationName', 'documentId']) {
    const value = parameters.get(name);
    if (value !== null) payload[name] = value;
  }
  for (const name of ['variables', 'extensions']) {
    const value = parameters.get(name);
    if (value === null || value === '') continue;
    try {
      payload[name] = JSON.parse(value);
    } catch {
      return codedError(`The "${name}" parameter is not valid JSON.`, GraphQLErrorCode.BadRequest);
    }
  }
  return payload;
}

