/**
 * createServer: the node:http (or node:https) adapter around the transport-free handler.
 *
 * It only converts: node request -> PlainRequest, `[body, init]` -> node response. What it
 * owns is what only a socket can know:
 *  - the body size limit, enforced while reading (413 before a large body is buffered);
 *  - UTF-8 decoding of the body (400 INVALID_UTF8 for bytes that are not UTF-8);
 *  - the client going away, which aborts the request's signal (and so its execution);
 *  - header and request timeouts against slow clients; TLS 1.2+;
 *  - requests node's parser refuses, answered in JSON with a code like every other refusal;
 *  - graceful shutdown: stop accepting, let in-flight requests finish within a grace period;
 *  - the operational routes (/healthz, /readyz, /metrics) and request logs (observability/).
 */
import http from 'node:http';
import https from 'node:https';
import { isUtf8 } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { answerClientError } from './clientError.ts';
import { createHandler } from './handler.ts';
import type { HandlerOptions, HandlerResponse, PlainRequest } from './handler.ts';
import { EventStream } from './eventStream.ts';
import { attachWebSocket } from '../ws/server.ts';
import type { WebSocketOptions, WebSocketTransport } from '../ws/server.ts';
import { HttpErrorCode, httpErrorBody } from '../../errors/codes.ts';
import type { HttpError } from '../../errors/codes.ts';
import { OperationalRoutes } from '../../observability/endpoints.ts';
import type { MetricsOptions } from '../../observability/endpoints.ts';
import { Readiness } from '../../observability/health.ts';
import type { ReadinessCheck } from '../../observability/health.ts';
import { ServerMetrics } from '../../observability/metrics.ts';
import { RequestObserver } from '../../observability/observedRequest.ts';
import type { ObservedRequest } from '../../observability/observedRequest.ts';
import { JsonLogger, requestIdFrom } from '../../observability/requestLog.ts';
import type { LogDestination, LogLevel, LoggedOperation } from '../../observability/requestLog.ts';

export interface ServerOptions extends HandlerOptions<IncomingMessage> {
  /** Largest request body accepted, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Largest header block accepted, in bytes (default 80 KiB; node's own default is 16 KiB). Past
   * it the answer is 431 HEADERS_TOO_LARGE, before any handler runs; below it an oversized credential reaches
   * authentication and gets a 401 that says what is wrong with it.
   */
  maxHeaderBytes?: number;
  /** Time allowed for a client to send its headers (default 10 s). */
  headersTimeoutMs?: number;
  /** Time allowed for a client to send its whole request (default 30 s). */
  requestTimeoutMs?: number;
  /** Serve HTTPS (TLS 1.2 or 1.3 only) with this key and certificate. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** How long `shutdown()` waits for in-flight requests before closing their connections (default 10 s). */
  shutdownGraceMs?: number;
  /**
   * GraphQL over WebSocket (graphql-transport-ws) on the same port and path, with its limits;
   * `false` turns it off (default on).
   */
  websocket?: WebSocketOptions | false;
  /**
   * How long `shutdown()` keeps serving, with /readyz answering 503, before it stops accepting
   * connections (default 0): the time a load balancer needs to see the instance unready.
   */
  shutdownDelayMs?: number;
  /** `GET /healthz` (liveness) and `GET /readyz` (readiness) (default on; see docs/operations.md). */
  health?: boolean;
  /** What else /readyz checks: a Redis pub/sub's or webhook store's `readiness`, or checks of your own. */
  readinessChecks?: ReadonlyArray<ReadinessCheck>;
  /** Prometheus metrics at `/metrics` (default on; `{ path, token }` to move them or require a bearer token). */
  metrics?: boolean | MetricsOptions;
  /**
   * What is logged, as JSON lines (default `'warn'`: errors and warnings; `'info'` adds a line
   * per request, `'debug'` the probes and scrapes too).
   */
  logLevel?: LogLevel;
  /** Where log lines go: a function of each line, a stream, or `{ fd }` (default: standard output, written asynchronously). */
  logger?: LogDestination;
}

export interface GraphQLServer extends http.Server {
  /**
   * Stops accepting connections, lets in-flight requests finish (within the grace period), then
   * closes (the pipeline's stores too). Subscriptions end at once: WebSockets are closed with 1001, event streams complete.
   */
  shutdown(): Promise<void>;
  /** The WebSocket transport, when on: how many sockets are open. */
  readonly websocket: WebSocketTransport | null;
}

const JSON_RESPONSE = 'application/json; charset=utf-8';

export function createServer(options: ServerOptions): GraphQLServer {
  const logger = new JsonLogger(options.logLevel, options.logger);
  // The pipeline's errors go to the same JSON lines, unless the server was given a log of its own.
  const log = options.log ?? logger.entry;
  const handle = createHandler<IncomingMessage>({ ...options, log, subscriptionsOverWebSocket: options.websocket !== false });
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  const maxBodyDigits = String(maxBodyBytes).length;
  const maxHeaderSize = options.maxHeaderBytes ?? 80 * 1024;
  const metrics = options.metrics === false ? null : new ServerMetrics();
  const readiness = new Readiness([...handle.pipeline.readiness, ...(options.readinessChecks ?? [])]);
  const routes = new OperationalRoutes(options.health !== false, options.metrics, readiness, metrics, () => ({
    cacheCounts: handle.pipeline.cacheCounts,
    rateLimited: handle.pipeline.rateLimiter?.refused ?? null,
    websocketSubscriptions: websocket?.subscriptions ?? 0,
    sseSubscriptions: countSubscriptions(eventStreams),
    logLinesDropped: logger.dropped,
  }));
  // Requests are observed (timed, counted, logged) when anything reads what is observed.
  const observer = metrics !== null || logger.requests ? new RequestObserver(metrics, logger) : null;
  const path = options.path ?? '/graphql';
  // Set by shutdown(): from then on every response closes its connection.
  let closing = false;
  /** Server-Sent Events responses in progress: shutdown ends them. */
  const eventStreams = new Set<EventStream>();

  /** `request`: the answered request, when it is observed (for metrics and its request line). */
  function respond(res: ServerResponse, status: number, headers: Record<string, string>, body: string | null | EventStream, request: NodeRequest | null): void {
    if (res.headersSent || res.destroyed) {
      if (body instanceof EventStream) body.close();
      // The client left before its answer: counted and logged as 499, as proxies do.
      if (observer !== null && request !== null && !res.headersSent) observer.answered(request, 499, null, null);
      return;
    }
    if (observer !== null && request !== null) observer.answered(request, status, headers, body);
    // Shutting down: the connection closes once this response is out, keep-alive or not.
    if (closing) headers['connection'] = 'close';
    if (body instanceof EventStream) {
      writeEvents(res, status, headers, body);
    } else if (body === null) {
      res.writeHead(status, headers);
      res.end();
    } else if (body.length <= SHORT_BODY && isAscii(body)) {
      // One byte per character: its length is its size, and it is written as Latin-1, which
      // costs the socket less than encoding UTF-8.
      headers['content-length'] = String(body.length);
      res.writeHead(status, headers);
      res.end(body, 'latin1');
    } else if (body.length < LARGE_BODY) {
      headers['content-length'] = String(Buffer.byteLength(body));
      res.writeHead(status, headers);
      res.end(body);
    } else {
      const buffer = bodyBuffers.take(body.length);
      const { read, written } = encoder.encodeInto(body, buffer);
      if (read === body.length) {
        headers['content-length'] = String(written);
        res.writeHead(status, headers);
        // Once the response is out, the socket no longer holds the bytes: the buffer is free again.
        res.end(buffer.subarray(0, written), () => bodyBuffers.give(buffer));
      } else {
        // Some character takes more than one byte, and the buffer was sized for one each.
        bodyBuffers.give(buffer);
        const bytes = Buffer.from(body, 'utf8');
        headers['content-length'] = String(bytes.length);
        res.writeHead(status, headers);
        res.end(bytes);
      }
    }
  }

  /**
   * Server-Sent Events, written as the stream gives them and never faster than the client reads
   * (the next chunk is asked for once the socket has drained): a client that stops reading
   * stops the stream, whose source then overflows and ends, so nothing piles up here. The
   * client going away closes the stream at its source.
   */
  function writeEvents(res: ServerResponse, status: number, headers: Record<string, string>, events: EventStream): void {
    eventStreams.add(events);
    res.writeHead(status, headers);
    // Clients wait for the headers before anything else: send them now, not with the first event.
    res.flushHeaders();
    res.once('close', () => {
      eventStreams.delete(events);
      events.close();
    });
    const pump = async (): Promise<void> => {
      for (;;) {
        const chunk = await events.next();
        if (chunk === null || res.destroyed) break;
        if (!res.write(chunk)) await drained(res);
      }
      if (!res.destroyed) res.end();
      // Shutting down: this connection, written before, did not say `Connection: close`.
      if (closing) server.closeIdleConnections();
    };
    pump().catch((error: unknown) => {
      log({ level: 'error', message: 'An event stream failed.', error });
      res.destroy();
    });
  }

  /** An answer the server writes itself, with the headers the handler adds to every answer (CORS). */
  function fail(req: IncomingMessage, res: ServerResponse, error: HttpError, message: string, startedAt: number, closeConnection = false): void {
    const headers: Record<string, string> = { 'content-type': JSON_RESPONSE, ...handle.headersFor(req.headers) };
    if (closeConnection) headers['connection'] = 'close';
    respond(res, error[1], headers, httpErrorBody(error, message), observer === null ? null : new NodeRequest(req, res, null, startedAt));
  }

  function failOutside(req: IncomingMessage, res: ServerResponse, error: unknown, startedAt: number): void {
    log({ level: 'error', message: 'The server failed outside execution.', error });
    fail(req, res, HttpErrorCode.InternalServerError, 'The server failed to handle the request.', startedAt);
  }

  /**
   * Hands a request with its body (null: none) to the handler, and its answer to the client. A
   * synchronous answer is written at once, with no promise in between.
   */
  function dispatch(req: IncomingMessage, res: ServerResponse, body: string | null, startedAt: number): void {
    let answer: HandlerResponse | Promise<HandlerResponse>;
    const request = new NodeRequest(req, res, body, startedAt);
    try {
      answer = handle(request);
    } catch (error) {
      failOutside(req, res, error, startedAt);
      return;
    }
    if (answer instanceof Promise) {
      // Only an answer still to come can be in flight when the metrics are read.
      if (metrics !== null) metrics.inFlight++;
      answer.then(
        ([responseBody, init]) => {
          if (metrics !== null) metrics.inFlight--;
          respond(res, init.status, init.headers, responseBody, request);
        },
        (error: unknown) => {
          if (metrics !== null) metrics.inFlight--;
          failOutside(req, res, error, startedAt);
        },
      );
    } else {
      respond(res, answer[1].status, answer[1].headers, answer[0], request);
    }
  }

  /** The whole body has arrived: decode it (UTF-8 only) and dispatch. */
  function bodyReceived(req: IncomingMessage, res: ServerResponse, bytes: Buffer, startedAt: number): void {
    if (bytes.length === 0) {
      dispatch(req, res, null, startedAt);
    } else if (isSmallAscii(bytes)) {
      dispatch(req, res, bytes.toString('latin1'), startedAt);
    } else if (!isUtf8(bytes)) {
      fail(req, res, HttpErrorCode.InvalidUtf8, 'The request body is not valid UTF-8.', startedAt);
    } else {
      dispatch(req, res, bytes.toString('utf8'), startedAt);
    }
  }

  function tooLarge(req: IncomingMessage, res: ServerResponse, startedAt: number): void {
    fail(req, res, HttpErrorCode.PayloadTooLarge, `The request body is larger than ${maxBodyBytes} bytes.`, startedAt, true);
    req.resume();
  }

  /**
   * Streams a request body in, but never more than `maxBodyBytes`: a body that grows past it is
   * abandoned while it streams in (a Content-Length over it was refused in onRequest).
   * Callbacks rather than a promise: most bodies arrive in one chunk, and the request is then
   * answered in the same turn of the event loop that read it.
   */
  function readBody(req: IncomingMessage, res: ServerResponse, startedAt: number): void {
    let first: Buffer | null = null;
    let chunks: Buffer[] | null = null;
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBodyBytes) {
        done = true;
        tooLarge(req, res, startedAt);
      } else if (first === null) {
        first = chunk;
      } else {
        (chunks ??= [first]).push(chunk);
      }
    });
    // A client that leaves mid-body never gets here: there is no one to answer. (With no
    // 'error' listener, node emits no error for it either.)
    req.on('end', () => {
      if (done) return;
      done = true;
      bodyReceived(req, res, chunks !== null ? Buffer.concat(chunks) : (first ?? EMPTY), startedAt);
    });
  }

  /**
   * Most requests arrive whole in one read from the socket: node emits 'request' once the
   * headers are parsed, then parses the body of the same read and keeps it in the request's
   * buffer (nothing is listening yet). In the check phase that follows (setImmediate; a
   * process.nextTick would still run before the body is parsed) the parser is done with that
   * read, so a complete request's body is taken from the buffer in one call, without the
   * listeners, events and closures of streaming it: about 4% of a `{ hello }` request's cost,
   * counted with callgrind. A request still incomplete then (a larger body, a slow client,
   * `Expect: 100-continue`) is streamed by readBody as before, starting with what is buffered.
   */
  function readParsedBody(req: IncomingMessage, res: ServerResponse, startedAt: number): void {
    if (!req.complete) {
      readBody(req, res, startedAt);
      return;
    }
    // All of it is buffered and no larger than the limit (checked against its declared length,
    // which the parser enforces, in onRequest): read() returns it whole, or null if empty.
    const body = req.read() as Buffer | null;
    bodyReceived(req, res, body ?? EMPTY, startedAt);
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    // The request's clock, handed along to its answer (nothing is added to node's objects:
    // a field more on every request makes V8 deoptimize node's stream code).
    const startedAt = observer === null ? 0 : performance.now();
    const url = req.url;
    if (url !== path && routes.any) {
      const answer = routes.answer(req.method ?? 'GET', url ?? '/', req.headers);
      if (answer !== null) {
        // The server's own routes are no GraphQL requests: a request line at debug only.
        if (observer !== null) observer.operational(req.method ?? 'GET', url ?? '/', req.headers, startedAt, answer[0], answer[1]);
        respond(res, answer[0], answer[1], answer[2], null);
        return;
      }
    }
    // POST always has a body to read (an empty one is refused by the handler); other methods
    // when they declare one (PUT, PATCH and DELETE of resource routes; a GET with a body, which
    // the resource routes refuse). A request without one is handled in the check phase too,
    // like a POST's (see readParsedBody): the requests parsed from one turn's reads are then
    // answered one after another, once the parser is done, rather than each in the middle of
    // parsing the next. Running the same code for each in a row costs less: on a GET with a
    // 3.9 KB answer, server CPU per request went from about 51 to 42 µs (bench:http -- route).
    const declaresBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
    if (req.method !== 'POST' && !declaresBody) {
      setImmediate(dispatch, req, res, null, startedAt);
      return;
    }
    const declared = req.headers['content-length'];
    // Shorter than the limit's own digits, a length cannot exceed it (the parser allows digits only).
    if (declared !== undefined && declared.length >= maxBodyDigits && Number(declared) > maxBodyBytes) {
      tooLarge(req, res, startedAt);
      return;
    }
    if (declared !== undefined) setImmediate(readParsedBody, req, res, startedAt);
    else readBody(req, res, startedAt);
  }

  const server = (
    options.tls
      ? https.createServer({ key: options.tls.key, cert: options.tls.cert, minVersion: 'TLSv1.2', maxHeaderSize }, onRequest)
      : http.createServer({ maxHeaderSize }, onRequest)
  ) as GraphQLServer;
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => answerClientError(error, socket, maxHeaderSize));
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  const websocket = options.websocket === false ? null : attachWebSocket(server, handle.pipeline, path, { allowedOrigins: allowedOrigins(options), ...options.websocket });
  Object.defineProperty(server, 'websocket', { value: websocket });

  const shutdownDelayMs = options.shutdownDelayMs ?? 0;
  if (!Number.isInteger(shutdownDelayMs) || shutdownDelayMs < 0) throw new TypeError(`shutdownDelayMs must be a whole number of milliseconds, got ${String(shutdownDelayMs)}.`);
  server.shutdown = () => {
    // Unready at once; serving as before for shutdownDelayMs, so that load balancers stop sending first.
    readiness.shuttingDown = true;
    if (shutdownDelayMs === 0) return stop();
    return new Promise<void>((resolve) => setTimeout(resolve, shutdownDelayMs)).then(stop);
  };

  function stop(): Promise<void> {
    const graceMs = options.shutdownGraceMs ?? 10_000;
    const httpClosed = new Promise<void>((resolve) => {
      const grace = setTimeout(() => server.closeAllConnections(), graceMs);
      server.close(() => {
        clearTimeout(grace);
        resolve();
      });
    });
    // Idle keep-alive connections would hold close() open: end them now. The busy ones end
    // with their response, which says `Connection: close`. Subscriptions have no end of their
    // own: they are ended now (event streams completing, their connections closed once written).
    closing = true;
    server.closeIdleConnections();
    for (const events of eventStreams) events.finish();
    // Once nothing runs any more: the rate limiter's and persisted queries' stores (Redis connections, timers); the last log lines.
    return Promise.all([httpClosed, websocket?.shutdown(graceMs)])
      .then(() => handle.pipeline.close())
      .then(() => logger.flush());
  }
  return server;
}

/**
 * The origins whose pages may open a WebSocket (WebSocketOptions.allowedOrigins): the CORS
 * origins when there are some; under csrfPrevention without CORS, the server's own only; else
 * any (no browser protection was asked for).
 */
function allowedOrigins(options: ServerOptions): ReadonlyArray<string> | '*' | undefined {
  if (options.cors !== undefined) return options.cors.origins;
  if (options.csrfPrevention !== undefined && options.csrfPrevention !== false) return [];
  return undefined;
}

/** Event streams that serve a subscription (not a single result sent as events). */
function countSubscriptions(streams: Iterable<EventStream>): number {
  let count = 0;
  for (const stream of streams) if (stream.subscription) count++;
  return count;
}

const EMPTY = Buffer.alloc(0);

/** Resolves when the response can take more, or has closed (then nothing more will be written). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * A short body of ASCII bytes (the usual small query) is checked here, byte by byte, and read
 * as Latin-1: cheaper than two calls into C++ (validate, then decode) for a few dozen bytes.
 */
function isSmallAscii(bytes: Buffer): boolean {
  if (bytes.length > 512) return false;
  for (let i = 0; i < bytes.length; i++) {
    if ((bytes[i] as number) > 0x7f) return false;
  }
  return true;
}

/**
 * Bodies up to this many characters are checked for ASCII in JavaScript: for a short body that
 * costs less than measuring its UTF-8 size (`Buffer.byteLength`, a call into C++) and encoding
 * it as UTF-8, which an ASCII body does not need.
 */
const SHORT_BODY = 256;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}

/**
 * From this many characters on, a body is encoded to bytes before it is written. A small body
 * goes out as a string, in one write with the headers. A large one would be measured
 * (`Buffer.byteLength`), then copied behind the headers and encoded by the socket: three
 * passes with V8's character-at-a-time encoder. `encodeInto` does it in one pass, with SIMD,
 * into a buffer kept from earlier responses (fresh memory for each one costs more than the
 * encoding). On a 194 KB result that saves about a third of a millisecond per response.
 */
const LARGE_BODY = 16 * 1024;
const encoder = new TextEncoder();

/**
 * Byte buffers for large bodies, reused: a response takes one and gives it back once the socket
 * has taken its bytes. A few are kept, the smallest that fits is used; one lost with a failed
 * socket is simply collected.
 */
class BufferPool {
  private readonly free: Buffer[] = [];
  private static readonly KEPT = 8;
  private static readonly LARGEST_KEPT = 16 * 1024 * 1024;

  /** A buffer of at least `size` bytes. */
  take(size: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const length = (this.free[i] as Buffer).length;
      if (length >= size && (best === -1 || length < (this.free[best] as Buffer).length)) best = i;
    }
    if (best !== -1) return this.free.splice(best, 1)[0] as Buffer;
    // Room to grow: the next, slightly larger response of the same query fits too.
    return Buffer.allocUnsafeSlow(Math.max(size + (size >> 3), LARGE_BODY));
  }

  give(buffer: Buffer): void {
    if (buffer.length > BufferPool.LARGEST_KEPT) return;
    if (this.free.length >= BufferPool.KEPT) this.free.shift();
    this.free.push(buffer);
  }
}

const bodyBuffers = new BufferPool();

/**
 * Node keeps only the first of several Authorization headers and drops the rest. A request
 * that sends two is ambiguous about who is calling, so authentication must see both and refuse
 * it: they are found in the raw headers, and given as a list.
 */
function withEveryAuthorization(req: IncomingMessage): IncomingMessage['headers'] {
  const raw = req.rawHeaders;
  let values: string[] | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 13 && (name === 'Authorization' || name === 'authorization' || name.toLowerCase() === 'authorization')) {
      (values ??= []).push(raw[i + 1] as string);
    }
  }
  if (values === null || values.length < 2) return req.headers;
  return { ...req.headers, authorization: values as unknown as string };
}

/** A node request as the handler sees it: a class, so that no closure is made per request. */
class NodeRequest implements PlainRequest<IncomingMessage>, ObservedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string | null;
  readonly raw: IncomingMessage;
  /** performance.now() when the server was given the request (0 when requests are not observed). */
  readonly startedAt: number;
  /** The operation it ran (a batch's first), once known: for its request line and metrics. */
  operation: LoggedOperation | null;
  private readonly res: ServerResponse;
  private id: string | null;

  constructor(req: IncomingMessage, res: ServerResponse, body: string | null, startedAt: number) {
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
    this.headers = req.headers.authorization === undefined ? req.headers : withEveryAuthorization(req);
    this.body = body;
    this.raw = req;
    this.startedAt = startedAt;
    this.operation = null;
    this.res = res;
    this.id = null;
  }

  /** Its X-Request-ID when sane, else one made on first read. */
  get requestId(): string {
    this.id ??= requestIdFrom(this.headers['x-request-id']);
    return this.id;
  }

  observe(operation: LoggedOperation): void {
    if (this.operation === null) this.operation = operation;
  }

  /** Read only when rate limits count an anonymous caller by address. */
  get remoteAddress(): string | undefined {
    return this.raw.socket.remoteAddress;
  }

  /** The response closing before it was complete means the client went away. */
  onClientGone(callback: () => void): void {
    const res = this.res;
    if (res.closed) {
      if (!res.writableFinished) callback();
      return;
    }
    res.once('close', () => {
      if (!res.writableFinished) callback();
    });
  }

}
