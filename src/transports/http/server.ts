/**
 * createServer: the node:http (or node:https) adapter around the transport-free handler.
 *
 * It only converts: node request -> PlainRequest, `[body, init]` -> node response. What it
 * owns is what only a socket can know:
 *  - where a request goes, asked of the handler's router once, before its body is read: the
 *    operational routes (/healthz, /readyz, /metrics) are answered here, without a body;
 *  - the body size limit and UTF-8 decoding (bodyReader.ts);
 *  - writing answers and event streams (responseWriter.ts), request logs and metrics;
 *  - the client going away, which aborts the request's signal (and so its execution);
 *  - header and request timeouts against slow clients; TLS 1.2+;
 *  - requests node's parser refuses, answered in JSON with a code like every other refusal;
 *  - graceful shutdown: stop accepting, let in-flight requests finish within a grace period.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode, errorBody, httpStatus } from '../../errors/codes.ts';
import type { PromiseOrValue } from '../../jsutils/promiseOrValue.ts';
import { OperationalRoutes } from '../../observability/endpoints.ts';
import type { MetricsOptions } from '../../observability/endpoints.ts';
import { Readiness } from '../../observability/health.ts';
import type { ReadinessCheck } from '../../observability/health.ts';
import type { LogEntry } from '../../observability/logEntry.ts';
import { ServerMetrics } from '../../observability/metrics.ts';
import { RequestObserver } from '../../observability/observedRequest.ts';
import { JsonLogger } from '../../observability/requestLog.ts';
import { telemetry } from '../../observability/openTelemetry.ts';
import type { Telemetry } from '../../observability/openTelemetry.ts';
import type { LogDestination, LogLevel } from '../../observability/requestLog.ts';
import { attachWebSocket } from '../ws/server.ts';
import type { WebSocketOptions, WebSocketTransport } from '../ws/server.ts';
import { BodyReader } from './bodyReader.ts';
import { answerClientError } from './clientError.ts';
import { EventStream } from './eventStream.ts';
import { createHandler } from './handler.ts';
import { announceListening } from './listening.ts';
import type { Handler, HandlerOptions, HandlerResponse } from './handler.ts';
import type { OperationPipeline } from '../../server/pipeline.ts';
import { NodeRequest } from './nodeRequest.ts';
import { ResponseWriter } from './responseWriter.ts';
import type { Route, Router } from './router.ts';
import { JSON_CONTENT_TYPE as JSON_RESPONSE } from '../../jsutils/jsonContentType.ts';

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
  /**
   * Where log lines go: a function of each line, a stream, or `{ fd }` (default: standard output,
   * written asynchronously). Besides the levels' lines, at every level but `silent`: one line
   * once the server listens (`graphql-glassbox listening on http://127.0.0.1:4000/graphql`), and
   * one that says what to do when it cannot (a port in use: listening.ts).
   */
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


export function createServer(options: ServerOptions): GraphQLServer {
  const logger = new JsonLogger(options.logLevel, options.logger);
  const adapter = new NodeAdapter(options, logger);
  const maxHeaderSize = options.maxHeaderBytes ?? 80 * 1024;
  const server = (
    options.tls
      ? https.createServer({ key: options.tls.key, cert: options.tls.cert, minVersion: 'TLSv1.2', maxHeaderSize }, adapter.onRequest)
      : http.createServer({ maxHeaderSize }, adapter.onRequest)
  ) as GraphQLServer;
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => answerClientError(error, socket, maxHeaderSize));
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  adapter.server = server;
  const path = options.path ?? '/graphql';
  const websocket = options.websocket === false ? null : attachWebSocket(server, adapter.handle.pipeline, path, { allowedOrigins: allowedOrigins(options), ...options.websocket });
  adapter.websocket = websocket;
  Object.defineProperty(server, 'websocket', { value: websocket });
  server.shutdown = shutdownOf(server, adapter, logger, options);
  announceListening(server, logger, path, options.tls !== undefined);
  return server;
}

/** The node server's request listener, and what it answers by itself. */
class NodeAdapter {
  readonly handle: Handler<IncomingMessage>;
  /** The handler's router, held here: read on every request. */
  private readonly router: Router;
  server: GraphQLServer | null = null;
  websocket: WebSocketTransport | null = null;
  readonly writer: ResponseWriter;
  readonly readiness: Readiness;
  private readonly log: (entry: LogEntry) => void;
  private readonly metrics: ServerMetrics | null;
  /** Requests are observed (timed, counted, logged) when anything reads what is observed. */
  private readonly observer: RequestObserver | null;
  private readonly reader: BodyReader;
  /** The endpoint's path: a GraphQL request span's `http.route`. */
  private readonly path: string;

  constructor(options: ServerOptions, logger: JsonLogger) {
    this.path = options.path ?? '/graphql';
    // The pipeline's errors go to the same JSON lines, unless the server was given a log of its own.
    this.log = options.log ?? logger.entry;
    this.metrics = options.metrics === false ? null : new ServerMetrics();
    this.observer = this.metrics !== null || logger.requests ? new RequestObserver(this.metrics, logger) : null;
    this.writer = new ResponseWriter(this.observer, this.log, () => this.server?.closeIdleConnections());
    // The operational routes are made with the handler's pipeline, whose stores /readyz checks too.
    const readiness = { current: null as Readiness | null };
    const operational = (pipeline: OperationPipeline<IncomingMessage>) => {
      readiness.current = new Readiness([...pipeline.readiness, ...(options.readinessChecks ?? [])]);
      return new OperationalRoutes(options.health !== false, options.metrics, readiness.current, this.metrics, () => ({
        cacheCounts: pipeline.cacheCounts,
        errorCounts: pipeline.errorCounts,
        rateLimited: pipeline.rateLimiter?.refused ?? null,
        websocketSubscriptions: this.websocket?.subscriptions ?? 0,
        sseSubscriptions: countSubscriptions(this.writer.eventStreams),
        logLinesDropped: logger.dropped,
      }));
    };
    this.handle = createHandler<IncomingMessage>({ ...options, log: this.log, subscriptionsOverWebSocket: options.websocket !== false }, operational);
    if (readiness.current === null) throw new Error('createHandler made no operational routes.');
    this.readiness = readiness.current;
    this.router = this.handle.router;
    this.reader = new BodyReader(options.maxBodyBytes ?? 1_048_576, { received: this.dispatch, refuse: this.fail, inTurn: this.inTurn });
  }

  /** A request: routed once; the operational routes answered at once, any other once its body is read. */
  readonly onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    // The request's clock, handed along to its answer (nothing is added to node's objects:
    // a field more on every request makes V8 deoptimize node's stream code).
    const startedAt = this.observer === null ? 0 : performance.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const headers = req.headers;
    const route = this.router.route(method, url, headers);
    if (route.kind === 'operational') {
      const [status, answerHeaders, body] = route.answer;
      // The server's own routes are no GraphQL requests: a request line at debug only.
      this.observer?.operational(method, url, headers, startedAt, status, answerHeaders);
      this.writer.respond(res, status, answerHeaders, body, null);
      return;
    }
    const request = new NodeRequest(req, res, method, url, headers, startedAt, route);
    const otel = telemetry();
    if (otel !== null) this.traced(otel, request, route);
    this.reader.read(request);
  };

  /** The request's server span, ended when its response closes (an event stream's too). */
  private traced(otel: Telemetry, request: NodeRequest, route: Route): void {
    const span = otel.httpServerSpan(request.method, request.url, request.headers, route.kind === 'graphql' ? this.path : null);
    request.span = span;
    const res = request.res;
    // 'close' is emitted once: `on` spares the wrapper `once` makes.
    res.on('close', () => otel.endHttp(span, res.writableFinished ? res.statusCode : 499));
  }

  /**
   * A large body's work (bodyReader.ts LARGE_BODY) in its client's turn of the preparation queue
   * (server/preparationQueue.ts), by address: who the caller is is not known before the body is read.
   */
  private readonly inTurn = (request: NodeRequest, job: () => void): void => {
    const pipeline = this.handle.pipeline;
    void pipeline.preparation.runOrQueue(() => pipeline.addressOf({ remoteAddress: request.remoteAddress, forwardedFor: request.headers['x-forwarded-for'] }), job);
  };

  /**
   * Hands a request with its body (null: none) to the handler, and its answer to the client. A
   * synchronous answer is written at once, with no promise in between.
   */
  private readonly dispatch = (request: NodeRequest): void => {
    // Traced: handled with its server span active, the parent of its operations' spans.
    const otel = request.span === null ? null : telemetry();
    if (otel !== null) otel.within(request.span as Parameters<Telemetry['within']>[0], () => this.dispatchNow(request));
    else this.dispatchNow(request);
  };

  private dispatchNow(request: NodeRequest): void {
    let answer: PromiseOrValue<HandlerResponse>;
    try {
      answer = this.handle(request, request.route);
    } catch (error) {
      this.failOutside(request, error);
      return;
    }
    if (!(answer instanceof Promise)) {
      this.write(request, answer);
      return;
    }
    const metrics = this.metrics;
    // Only an answer still to come can be in flight when the metrics are read.
    if (metrics !== null) metrics.inFlight++;
    answer.then(
      (settled) => {
        if (metrics !== null) metrics.inFlight--;
        this.write(request, settled);
      },
      (error: unknown) => {
        if (metrics !== null) metrics.inFlight--;
        this.failOutside(request, error);
      },
    );
  }

  /** The handler's answer, written now, or once its hold is over (a client over its rate limit). */
  private write(request: NodeRequest, answer: HandlerResponse): void {
    // Indexed rather than destructured: destructuring an array goes through its iterator.
    const init = answer[1];
    const holdMs = init.holdMs;
    if (holdMs !== undefined && holdMs > 0) this.writer.hold(holdMs, request.res, init.status, init.headers, answer[0], request);
    else this.writer.respond(request.res, init.status, init.headers, answer[0], request);
  }

  /** An answer the server writes itself, with the headers the handler adds to every answer (CORS). */
  private readonly fail = (request: NodeRequest, code: ErrorCode, message: string, closeConnection = false): void => {
    const headers: Record<string, string> = { 'content-type': JSON_RESPONSE, ...this.handle.headersFor(request.headers) };
    if (closeConnection) headers['connection'] = 'close';
    this.writer.respond(request.res, httpStatus(code), headers, errorBody(code, message), this.observer === null ? null : request);
  };

  private failOutside(request: NodeRequest, error: unknown): void {
    this.log({ level: 'error', message: 'The server failed outside execution.', error });
    this.fail(request, ErrorCode.InternalServerError, 'The server failed to handle the request.');
  }
}

/**
 * shutdown(): unready at once (/readyz 503); serving as before for shutdownDelayMs, so that load
 * balancers stop sending first; then no new connections, in-flight requests finished within the
 * grace period, subscriptions ended, and the pipeline's stores and the log closed.
 */
function shutdownOf(server: GraphQLServer, adapter: NodeAdapter, logger: JsonLogger, options: ServerOptions): () => Promise<void> {
  const shutdownDelayMs = options.shutdownDelayMs ?? 0;
  if (!Number.isInteger(shutdownDelayMs) || shutdownDelayMs < 0) throw new TypeError(`shutdownDelayMs must be a whole number of milliseconds, got ${String(shutdownDelayMs)}.`);
  const graceMs = options.shutdownGraceMs ?? 10_000;
  const stop = (): Promise<void> => {
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
    adapter.writer.closing = true;
    // Answers held for clients over their rate limit are written now (each closes its connection).
    adapter.writer.releaseHeld();
    server.closeIdleConnections();
    // (An incremental delivery sent as events is an in-flight request: it finishes within the grace period.)
    for (const events of adapter.writer.eventStreams) if (events.subscription) events.finish();
    // Once nothing runs any more: the rate limiter's and persisted queries' stores (Redis connections, timers); the last log lines.
    return Promise.all([httpClosed, adapter.websocket?.shutdown(graceMs)])
      .then(() => adapter.handle.pipeline.close())
      .then(() => logger.flush());
  };
  return () => {
    adapter.readiness.shuttingDown = true;
    if (shutdownDelayMs === 0) return stop();
    return new Promise<void>((resolve) => setTimeout(resolve, shutdownDelayMs)).then(stop);
  };
}

/**
 * The origins whose pages may open a WebSocket (WebSocketOptions.allowedOrigins): the CORS
 * origins when there are some; without CORS, the server's own only (csrfPrevention, on by
 * default); with `csrfPrevention: false` and no CORS, any (browser protection was turned off).
 */
function allowedOrigins(options: ServerOptions): ReadonlyArray<string> | '*' | undefined {
  if (options.cors !== undefined) return options.cors.origins;
  if (options.csrfPrevention !== false) return [];
  return undefined;
}

/** Event streams that serve a subscription (not a single result sent as events). */
function countSubscriptions(streams: Iterable<EventStream>): number {
  let count = 0;
  for (const stream of streams) if (stream.subscription) count++;
  return count;
}
