/**
 * Per-request bookkeeping for metrics and request logs, at the cost of a few field writes and
 * two clock readings.
 *
 * The server's own request object (server.ts's NodeRequest, one per request anyway) carries
 * what is observed: when the request arrived, the operation it ran, its id. Nothing is added
 * to node's request or response: a field more on those makes V8 see new shapes in node's
 * stream code and deoptimize it, which costs more than all of this (a subclass of
 * IncomingMessage, or properties added to one, would do the same).
 *
 * RequestObserver is what the server calls once per answer: the duration (the second and last
 * performance.now() of the request), the metrics (integer-indexed increments), and, only when
 * request lines are on, the request id header and the line.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { JsonLogger, LoggedOperation } from './requestLog.ts';
import { requestIdFrom } from './requestLog.ts';
import { idsOf } from './openTelemetry.ts';
import type { ServerMetrics } from './metrics.ts';
import { UNKNOWN_OPERATION, operationTypeIndex } from './metrics.ts';

/** What the observer reads of a request. */
export interface ObservedRequest {
  readonly method: string;
  /** Path and query string; the query string is never logged. */
  readonly url: string;
  /** performance.now() when the server was given the request. */
  readonly startedAt: number;
  /** The operation it ran (a batch's first), once known. */
  readonly operation: LoggedOperation | null;
  /** Its X-Request-ID when sane, else one made on first read. */
  readonly requestId: string;
  /** Its OpenTelemetry server span, when traced (null: not). */
  readonly span: unknown;
}

/** What is done once per answered request. */
export class RequestObserver {
  constructor(
    private readonly metrics: ServerMetrics | null,
    private readonly logger: JsonLogger,
  ) {}

  /**
   * A request is answered with `status` (499: the client left first; nothing is written then).
   * Adds the x-request-id header when request lines are on: call it before the headers are written.
   */
  answered(request: ObservedRequest, status: number, headers: Record<string, string> | null, body: unknown): void {
    const durationMs = performance.now() - request.startedAt;
    const operation = request.operation;
    const metrics = this.metrics;
    if (metrics !== null) {
      metrics.observe(operation === null ? UNKNOWN_OPERATION : operationTypeIndex(operation.operationType), status, durationMs);
      // A request that reached an operation had its errors counted by the pipeline, where they were made.
      if (operation === null && typeof body === 'string') metrics.countRefusal(body);
    }
    const logger = this.logger;
    if (logger.requests) {
      const requestId = request.requestId;
      if (headers !== null) headers['x-request-id'] = requestId;
      logger.request(request.method, request.url, status, durationMs, requestId, operation, 'info', request.span === null ? null : idsOf(request.span));
    }
  }

  /** One of the server's own routes (probes, metrics) answered: no GraphQL request, a request line at debug only. */
  operational(method: string, url: string, requestHeaders: IncomingHttpHeaders, startedAt: number, status: number, headers: Record<string, string>): void {
    const logger = this.logger;
    if (!logger.operationalRequests) return;
    const requestId = requestIdFrom(requestHeaders['x-request-id']);
    headers['x-request-id'] = requestId;
    logger.request(method, url, status, performance.now() - startedAt, requestId, null, 'debug');
  }
}
