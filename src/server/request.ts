/**
 * A GraphQL request as the pipeline takes it from any transport: its members (`query`,
 * `operationName`, `variables`, `extensions`, `documentId`) checked for their types, and the
 * operation request a transport builds around them.
 */
import type { OperationTypeNode } from 'graphql';
import { GraphQLError } from 'graphql';
import { ErrorCode, codedError } from '../errors/codes.ts';
import { describe } from '../jsutils/describe.ts';
import type { ClientInfo } from '../ratelimit/rateLimiter.ts';
import type { Identity } from '../security/identity.ts';
import type { ReadyOperation } from './readyOperation.ts';

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

/** The formats of incremental delivery a transport can carry (OperationRequest.incremental). */
export type IncrementalFormat = 'current' | 'legacy';

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
   * subscription then gets a stream; else it is refused with SUBSCRIPTION_NOT_SUPPORTED.
   */
  readonly streams?: boolean;
  /**
   * Whether the transport can carry incremental payloads (`@defer`, `@stream`), and in which
   * format: 'current' (graphql 17's `experimentalExecuteIncrementally`, `incrementalSpec=v0.2`)
   * or 'legacy' (its `legacyExecuteIncrementally`, `deferSpec=20220824`). Unset, an operation
   * whose `@defer` or `@stream` applies is refused with INCREMENTAL_DELIVERY_NOT_ACCEPTABLE.
   */
  readonly incremental?: IncrementalFormat;
  /** What a WebSocket client sent with `connection_init`, for the context factory. */
  readonly connectionParams?: Readonly<Record<string, unknown>>;
  /** Where the request came from (socket peer, X-Forwarded-For): who an anonymous caller is counted as. */
  readonly client?: ClientInfo;
  /**
   * The characters the transport received for this operation, when it knows them (an HTTP body
   * of one operation, a WebSocket message): what the request holds beside its document is
   * charged to the rate limits by its size (Documents.chargeFor).
   */
  readonly size?: number | undefined;
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
   * A WebSocket operation's upgrade request headers: its OpenTelemetry span is then a root of
   * its own, linked to the trace their `traceparent` names (observability/openTelemetry.ts).
   */
  readonly upgradeHeaders?: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The transport found no tracer provider registered when the request arrived, so the request
   * has no span of its own: its operations get none either, and the pipeline does not ask again.
   */
  readonly untraced?: boolean;
  /**
   * The request's id (its request line's, and the `x-request-id` answered), read only when an
   * unexpected error is masked: the masked error and its log entry then carry the id the
   * request line carries. Without one, each masked error gets a new id.
   */
  readonly requestId?: string;
}

/**
 * A request text seen before: its members, and once its operation passed every check for a set
 * of grants, that operation (the document phase's fast path: see Pipeline.document).
 */
export interface KnownRequest {
  readonly params: RequestParams;
  ready: ReadyOperation | null;
}

/** Whether the request asked for an execution trace (`extensions.trace: true`; the admit phase refused any other value). */
export function isTraced(params: RequestParams): boolean {
  return params.extensions?.['trace'] === true;
}

/** Request texts up to this many characters are remembered with their members (a few MB at most). */
export const SMALL_REQUEST = 4096;

/** The members of a GraphQL request (`query`, `operationName`, `variables`, `extensions`), checked for their types. */
export function readParams(payload: unknown): RequestParams | GraphQLError {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return codedError('A GraphQL request must be a JSON object with a "query".', ErrorCode.BadRequest);
  }
  const { query, operationName, variables, extensions, documentId } = payload as Record<string, unknown>;
  if (documentId !== undefined && typeof documentId !== 'string') {
    return codedError(`"documentId" must be a string, got ${describe(documentId)}.`, ErrorCode.BadRequest);
  }
  const named = documentId !== undefined || (extensions != null && typeof extensions === 'object' && (extensions as Record<string, unknown>)['persistedQuery'] != null);
  if ((query === undefined || query === null) && !named) {
    return codedError('The request has no "query"; expected the GraphQL document as a string.', ErrorCode.BadRequest);
  }
  const mistyped = mistypedMember(query, operationName, variables, extensions);
  if (mistyped !== null) return mistyped;
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

function mistypedMember(query: unknown, operationName: unknown, variables: unknown, extensions: unknown): GraphQLError | null {
  if (query != null && typeof query !== 'string') {
    return codedError(`"query" must be a string, got ${describe(query)}.`, ErrorCode.BadRequest);
  }
  if (operationName != null && typeof operationName !== 'string') {
    return codedError(`"operationName" must be a string or null, got ${describe(operationName)}.`, ErrorCode.BadRequest);
  }
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return codedError(`"variables" must be an object or null, got ${describe(variables)}.`, ErrorCode.BadRequest);
  }
  if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) {
    return codedError(`"extensions" must be an object or null, got ${describe(extensions)}.`, ErrorCode.BadRequest);
  }
  return null;
}

/**
 * A JSON body's request: one request's members, a batch's items (to be read one by one), or
 * why it is not a GraphQL request.
 */
export function readJsonBody(body: string | null): RequestParams | unknown[] | GraphQLError {
  if (body === null || body.trim() === '') {
    return codedError('The request body is empty; expected a JSON object with a "query".', ErrorCode.BadRequest);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch (error) {
    return codedError(`The request body is not valid JSON: ${(error as Error).message}`, ErrorCode.BadRequest);
  }
  return Array.isArray(payload) ? payload : readParams(payload);
}
