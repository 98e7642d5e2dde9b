/**
 * The error codes a client can meet, in one place (authentication's are in security/authError.ts,
 * field-level authorization's in security/access.ts).
 *
 * Two shapes, as the service specification sets them:
 *  - a GraphQL result `{ errors: [{ message, extensions: { code } }] }` for everything about a
 *    GraphQL request (its JSON, its document, its variables, its limits, its execution);
 *  - `{ error: { code, message } }` for HTTP failures that are not GraphQL results at all (wrong
 *    path, method, media type, size, encoding, or a server fault outside execution).
 */
import { GraphQLError } from 'graphql';

/** Codes carried by GraphQL errors, in `errors[].extensions.code`. */
export const GraphQLErrorCode = {
  /** The body or URL parameters are not a well-formed GraphQL request. */
  BadRequest: 'BAD_REQUEST',
  /** The document does not parse. */
  ParseFailed: 'GRAPHQL_PARSE_FAILED',
  /** The document does not validate against the schema. */
  ValidationFailed: 'GRAPHQL_VALIDATION_FAILED',
  /** The operation name matches no operation, or is needed and missing. */
  OperationResolutionFailure: 'OPERATION_RESOLUTION_FAILURE',
  /** A variable's value does not coerce to its type. */
  BadUserInput: 'BAD_USER_INPUT',
  /** A resolver failed without saying why in a code of its own. */
  InternalServerError: 'INTERNAL_SERVER_ERROR',
  /** Execution took longer than the server allows. */
  Timeout: 'TIMEOUT',
  /** The client's open subscriptions already keep as many bytes of variables as one client may (maxSubscriptionBytesPerClient). */
  SubscriptionVariablesLimit: 'SUBSCRIPTION_VARIABLES_LIMIT_EXCEEDED',
  /** Subscriptions are not served over a plain HTTP request. */
  SubscriptionOverHttp: 'SUBSCRIPTION_NOT_SUPPORTED',
  /** The request asked for an execution trace (`extensions.trace`) and the server does not give them (the pipeline's `trace` option). */
  TraceNotAllowed: 'TRACE_NOT_ALLOWED',
} as const;

/** Codes of HTTP-level failures, in `error.code`, with their status. */
export const HttpErrorCode = {
  NotFound: ['NOT_FOUND', 404],
  MethodNotAllowed: ['METHOD_NOT_ALLOWED', 405],
  NotAcceptable: ['NOT_ACCEPTABLE', 406],
  PayloadTooLarge: ['PAYLOAD_TOO_LARGE', 413],
  UnsupportedMediaType: ['UNSUPPORTED_MEDIA_TYPE', 415],
  InvalidUtf8: ['INVALID_UTF8', 400],
  /** Bytes node's HTTP parser refuses: a raw non-ASCII byte in the request line, a bad header or chunk. */
  MalformedRequest: ['MALFORMED_REQUEST', 400],
  /** The header block is larger than maxHeaderBytes. */
  HeadersTooLarge: ['HEADERS_TOO_LARGE', 431],
  /** The client did not send its headers (or its whole request) in time. */
  RequestTimeout: ['REQUEST_TIMEOUT', 408],
  /** A request a browser could have sent cross-site, refused by csrfPrevention. */
  CsrfPrevented: ['CSRF_PREVENTED', 400],
  /** A WebSocket upgrade without the graphql-transport-ws subprotocol. */
  SubprotocolNotAcceptable: ['SUBPROTOCOL_NOT_ACCEPTABLE', 400],
  /** A WebSocket upgrade from a page whose Origin may not connect (cross-site WebSocket hijacking). */
  OriginNotAllowed: ['ORIGIN_NOT_ALLOWED', 403],
  /** The client has as many WebSockets or event streams open as one client may. */
  TooManyConnections: ['TOO_MANY_CONNECTIONS', 429],
  /** The server cannot take the connection now (shutting down, or at its connection limit). */
  ServiceUnavailable: ['SERVICE_UNAVAILABLE', 503],
  InternalServerError: ['INTERNAL_SERVER_ERROR', 500],
} as const;

export type HttpError = (typeof HttpErrorCode)[keyof typeof HttpErrorCode];

/** The body of an HTTP-level failure. */
export function httpErrorBody([code]: HttpError, message: string): string {
  return JSON.stringify({ error: { code, message } });
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
