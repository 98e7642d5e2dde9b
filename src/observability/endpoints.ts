/**
 * The server's own routes: `/healthz` (liveness), `/readyz` (readiness) and `/metrics`
 * (Prometheus), answered by the node adapter before the GraphQL handler, so that a probe or a
 * scrape never goes through authentication, rate limits or the request counters it reads.
 *
 * Every answer is `cache-control: no-store` (a cached probe is a lie), GET and HEAD only (405
 * with Allow otherwise), and none of them throws: a scrape during shutdown still answers 200.
 * `/metrics` may require a bearer token (`metrics: { token }`), compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCode, errorBody } from '../errors/codes.ts';
import { LIVE_BODY } from './health.ts';
import type { Readiness } from './health.ts';
import { CONTENT_TYPE } from './metrics.ts';
import type { MetricsSources, ServerMetrics } from './metrics.ts';
import { JSON_CONTENT_TYPE as JSON_TYPE } from '../jsutils/jsonContentType.ts';


export interface MetricsOptions {
  /** Where the metrics are served (default `/metrics`). */
  path?: string;
  /** Require `Authorization: Bearer <token>` to read them (default: none; see docs/operations.md). */
  token?: string;
}

export type RouteAnswer = [status: number, headers: Record<string, string>, body: string];

export class OperationalRoutes {
  private readonly metricsPath: string | null;
  private readonly tokenDigest: Buffer | null;

  constructor(
    private readonly health: boolean,
    metricsOption: boolean | MetricsOptions | undefined,
    private readonly readiness: Readiness,
    private readonly metrics: ServerMetrics | null,
    private readonly sources: () => MetricsSources,
  ) {
    const options = metricsOption === undefined || metricsOption === true ? {} : metricsOption === false ? null : metricsOption;
    if (options !== null && (typeof options !== 'object' || Array.isArray(options))) {
      throw new TypeError(`metrics must be true, false or { path?, token? }, got ${String(metricsOption)}.`);
    }
    this.metricsPath = options === null || metrics === null ? null : (options.path ?? '/metrics');
    if (this.metricsPath !== null && (typeof this.metricsPath !== 'string' || !this.metricsPath.startsWith('/') || this.metricsPath.includes('?'))) {
      throw new TypeError(`metrics.path must be a path such as /metrics, got ${String(this.metricsPath)}.`);
    }
    const token = options?.token;
    if (token !== undefined && (typeof token !== 'string' || token.length < 16 || /\s/.test(token))) {
      throw new TypeError('metrics.token must be a string of at least 16 characters without spaces.');
    }
    this.tokenDigest = token === undefined ? null : digest(token);
  }

  /** Whether any route is served (else the server need not look). */
  get any(): boolean {
    return this.health || this.metricsPath !== null;
  }

  /** The answer to a request for one of these routes, or null when its path is none of them. */
  answer(method: string, url: string, headers: IncomingHttpHeaders): RouteAnswer | null {
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    let route: 'live' | 'ready' | 'metrics';
    if (this.health && path === '/healthz') route = 'live';
    else if (this.health && path === '/readyz') route = 'ready';
    else if (path === this.metricsPath) route = 'metrics';
    else return null;
    if (method !== 'GET' && method !== 'HEAD') {
      return [405, { 'content-type': JSON_TYPE, allow: 'GET, HEAD', 'cache-control': 'no-store' }, errorBody(ErrorCode.MethodNotAllowed, `Method ${method} is not allowed on ${path}; use GET.`)];
    }
    if (route === 'live') return [200, { 'content-type': JSON_TYPE, 'cache-control': 'no-store' }, LIVE_BODY];
    if (route === 'ready') {
      const [status, body] = this.readiness.answer();
      return [status, { 'content-type': JSON_TYPE, 'cache-control': 'no-store' }, body];
    }
    if (this.tokenDigest !== null && !this.authorized(headers['authorization'])) {
      return [
        401,
        { 'content-type': JSON_TYPE, 'cache-control': 'no-store', 'www-authenticate': 'Bearer realm="metrics"' },
        errorBody(ErrorCode.Unauthenticated, 'The metrics need Authorization: Bearer <token>.'),
      ];
    }
    let text: string;
    try {
      text = (this.metrics as ServerMetrics).render(this.sources());
    } catch {
      // Never expected (render catches what may fail); a scrape that fails says so rather than hangs.
      return [500, { 'content-type': JSON_TYPE, 'cache-control': 'no-store' }, errorBody(ErrorCode.InternalServerError, 'The metrics could not be rendered.')];
    }
    return [200, { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' }, text];
  }

  private authorized(authorization: string | undefined): boolean {
    if (authorization === undefined || !/^bearer /i.test(authorization)) return false;
    // Digests of equal length, so that the comparison takes the same time whatever was sent.
    return timingSafeEqual(digest(authorization.slice(7).trim()), this.tokenDigest as Buffer);
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
