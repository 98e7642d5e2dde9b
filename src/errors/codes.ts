/**
 * Every code a client or an application can receive from this package, in one place: its name
 * for the code (`ErrorCode.BadRequest`), the string on the wire (`'BAD_REQUEST'`), the HTTP
 * status it is answered with, where it appears, what it means and where the docs explain it.
 * Call sites use the constants; docs/errors.md is generated from this table (`npm run
 * docs:errors`), and spec-tests/errors-registry.test.ts fails when either drifts.
 *
 * The shapes a code travels in:
 *  - a GraphQL result `{ errors: [{ message, extensions: { code } }] }` for everything about a
 *    GraphQL request (its JSON, its document, its variables, its limits, its execution);
 *  - `{ error: { code, message } }` for HTTP failures that are not GraphQL results at all (wrong
 *    path, method, media type, size, encoding, credential, or a server fault outside execution),
 *    and for every failure of a resource route;
 *  - the `code` of an error a library API throws to the application;
 *  - a WebSocket close code with a reason (`WebSocketCloseCode`, at the end of this module).
 *
 * This module is at the bottom of the import graph: it imports only graphql, so that every layer
 * can name a code without depending on the layer that raises it.
 */
import { GraphQLError } from 'graphql';

/** Where a code can appear; docs/errors.md explains each in words. */
export const ErrorChannel = {
  /** A request error: `errors[].extensions.code` of a result without `data` (nothing ran). */
  Request: 'request',
  /** An execution error: `errors[].extensions.code` beside `data`; resource routes answer it with its status. */
  Execution: 'execution',
  /** An error on an open subscription: an SSE `next` or a WebSocket `error` message. */
  Stream: 'stream',
  /** The `{ error: { code, message } }` body of an HTTP answer (the GraphQL endpoint, operational routes, WebSocket upgrades). */
  Http: 'http',
  /** The `{ error: { code, message } }` body of a resource route's answer. */
  Resource: 'resource',
  /** The `code` of an error a library API (the webhooks API, the pub/sub) throws to the application. */
  Api: 'api',
} as const;

export type ErrorChannel = (typeof ErrorChannel)[keyof typeof ErrorChannel];

/** How docs/errors.md names each channel, and what it says of it. */
export const ERROR_CHANNELS: { readonly [Channel in ErrorChannel]: { readonly label: string; readonly description: string } } = {
  request: {
    label: 'GraphQL request error',
    description: '`errors[].extensions.code` of a result without `data`: nothing ran. 400 under `application/graphql-response+json`, 200 under `application/json`.',
  },
  execution: {
    label: 'GraphQL execution error',
    description: '`errors[].extensions.code` beside `data` (200 on the GraphQL endpoint); a resource route answers it with the status listed.',
  },
  stream: { label: 'subscription stream', description: 'An error on an open subscription: an SSE `next` event or a WebSocket `error` message.' },
  http: {
    label: 'HTTP `error`',
    description: 'The `{ "error": { "code", "message" } }` body of an HTTP answer: the GraphQL endpoint, the operational routes, a WebSocket upgrade.',
  },
  resource: { label: 'resource route `error`', description: 'The `{ "error": { "code", "message" } }` body of a resource route (`/api`).' },
  api: { label: 'API exception', description: 'The `code` of an error a library API throws to the application: `WebhookError`, the pub/sub.' },
};

/** What the registry says of one code. */
export interface ErrorCodeInfo<Code extends string = string, Status extends number | null = number | null> {
  /** The string on the wire. */
  readonly code: Code;
  /**
   * The HTTP status of an answer this code decides: an `{ error }` body, a request error under
   * `application/graphql-response+json`, an execution error answered by a resource route. Null
   * when the code never decides a status (it arrives on an open stream, or from a library API).
   */
  readonly status: Status;
  readonly channels: ReadonlyArray<ErrorChannel>;
  /** One line: when a client gets it. */
  readonly meaning: string;
  /** Where the docs explain it: a file of docs/ and a heading's anchor. */
  readonly docs: string;
}

const { Request, Execution, Stream, Http, Resource, Api } = ErrorChannel;

const HTTP_DOC = 'api.md#createserveroptions-graphql-over-http';
const LIMITS_DOC = 'api.md#limits-and-their-defaults';
const WEBSOCKET_DOC = 'api.md#over-a-websocket-graphql-transport-ws';
const RESOURCES_DOC = 'api.md#resource-routes-resources';
const WEBHOOKS_DOC = 'api.md#webhooks-createwebhooks-and-the-event-bus';
const PUBSUB_DOC = 'api.md#the-pubsub-createpubsub-createredispubsub';

/** One entry, its code and status kept as literal types (the views below need them). */
function entry<const Code extends string, const Status extends number | null>(
  code: Code,
  status: Status,
  channels: ReadonlyArray<ErrorChannel>,
  meaning: string,
  docs: string,
): ErrorCodeInfo<Code, Status> {
  return { code, status, channels, meaning, docs };
}

/** The registry, in the order docs/errors.md lists it: the request, its document, its execution, then the server around it. */
export const ERROR_CODES = {
  BadRequest: entry('BAD_REQUEST', 400, [Request, Execution, Resource], 'The body, URL parameters or path are not a well-formed request.', HTTP_DOC),
  ParseFailed: entry('GRAPHQL_PARSE_FAILED', 400, [Request], 'The document does not parse.', HTTP_DOC),
  ValidationFailed: entry('GRAPHQL_VALIDATION_FAILED', 400, [Request], 'The document does not validate against the schema (introspection where it is not allowed included).', HTTP_DOC),
  OperationResolutionFailure: entry('OPERATION_RESOLUTION_FAILURE', 400, [Request], 'The operation name matches no operation, or is needed and missing.', HTTP_DOC),
  BadUserInput: entry('BAD_USER_INPUT', 400, [Request, Execution, Api], "A variable's value does not coerce to its type, or a resolver or the webhooks API refused an argument.", HTTP_DOC),
  DepthLimitExceeded: entry('DEPTH_LIMIT_EXCEEDED', 400, [Request], 'The operation nests deeper than the `depth` limit.', LIMITS_DOC),
  CostLimitExceeded: entry('COST_LIMIT_EXCEEDED', 400, [Request], "The operation costs more than the `cost` limit, or than the caller's whole `rateLimit.cost` bucket.", LIMITS_DOC),
  NodeLimitExceeded: entry('NODE_LIMIT_EXCEEDED', 400, [Request], 'The operation could return more nodes than the `nodes` limit.', LIMITS_DOC),
  AliasLimitExceeded: entry('ALIAS_LIMIT_EXCEEDED', 400, [Request], 'The document uses more aliases than the `aliases` limit.', LIMITS_DOC),
  DirectiveLimitExceeded: entry('DIRECTIVE_LIMIT_EXCEEDED', 400, [Request], 'The document uses more directives than the `directives` limit, or one node more than `directivesPerNode`.', LIMITS_DOC),
  IncrementalLimitExceeded: entry('INCREMENTAL_LIMIT_EXCEEDED', 400, [Request], 'The operation has more `@defer` fragments and `@stream` fields than the `incremental` limit.', LIMITS_DOC),
  TokenLimitExceeded: entry('TOKEN_LIMIT_EXCEEDED', 400, [Request], 'The document has more tokens than the `tokens` limit.', LIMITS_DOC),
  DocumentTooLarge: entry('DOCUMENT_TOO_LARGE', 400, [Request], 'The document is longer than the `documentLength` limit.', LIMITS_DOC),
  DocumentTooDeep: entry('DOCUMENT_TOO_DEEP', 400, [Request], 'The document nests too deeply to parse or to analyze.', LIMITS_DOC),
  BatchLimitExceeded: entry('BATCH_LIMIT_EXCEEDED', 400, [Request], 'A batch has more operations than the `batchedOperations` limit.', LIMITS_DOC),
  BreadthLimitExceeded: entry('BREADTH_LIMIT_EXCEEDED', 400, [Request], 'A selection set lists more selections than the `breadth` limit.', LIMITS_DOC),
  FieldMergeLimitExceeded: entry('FIELD_MERGE_LIMIT_EXCEEDED', 400, [Request], 'A selection set asks validation to compare more same-named fields than the `fieldMerges` limit.', LIMITS_DOC),
  SlicingArgumentRequired: entry('SLICING_ARGUMENT_REQUIRED', 400, [Request], 'A list field that requires a slicing argument (`@listSize`) was selected without one.', LIMITS_DOC),
  PersistedQueryNotFound: entry('PERSISTED_QUERY_NOT_FOUND', 400, [Request], 'A persisted-query hash or `documentId` the server does not know: send the query with the hash.', 'security.md#trusted-documents'),
  PersistedQueryNotAllowed: entry('PERSISTED_QUERY_NOT_ALLOWED', 400, [Request], 'Under `trustedDocuments`: a document that is not in the manifest.', 'security.md#trusted-documents'),
  PersistedQueryNotSupported: entry('PERSISTED_QUERY_NOT_SUPPORTED', 400, [Request], 'A persisted-query hash sent to a server with `persistedQueries: false`.', 'security.md#trusted-documents'),
  SubscriptionOverHttp: entry('SUBSCRIPTION_NOT_SUPPORTED', 400, [Request], 'A subscription sent as a plain HTTP request: use a WebSocket or `Accept: text/event-stream`.', HTTP_DOC),
  IncrementalNotAcceptable: entry('INCREMENTAL_DELIVERY_NOT_ACCEPTABLE', 406, [Request], 'An operation whose `@defer` or `@stream` applies, on a request that cannot carry incremental payloads: an HTTP Accept without `multipart/mixed`, or a batch item.', HTTP_DOC),
  SubscriptionVariablesLimit: entry('SUBSCRIPTION_VARIABLES_LIMIT_EXCEEDED', 400, [Request], "The client's open subscriptions already keep `maxSubscriptionBytesPerClient` characters of variables.", HTTP_DOC),
  TraceNotAllowed: entry('TRACE_NOT_ALLOWED', 400, [Request], 'The request asked for `extensions.trace` and the server does not give traces.', HTTP_DOC),
  InternalServerError: entry('INTERNAL_SERVER_ERROR', 500, [Execution, Http, Resource], 'A resolver failed without a code of its own, or the server failed outside execution.', HTTP_DOC),
  Timeout: entry('TIMEOUT', 504, [Execution], 'Execution ran past `executionTimeoutMs`.', HTTP_DOC),
  Unauthenticated: entry('UNAUTHENTICATED', 401, [Http, Resource, Execution], 'No acceptable credential: missing where one is required, malformed, sent twice, unknown, expired or forged.', 'security.md#the-authenticator-chain'),
  Forbidden: entry('FORBIDDEN', 403, [Http, Resource, Request, Execution], 'A credential without a scope every request needs, or a caller without a role or scope a field requires.', 'security.md#what-a-denied-field-does'),
  MfaRequired: entry('MFA_REQUIRED', 403, [Request, Execution], "The field requires multi-factor sign-in, and the caller's was not.", 'security.md#what-a-denied-field-does'),
  AuthenticationUnavailable: entry('AUTHENTICATION_UNAVAILABLE', 503, [Http, Resource], "The credential could not be checked: the issuer's key set or the introspection endpoint did not answer.", 'security.md#the-authenticator-chain'),
  RateLimited: entry('RATE_LIMITED', 429, [Http, Resource, Request], 'Over a `rateLimit` budget; `Retry-After` (or `extensions.retryAfter`) says when to try again.', 'security.md#rate-limits'),
  RateLimitUnavailable: entry('RATE_LIMIT_UNAVAILABLE', 503, [Http, Resource, Request], "The rate limiter's store did not answer, and `failOpen` is false.", 'security.md#rate-limits'),
  NotFound: entry('NOT_FOUND', 404, [Http, Resource, Execution, Api], 'Nothing is served at the path, or the resource or webhook endpoint asked for does not exist.', HTTP_DOC),
  MethodNotAllowed: entry('METHOD_NOT_ALLOWED', 405, [Http, Resource], 'A method the path does not take (a mutation over GET included); `Allow` lists those it does.', HTTP_DOC),
  NotAcceptable: entry('NOT_ACCEPTABLE', 406, [Http, Resource], 'The Accept header allows none of the media types the path answers with.', HTTP_DOC),
  UnsupportedMediaType: entry('UNSUPPORTED_MEDIA_TYPE', 415, [Http, Resource], 'A body that is not `application/json`.', HTTP_DOC),
  PayloadTooLarge: entry('PAYLOAD_TOO_LARGE', 413, [Http], 'A body larger than `maxBodyBytes`.', HTTP_DOC),
  InvalidUtf8: entry('INVALID_UTF8', 400, [Http], 'A body that is not UTF-8.', HTTP_DOC),
  MalformedRequest: entry('MALFORMED_REQUEST', 400, [Http], "Bytes node's HTTP parser refuses: a raw non-ASCII byte in the request line, a malformed header or chunk.", HTTP_DOC),
  HeadersTooLarge: entry('HEADERS_TOO_LARGE', 431, [Http], 'A header block larger than `maxHeaderBytes`.', HTTP_DOC),
  RequestTimeout: entry('REQUEST_TIMEOUT', 408, [Http], 'The headers or the whole request did not arrive within `headersTimeoutMs` / `requestTimeoutMs`.', HTTP_DOC),
  CsrfPrevented: entry('CSRF_PREVENTED', 400, [Http, Resource], 'With `csrfPrevention`: a request a browser could have sent cross-site without a preflight.', 'security.md#browser-safety'),
  Gone: entry('GONE', 410, [Resource], 'An API version retired past its sunset date.', RESOURCES_DOC),
  PreconditionFailed: entry('PRECONDITION_FAILED', 412, [Resource], "An `If-Match` that does not name the resource's current ETag.", RESOURCES_DOC),
  Conflict: entry('CONFLICT', 409, [Execution], 'A resolver refused the change because of the resource as it is now.', RESOURCES_DOC),
  SubprotocolNotAcceptable: entry('SUBPROTOCOL_NOT_ACCEPTABLE', 400, [Http], 'A WebSocket upgrade without the `graphql-transport-ws` subprotocol.', WEBSOCKET_DOC),
  OriginNotAllowed: entry('ORIGIN_NOT_ALLOWED', 403, [Http], 'A WebSocket upgrade from a page whose origin may not connect.', WEBSOCKET_DOC),
  TooManyConnections: entry('TOO_MANY_CONNECTIONS', 429, [Http], 'The client has as many WebSockets or event streams open as one client may.', WEBSOCKET_DOC),
  ServiceUnavailable: entry('SERVICE_UNAVAILABLE', 503, [Http], 'The server cannot take the connection now: it is shutting down, or at its connection limit.', WEBSOCKET_DOC),
  TooManySubscriptions: entry('TOO_MANY_SUBSCRIPTIONS', null, [Stream], 'Over a WebSocket: the connection already runs `maxSubscriptionsPerConnection` operations.', WEBSOCKET_DOC),
  SubscriptionOverflow: entry('SUBSCRIPTION_OVERFLOW', null, [Stream], "A subscriber fell further behind than its buffer's size: it gets this error and is completed.", PUBSUB_DOC),
  PubSubClosed: entry('PUBSUB_CLOSED', null, [Api], 'A pub/sub call after its `close()`.', PUBSUB_DOC),
  WebhookInvalidUrl: entry('WEBHOOK_INVALID_URL', null, [Api], 'A callback URL the webhooks API refuses: not HTTPS, not parseable, or to a forbidden address.', WEBHOOKS_DOC),
  WebhookUnknownEventType: entry('WEBHOOK_UNKNOWN_EVENT_TYPE', null, [Api], 'An event type the webhooks were not configured with.', WEBHOOKS_DOC),
  WebhooksDisabled: entry('WEBHOOKS_DISABLED', null, [Execution], "The demo's webhook fields, on a server started without webhooks.", WEBHOOKS_DOC),
} as const;

type Registry = typeof ERROR_CODES;
type ErrorCodeName = keyof Registry;

/** The codes by name: `ErrorCode.BadRequest === 'BAD_REQUEST'`. */
export const ErrorCode = Object.freeze(
  Object.fromEntries(Object.entries(ERROR_CODES).map(([name, info]) => [name, info.code])),
) as { readonly [Name in ErrorCodeName]: Registry[Name]['code'] };

/** Any code of the registry. */
export type ErrorCode = (typeof ErrorCode)[ErrorCodeName];

const INFO_BY_CODE: ReadonlyMap<string, ErrorCodeInfo> = new Map(Object.values(ERROR_CODES).map((info) => [info.code, info]));

/** What the registry says of a code, or undefined for one it does not know (a resolver's own). */
export function errorCodeInfo(code: string): ErrorCodeInfo | undefined {
  return INFO_BY_CODE.get(code);
}

/**
 * The status a resource route answers an execution error with: the registry's for a code that
 * can be one, 500 for any other (a resolver's own code says nothing about HTTP).
 */
export function executionErrorStatus(code: string): number {
  const info = INFO_BY_CODE.get(code);
  return info !== undefined && info.status !== null && info.channels.includes(Execution) ? info.status : 500;
}

/** The body of an HTTP-level failure, `{ error: { code, message } }`. */
export function errorBody(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/**
 * The HTTP status an HTTP-level failure (`{ error: { code, message } }`) is answered with: the
 * registry's, so that a code and its status never part; 500 for a code without one.
 */
export function httpStatus(code: ErrorCode): number {
  return INFO_BY_CODE.get(code)?.status ?? 500;
}

/** A GraphQL error with a code (and whatever else belongs in its extensions). */
export function codedError(message: string, code: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions, code } });
}

/** The same error, with a code added unless it already has one. */
export function withCode(error: GraphQLError, code: string): GraphQLError {
  if (error.extensions['code'] !== undefined) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}

/**
 * The close codes of graphql-transport-ws, by the names graphql-ws gives them. 1001 (going away)
 * and 1009 (message too big) are the WebSocket library's own and are not listed here.
 */
export const WebSocketCloseCode = {
  InternalServerError: 4500,
  BadRequest: 4400,
  Unauthorized: 4401,
  Forbidden: 4403,
  ConnectionInitialisationTimeout: 4408,
  SubscriberAlreadyExists: 4409,
  TooManyInitialisationRequests: 4429,
} as const;

export type WebSocketCloseCode = (typeof WebSocketCloseCode)[keyof typeof WebSocketCloseCode];

/** The reasons a close code is sent with: fixed ones whole, the others by what they start with. */
export const WebSocketCloseReason = {
  InternalServerError: 'Internal server error',
  Unauthorized: 'Unauthorized',
  ConnectionInitialisationTimeout: 'Connection initialisation timeout',
  TooManyInitialisationRequests: 'Too many initialisation requests',
  BinaryMessage: 'Binary messages are not supported',
  /** Followed by what was wrong with the message. */
  InvalidMessage: 'Invalid message received: ',
  /** Followed by why the credential was refused (or that it expired). */
  Forbidden: 'Forbidden: ',
} as const;

/** What docs/errors.md says of each close code. */
export const WEBSOCKET_CLOSE_CODES: ReadonlyArray<{ readonly code: WebSocketCloseCode; readonly reason: string; readonly meaning: string }> = [
  { code: WebSocketCloseCode.BadRequest, reason: 'Invalid message received: …, or Binary messages are not supported', meaning: 'A message that is not JSON, not an object, of an unknown type or of the wrong shape; a binary message; a `connection_init` naming one credential twice; a ping whose payload nests too deeply to echo.' },
  { code: WebSocketCloseCode.Unauthorized, reason: 'Unauthorized', meaning: '`subscribe` before `connection_ack`.' },
  { code: WebSocketCloseCode.Forbidden, reason: 'Forbidden: …', meaning: 'Authentication refused the credential (the reason says why), or it expired.' },
  { code: WebSocketCloseCode.ConnectionInitialisationTimeout, reason: 'Connection initialisation timeout', meaning: 'No `connection_init` within `connectionInitWaitTimeoutMs`.' },
  { code: WebSocketCloseCode.SubscriberAlreadyExists, reason: 'Subscriber for … already exists', meaning: '`subscribe` with the id of an operation still running.' },
  { code: WebSocketCloseCode.TooManyInitialisationRequests, reason: 'Too many initialisation requests', meaning: 'A second `connection_init`.' },
  { code: WebSocketCloseCode.InternalServerError, reason: 'Internal server error, or Forbidden: … when the credential could not be checked', meaning: 'The credential could not be checked (the issuer did not answer), or the server failed handling one message: that connection ends, the others go on.' },
];
