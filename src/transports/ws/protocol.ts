/**
 * GraphQL over WebSocket, the graphql-transport-ws protocol (graphql-ws's PROTOCOL.md), without
 * the WebSocket: text messages in, text messages and close codes out. server.ts adapts it to
 * the `ws` package; everything a GraphQL operation goes through is the operation pipeline's
 * (server/pipeline.ts), exactly as for HTTP.
 *
 *   open ── no connection_init within connectionInitWaitTimeoutMs ─ 4408
 *   connection_init ── a second one ─ 4429      a credential or member named twice ─ 4400
 *                   ── authentication refused ─ 4403                           ─ connection_ack
 *   ping ─ pong (with its payload)              pong ─ nothing
 *   subscribe ── before the ack ─ 4401     its id in use ─ 4409     too many at once ─ error
 *            ── the pipeline: request errors (parse, validation, limits, authorization) ─ error
 *                             a query or mutation ─ next, complete
 *                             one whose @defer/@stream applies ─ next per payload (the
 *                                               current format), complete
 *                             a subscription ─ next per event, complete when the source ends,
 *                                               error when it fails (an overflow, say)
 *   complete ── the operation stops; its source stream (or its later payloads) is closed, and
 *               its signal aborts
 *   anything else, or a message of the wrong shape ─ 4400
 *   the socket closes ─ every operation's source stream is closed
 *
 * Close reasons are at most 123 bytes, as a WebSocket close frame allows.
 */
import type { ExecutionResult } from 'graphql';
import { incrementalPayloads } from '../../server/pipeline.ts';
import type { OperationOutcome, OperationPipeline, OperationRequest, RequestParams } from '../../server/pipeline.ts';
import { unreachable } from '../../server/outcomes.ts';
import { AuthError } from '../../security/authError.ts';
import type { RequestHeaders } from '../../security/authenticate.ts';
import { readParamsCredential } from '../../security/credentials.ts';
import { duplicateJsonKey } from '../../jsutils/duplicateJsonKey.ts';
import { ANONYMOUS } from '../../security/identity.ts';
import type { Identity } from '../../security/identity.ts';
import type { ClientInfo, RateRefusal } from '../../ratelimit/rateLimiter.ts';
import { ErrorCode, WebSocketCloseCode, WebSocketCloseReason, codedError } from '../../errors/codes.ts';
import { sharedResultText } from '../sharedResultText.ts';
import { positiveInteger } from '../../jsutils/positiveInteger.ts';

export const MessageType = {
  ConnectionInit: 'connection_init',
  ConnectionAck: 'connection_ack',
  Ping: 'ping',
  Pong: 'pong',
  Subscribe: 'subscribe',
  Next: 'next',
  Error: 'error',
  Complete: 'complete',
} as const;

/** What the protocol needs of a socket. */
export interface ProtocolSocket {
  send(text: string): void;
  close(code: number, reason: string): void;
  /**
   * Reads none of the client's messages for `ms`: a subscribe refused for its client's budget is
   * held as HTTP holds its 429 (RateLimitOptions.holdRefusalsMs), so that a client sending
   * message after message is slowed to the pace of its refusals. (Optional: a transport that
   * cannot pause its reading answers at once.)
   */
  holdReading?(ms: number): void;
}

export interface WebSocketProtocolOptions {
  /** Time allowed for `connection_init` after the socket opens (default 3,000 ms). */
  connectionInitWaitTimeoutMs?: number;
  /** Operations one connection may run at once (default 100). */
  maxSubscriptionsPerConnection?: number;
}

/** What the socket was opened with. */
export interface Upgrade<Raw> {
  /** The upgrade request's headers: a credential may come in them. */
  readonly headers: RequestHeaders;
  /** The transport's request object, handed to the context factory. */
  readonly raw: Raw;
  /** Where the upgrade came from: who an anonymous caller is counted as by the rate limiter. */
  readonly client?: ClientInfo;
}

/** One socket's connection: the adapter passes it every text message, and tells it when the socket closed. */
export interface Connection {
  message(text: string): void;
  closed(): void;
  /** Subscriptions streaming results now (for metrics). */
  readonly streaming: number;
}

export function createWebSocketProtocol<Raw>(pipeline: OperationPipeline<Raw>, options: WebSocketProtocolOptions = {}) {
  const initWaitMs = positiveInteger(options.connectionInitWaitTimeoutMs ?? 3_000, 'websocket.connectionInitWaitTimeoutMs');
  const maxOperations = positiveInteger(options.maxSubscriptionsPerConnection ?? 100, 'websocket.maxSubscriptionsPerConnection');
  return {
    open(socket: ProtocolSocket, upgrade: Upgrade<Raw>): Connection {
      return new GraphQLConnection(pipeline, socket, upgrade, initWaitMs, maxOperations);
    },
  };
}

/**
 * An operation in flight: its source stream once there is one (a subscription's, or an
 * incremental delivery's payloads), whether it is a subscription (counted in `streaming`), and
 * whether it has ended.
 */
interface Operation {
  stream: AsyncGenerator<ExecutionResult, void, void> | null;
  subscription: boolean;
  ended: boolean;
}

class GraphQLConnection<Raw> implements Connection {
  private readonly pipeline: OperationPipeline<Raw>;
  private readonly socket: ProtocolSocket;
  private readonly upgrade: Upgrade<Raw>;
  private readonly maxOperations: number;
  private readonly operations = new Map<string, Operation>();
  private initTimer: ReturnType<typeof setTimeout> | null;
  private expiryTimer: ReturnType<typeof setTimeout> | null = null;
  private initReceived = false;
  private identity: Identity | null = null;
  private connectionParams: Readonly<Record<string, unknown>> | null = null;
  private isClosed = false;
  streaming = 0;

  constructor(pipeline: OperationPipeline<Raw>, socket: ProtocolSocket, upgrade: Upgrade<Raw>, initWaitMs: number, maxOperations: number) {
    this.pipeline = pipeline;
    this.socket = socket;
    this.upgrade = upgrade;
    this.maxOperations = maxOperations;
    this.initTimer = setTimeout(() => this.close(WebSocketCloseCode.ConnectionInitialisationTimeout, WebSocketCloseReason.ConnectionInitialisationTimeout), initWaitMs);
  }

  message(text: string): void {
    if (this.isClosed) return;
    const message = parseMessage(text);
    if (typeof message === 'string') {
      this.close(WebSocketCloseCode.BadRequest, message);
      return;
    }
    switch (message.type) {
      case MessageType.ConnectionInit:
        this.connectionInit(message.payload);
        return;
      case MessageType.Ping:
        this.pong(message.payload);
        return;
      case MessageType.Pong:
        return;
      case MessageType.Subscribe:
        this.subscribe(message.id, message.payload, text.length);
        return;
      case MessageType.Complete:
        this.complete(message.id);
        return;
    }
  }

  closed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.clearTimers();
    for (const operation of this.operations.values()) this.end(operation);
    this.operations.clear();
  }

  /** Authenticates with a credential from the payload, else from the upgrade request's headers. */
  private connectionInit(payload: Readonly<Record<string, unknown>> | null): void {
    if (this.initReceived) {
      this.close(WebSocketCloseCode.TooManyInitialisationRequests, WebSocketCloseReason.TooManyInitialisationRequests);
      return;
    }
    this.initReceived = true;
    this.connectionParams = payload;
    const headers = credentialHeaders(payload, this.upgrade.headers);
    if (headers.kind === 'refused') {
      this.close(headers.code, headers.reason);
      return;
    }
    let outcome: ReturnType<OperationPipeline<Raw>['authenticate']>;
    try {
      outcome = this.pipeline.authenticate(headers.headers);
    } catch {
      // An authenticator failed (a fault, not a refusal): as if it had rejected.
      this.close(WebSocketCloseCode.InternalServerError, WebSocketCloseReason.InternalServerError);
      return;
    }
    if (outcome instanceof Promise) {
      outcome.then(
        (settled) => this.authenticated(settled),
        () => this.close(WebSocketCloseCode.InternalServerError, WebSocketCloseReason.InternalServerError),
      );
    } else {
      this.authenticated(outcome);
    }
  }

  private authenticated(outcome: Identity | AuthError): void {
    if (this.isClosed) return;
    if (outcome instanceof AuthError) {
      // 503 (the issuer could not be asked) is not the client's fault, but the socket cannot
      // wait: 4500 tells it to try again, 4403 that its credential was refused.
      if (outcome.status === 503) {
        this.close(WebSocketCloseCode.InternalServerError, `Forbidden: ${outcome.message}`);
        return;
      }
      this.refused(outcome);
      return;
    }
    if (this.initTimer !== null) clearTimeout(this.initTimer);
    this.initTimer = null;
    this.identity = outcome;
    // A credential that expires while the socket is open ends the connection then.
    if (outcome.expiresAt !== null) {
      const remaining = outcome.expiresAt - Date.now();
      if (remaining < 2 ** 31) {
        this.expiryTimer = setTimeout(() => this.close(WebSocketCloseCode.Forbidden, 'Forbidden: the credential expired'), remaining);
      }
    }
    this.send({ type: MessageType.ConnectionAck });
  }

  /**
   * A credential refused: charged to the client's address as over HTTP, so that guessing
   * credentials over sockets costs the same budget. The socket closes with 4403 either way; its
   * reason says when the budget is spent.
   */
  private refused(error: AuthError): void {
    const closeWith = (refusal: RateRefusal | null) =>
      this.close(WebSocketCloseCode.Forbidden, refusal === null ? `Forbidden: ${error.message}` : `Forbidden: ${refusal.message}`);
    let charged: ReturnType<OperationPipeline<Raw>['charge']>;
    try {
      charged = this.pipeline.charge(ANONYMOUS, this.upgrade.client ?? {});
    } catch {
      closeWith(null);
      return;
    }
    if (charged instanceof Promise) charged.then(closeWith, () => closeWith(null));
    else closeWith(charged);
  }

  private subscribe(id: string, params: RequestParams, size: number): void {
    const identity = this.identity;
    if (identity === null) {
      this.close(WebSocketCloseCode.Unauthorized, WebSocketCloseReason.Unauthorized);
      return;
    }
    if (this.operations.has(id)) {
      this.close(WebSocketCloseCode.SubscriberAlreadyExists, `Subscriber for ${truncate(id, 80)} already exists`);
      return;
    }
    if (this.operations.size >= this.maxOperations) {
      const error = codedError(
        `This connection already runs ${this.maxOperations} operations; complete one before starting another.`,
        ErrorCode.TooManySubscriptions,
      );
      this.send({ id, type: MessageType.Error, payload: [error] });
      return;
    }
    const operation: Operation = { stream: null, subscription: false, ended: false };
    this.operations.set(id, operation);
    const request: OperationRequest<Raw> = {
      params,
      identity,
      raw: this.upgrade.raw,
      readOnly: false,
      streams: true,
      incremental: 'current',
      connectionParams: this.connectionParams ?? undefined,
      client: this.upgrade.client,
      // The message is the operation's own: charged by its size.
      size,
      upgradeHeaders: this.upgrade.headers,
    };
    let running: ReturnType<OperationPipeline<Raw>['run']>;
    try {
      running = this.pipeline.run(request);
    } catch (error) {
      // The context factory (or something else of the server's) threw: this operation fails.
      this.failed(id, operation, error);
      return;
    }
    Promise.resolve(running).then(
      (outcome) => this.settled(id, operation, outcome),
      (error: unknown) => this.failed(id, operation, error),
    );
  }

  /** What an operation came to, sent as the protocol says: its stream, one result and complete, or an error. */
  private settled(id: string, operation: Operation, outcome: OperationOutcome): void {
    if (outcome.kind === 'stream') {
      this.stream(id, operation, outcome.stream, true);
      return;
    }
    if (outcome.kind === 'incremental') {
      // A payload per next message, then complete: sent as a subscription's results are.
      this.stream(id, operation, incrementalPayloads(outcome) as AsyncGenerator<ExecutionResult, void, void>, false);
      return;
    }
    // Completed by the client while it ran: nothing more is sent for it.
    if (operation.ended) {
      this.forget(id, operation);
      return;
    }
    switch (outcome.kind) {
      case 'notAllowed':
        this.forget(id, operation);
        return;
      case 'rateLimited': {
        // Over the limit (or the limiter's store away): this subscribe is refused, the connection stays.
        const { refusal } = outcome;
        this.finish(id, operation, { id, type: MessageType.Error, payload: [codedError(refusal.message, refusal.code, { retryAfter: refusal.retryAfter })] });
        if (refusal.holdMs > 0) this.socket.holdReading?.(refusal.holdMs);
        return;
      }
      case 'result':
        if (outcome.requestError) {
          this.finish(id, operation, { id, type: MessageType.Error, payload: outcome.result.errors ?? [] });
        } else {
          this.send({ id, type: MessageType.Next, payload: outcome.result });
          this.finish(id, operation, { id, type: MessageType.Complete });
        }
        return;
      default:
        unreachable(outcome);
    }
  }

  /** Sends a subscription's results as they come, until it ends, fails, or is completed by the client. */
  private stream(id: string, operation: Operation, stream: AsyncGenerator<ExecutionResult, void, void>, subscription: boolean): void {
    operation.stream = stream;
    if (operation.ended) {
      void stream.return();
      return;
    }
    // A subscription is counted until end(), which every way out of a streaming operation goes through.
    operation.subscription = subscription;
    if (subscription) this.streaming++;
    // Only the result's text differs from one next message to the next (and it is made once for
    // every subscriber of a shared subscription).
    const head = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
    const pump = (): void => {
      stream.next().then(
        (step) => {
          if (operation.ended) return;
          if (step.done === true) {
            this.finish(id, operation, { id, type: MessageType.Complete });
            return;
          }
          if (!this.isClosed) this.socket.send(head + sharedResultText(step.value) + '}');
          pump();
        },
        (error: unknown) => this.failed(id, operation, error),
      );
    };
    pump();
  }

  /** A source stream or execution failed: an `error` message ends the operation (the pipeline masks and logs a fault). */
  private failed(id: string, operation: Operation, error: unknown): void {
    if (operation.ended) return;
    this.finish(id, operation, { id, type: MessageType.Error, payload: [this.pipeline.streamError(error)] });
  }

  private complete(id: string): void {
    const operation = this.operations.get(id);
    if (operation === undefined) return;
    this.forget(id, operation);
  }

  /** Sends the operation's last message, then forgets it. */
  private finish(id: string, operation: Operation, last: object): void {
    if (operation.ended) return;
    this.send(last);
    this.forget(id, operation);
  }

  private forget(id: string, operation: Operation): void {
    this.end(operation);
    if (this.operations.get(id) === operation) this.operations.delete(id);
  }

  /** Marks an operation ended and closes its source stream, so the publisher can clean up. */
  private end(operation: Operation): void {
    if (operation.ended) return;
    operation.ended = true;
    if (operation.stream !== null) {
      if (operation.subscription) this.streaming--;
      void operation.stream.return().catch(() => undefined);
    }
  }

  /**
   * Answers a ping with its payload, as the protocol allows. JSON.parse reads nesting deeper than
   * JSON.stringify can write back (it runs out of stack past a few thousand levels): a payload
   * that cannot be echoed is a message the server cannot take, refused like any other.
   */
  private pong(payload: unknown): void {
    if (payload === undefined) {
      this.send({ type: MessageType.Pong });
      return;
    }
    let text: string;
    try {
      text = JSON.stringify({ type: MessageType.Pong, payload });
    } catch {
      this.close(WebSocketCloseCode.BadRequest, 'Invalid message received: the ping payload nests too deeply to echo');
      return;
    }
    if (!this.isClosed) this.socket.send(text);
  }

  private send(message: object): void {
    if (!this.isClosed) this.socket.send(JSON.stringify(message));
  }

  private close(code: number, reason: string): void {
    if (this.isClosed) return;
    this.socket.close(code, truncate(reason, 123));
    this.closed();
  }

  private clearTimers(): void {
    if (this.initTimer !== null) clearTimeout(this.initTimer);
    if (this.expiryTimer !== null) clearTimeout(this.expiryTimer);
    this.initTimer = this.expiryTimer = null;
  }
}

type ClientMessage =
  | { type: 'connection_init'; payload: Readonly<Record<string, unknown>> | null }
  | { type: 'ping' | 'pong'; payload: Readonly<Record<string, unknown>> | undefined }
  | { type: 'subscribe'; id: string; payload: RequestParams }
  | { type: 'complete'; id: string };

/** A client message, checked for its shape; a string says what is wrong with it (the 4400 reason). */
function parseMessage(text: string): ClientMessage | string {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return 'Invalid message received: not JSON';
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return 'Invalid message received: not an object';
  const { type, id, payload } = message as Record<string, unknown>;
  if (typeof type !== 'string') return 'Invalid message received: "type" must be a string';
  switch (type) {
    case MessageType.ConnectionInit:
      if (payload !== undefined && payload !== null && !isObject(payload)) return 'Invalid message received: connection_init payload must be an object';
      return repeatedKeyReason(text) ?? { type, payload: (payload ?? null) as Readonly<Record<string, unknown>> | null };
    case MessageType.Ping:
    case MessageType.Pong:
      if (payload !== undefined && payload !== null && !isObject(payload)) return `Invalid message received: ${type} payload must be an object`;
      return { type, payload: (payload ?? undefined) as Readonly<Record<string, unknown>> | undefined };
    case MessageType.Subscribe: {
      if (typeof id !== 'string' || id === '') return 'Invalid message received: subscribe needs a non-empty string "id"';
      const params = subscribeParams(payload);
      return typeof params === 'string' ? params : { type, id, payload: params };
    }
    case MessageType.Complete:
      if (typeof id !== 'string' || id === '') return 'Invalid message received: complete needs a non-empty string "id"';
      return { type, id };
    default:
      return `Invalid message received: unexpected type "${truncate(type, 40)}"`;
  }
}

/**
 * connection_init carries credentials: a key written twice in it (JSON.parse would keep the last,
 * silently) is a malformed message, 4400, as a header sent twice is a malformed request over HTTP.
 * Scanned once per connection, after JSON.parse accepted the text.
 */
function repeatedKeyReason(text: string): string | null {
  const key = duplicateJsonKey(text);
  return key === null ? null : `Invalid message received: connection_init names "${truncate(key, 40)}" twice; send each member once`;
}

function subscribeParams(payload: unknown): RequestParams | string {
  if (!isObject(payload)) return 'Invalid message received: subscribe payload must be an object';
  const { query, operationName, variables, extensions } = payload;
  if (typeof query !== 'string') return 'Invalid message received: subscribe payload needs a string "query"';
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return 'Invalid message received: "operationName" must be a string or null';
  }
  if (variables !== undefined && variables !== null && !isObject(variables)) return 'Invalid message received: "variables" must be an object or null';
  if (extensions !== undefined && extensions !== null && !isObject(extensions)) return 'Invalid message received: "extensions" must be an object or null';
  const params = { query, operationName: operationName ?? null, variables: (variables ?? null) as Record<string, unknown> | null };
  return extensions == null ? params : { ...params, extensions: extensions as Record<string, unknown> };
}

/**
 * The headers authentication reads: the upgrade request's, with a credential from the
 * connection_init payload in place of theirs when it has one (browsers cannot set headers on a
 * WebSocket). The payload may carry `authorization` or `x-api-key` (any case), or a `headers`
 * object of them, as graphql-ws clients' connectionParams often do (credentials.ts reads them).
 * One credential named twice (`Authorization` and `authorization`) is a malformed message,
 * 4400, as a repeated header is a malformed request over HTTP; a credential that is not a
 * string is a refused credential, 4403.
 */
function credentialHeaders(
  payload: Readonly<Record<string, unknown>> | null,
  headers: RequestHeaders,
): { kind: 'headers'; headers: RequestHeaders } | { kind: 'refused'; code: number; reason: string } {
  if (payload === null) return { kind: 'headers', headers };
  const credential = readParamsCredential(payload);
  switch (credential.kind) {
    case 'none':
      return { kind: 'headers', headers };
    case 'found':
      return { kind: 'headers', headers: { ...headers, authorization: credential.authorization, 'x-api-key': credential.apiKey } };
    case 'repeated': {
      const [first, second] = credential.names;
      return {
        kind: 'refused',
        code: WebSocketCloseCode.BadRequest,
        reason: `Invalid message received: connection_init sends "${first}" and "${second}"; send one credential`,
      };
    }
    case 'notString':
      return { kind: 'refused', code: WebSocketCloseCode.Forbidden, reason: `Forbidden: the credential in connection_init ("${credential.name}") must be a string` };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** At most `bytes` bytes of UTF-8, cut at a character boundary. */
function truncate(text: string, bytes: number): string {
  let cut = text.length > bytes ? text.slice(0, bytes) : text;
  while (Buffer.byteLength(cut) > bytes) cut = cut.slice(0, -1);
  return cut;
}


