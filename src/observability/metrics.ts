/**
 * The server's metrics, in the Prometheus text exposition format 0.0.4: one registry per
 * server, counters, gauges and one histogram written by hand (no client library to add).
 *
 * Cost is the design. A small request costs the server little CPU (docs/benchmarks.md), so
 * what metrics add to it must be smaller still: a few array increments indexed by integers
 * (operation type × status, histogram bucket) and a comparison or two on the response body;
 * there are no label strings, maps or closures per request. Label sets are made into text only at scrape time, and values that live elsewhere
 * (cache counts, refusals, open subscriptions, memory) are read then, from their owners.
 *
 * Errors are counted by code where they are made (errorCounts.ts): the pipeline counts what its
 * operations return, over every transport; an HTTP refusal made before any operation ran (a
 * credential refused, a body too large, a method not allowed) is counted here from its body,
 * `{"error":{"code":...}}`, one prefix comparison for any other body.
 */
import type { CacheCounts } from './cacheCounts.ts';
import { ErrorCounts, MAX_ERROR_CODES, OTHER_CODE } from './errorCounts.ts';

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Operation types, by index: the label values of `operation`. */
export const OPERATION_TYPES = ['query', 'mutation', 'subscription', 'unknown'] as const;
export const UNKNOWN_OPERATION = 3;

/** The operation type's index (null: not known, the request refused before its document was read). */
export function operationTypeIndex(type: string | null): number {
  return type === 'query' ? 0 : type === 'mutation' ? 1 : type === 'subscription' ? 2 : UNKNOWN_OPERATION;
}

/** Upper bounds of the duration histogram's buckets, in seconds. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** The same in milliseconds, compared with a request's duration as measured (no division per request). */
const BUCKET_MS = DURATION_BUCKETS.map((seconds) => seconds * 1000);
/** Per operation type: one slot per bucket, then one for +Inf. */
const SLOTS = DURATION_BUCKETS.length + 1;
/** Statuses are counted from 100 to 599, by their number. */
const STATUSES = 600;
export { MAX_ERROR_CODES, OTHER_CODE };

/** What the registry reads at scrape time from the parts that own it. */
export interface MetricsSources {
  readonly cacheCounts: CacheCounts;
  /** Errors the pipeline returned, by code (its operations over every transport). */
  readonly errorCounts: ErrorCounts;
  /** Operations refused for being over a rate-limit budget (null: no rate limit). */
  readonly rateLimited: number | null;
  /** Subscriptions being served, by transport. */
  readonly websocketSubscriptions: number;
  readonly sseSubscriptions: number;
  /** Log lines the default destination dropped because it could not keep up. */
  readonly logLinesDropped: number;
}

export class ServerMetrics {
  /** Requests answered, at [type × STATUSES + status]. */
  private readonly requests = new Float64Array(OPERATION_TYPES.length * STATUSES);
  /** Duration observations per bucket (not cumulative), at [type × SLOTS + bucket]. */
  private readonly buckets = new Float64Array(OPERATION_TYPES.length * SLOTS);
  /** Sum of durations per type, in milliseconds. */
  private readonly durationSums = new Float64Array(OPERATION_TYPES.length);
  /** HTTP refusals made before any operation ran, by code. */
  private readonly refusals = new ErrorCounts();
  /** HTTP requests accepted whose answer is still being worked out (kept by the server). */
  inFlight = 0;

  /** One answered request: its operation type's index, its status, and how long it took. */
  observe(type: number, status: number, durationMs: number): void {
    if (status >= 100 && status < STATUSES) this.requests[type * STATUSES + status]++;
    let bucket = 0;
    while (bucket < BUCKET_MS.length && durationMs > (BUCKET_MS[bucket] as number)) bucket++;
    this.buckets[type * SLOTS + bucket]++;
    this.durationSums[type] += durationMs;
  }

  /**
   * Counts the refusal a response body carries: `{"error":{"code":...}}`, the shape of an HTTP
   * refusal. Called only for requests that ran no operation (the pipeline counted those).
   */
  countRefusal(body: string): void {
    if (!body.startsWith('{"error":')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return;
    }
    const error = (parsed as { error?: unknown } | null)?.error;
    if (error !== null && typeof error === 'object') this.refusals.add((error as { code?: unknown }).code);
  }

  /** The exposition text. Never throws: a source that fails is left out. */
  render(sources: MetricsSources): string {
    const out: string[] = [];
    this.renderRequests(out);
    this.renderDurations(out);

    header(out, 'graphql_errors_total', 'counter', `Errors returned to clients, by the code they carried (extensions.code, or error.code of an HTTP failure; at most ${MAX_ERROR_CODES} codes, the rest as ${OTHER_CODE}).`);
    for (const [code, count] of mergedCounts(sources.errorCounts, this.refusals)) out.push(`graphql_errors_total{code="${escapeLabelValue(code)}"} ${count}`);

    header(out, 'graphql_executions_in_flight', 'gauge', 'HTTP GraphQL requests (resource routes included) accepted and not yet answered.');
    out.push(`graphql_executions_in_flight ${this.inFlight}`);

    header(out, 'graphql_subscriptions_open', 'gauge', 'Subscriptions being served, by transport.');
    out.push(`graphql_subscriptions_open{transport="websocket"} ${sources.websocketSubscriptions}`);
    out.push(`graphql_subscriptions_open{transport="sse"} ${sources.sseSubscriptions}`);

    const caches = sources.cacheCounts;
    header(out, 'graphql_cache_requests_total', 'counter', 'Document lookups: parsed-document cache (and known requests), and automatic persisted queries by hash.');
    out.push(`graphql_cache_requests_total{cache="document",result="hit"} ${caches.documentHits}`);
    out.push(`graphql_cache_requests_total{cache="document",result="miss"} ${caches.documentMisses}`);
    out.push(`graphql_cache_requests_total{cache="apq",result="hit"} ${caches.apqHits}`);
    out.push(`graphql_cache_requests_total{cache="apq",result="miss"} ${caches.apqMisses}`);

    header(out, 'graphql_validations_total', 'counter', 'New documents validated, by thread: the event loop\'s, or the validation worker (documents of 1,024 characters or more).');
    out.push(`graphql_validations_total{thread="main"} ${caches.validatedHere}`);
    out.push(`graphql_validations_total{thread="worker"} ${caches.validatedInWorker}`);

    header(out, 'graphql_document_cache_bytes', 'gauge', 'Estimated memory the parsed-document cache holds (bounded by documentCacheBytes).');
    out.push(`graphql_document_cache_bytes ${caches.documentCacheBytes}`);

    header(out, 'graphql_rate_limited_total', 'counter', 'Operations refused for being over a rate-limit budget (429 RATE_LIMITED).');
    out.push(`graphql_rate_limited_total ${sources.rateLimited ?? 0}`);

    header(out, 'graphql_log_lines_dropped_total', 'counter', 'Log lines dropped because their destination could not keep up.');
    out.push(`graphql_log_lines_dropped_total ${sources.logLinesDropped}`);

    renderProcess(out);
    out.push('');
    return out.join('\n');
  }

  private renderRequests(out: string[]): void {
    header(out, 'graphql_requests_total', 'counter', 'GraphQL requests answered over HTTP (resource routes included), by operation type and status.');
    for (let type = 0; type < OPERATION_TYPES.length; type++) {
      for (let status = 100; status < STATUSES; status++) {
        const count = this.requests[type * STATUSES + status] as number;
        if (count > 0) out.push(`graphql_requests_total{operation="${OPERATION_TYPES[type]}",status="${status}"} ${count}`);
      }
    }
  }

  private renderDurations(out: string[]): void {
    header(out, 'graphql_request_duration_seconds', 'histogram', 'Time from a request\'s arrival to its answer (for an event stream, to its headers), by operation type.');
    for (let type = 0; type < OPERATION_TYPES.length; type++) {
      const labels = `operation="${OPERATION_TYPES[type]}"`;
      let cumulative = 0;
      for (let slot = 0; slot < SLOTS; slot++) cumulative += this.buckets[type * SLOTS + slot] as number;
      if (cumulative === 0) continue;
      cumulative = 0;
      for (let slot = 0; slot < SLOTS; slot++) {
        cumulative += this.buckets[type * SLOTS + slot] as number;
        const le = slot < DURATION_BUCKETS.length ? String(DURATION_BUCKETS[slot]) : '+Inf';
        out.push(`graphql_request_duration_seconds_bucket{${labels},le="${le}"} ${cumulative}`);
      }
      out.push(`graphql_request_duration_seconds_sum{${labels}} ${(this.durationSums[type] as number) / 1000}`);
      out.push(`graphql_request_duration_seconds_count{${labels}} ${cumulative}`);
    }
  }
}

/** The pipeline's counts and the server's refusals, as one count per code (OTHER last, as both keep it). */
function mergedCounts(...sources: ErrorCounts[]): Map<string, number> {
  const merged = new Map<string, number>();
  for (const source of sources) for (const [code, count] of source.entries()) merged.set(code, (merged.get(code) ?? 0) + count);
  return merged;
}

/** The process basics, under the names Node's usual Prometheus client gives them (so dashboards for it work). */
function renderProcess(out: string[]): void {
  header(out, 'process_start_time_seconds', 'gauge', 'Start time of the process since the Unix epoch, in seconds.');
  out.push(`process_start_time_seconds ${Math.round(performance.timeOrigin) / 1000}`);
  try {
    const cpu = process.cpuUsage();
    header(out, 'process_cpu_user_seconds_total', 'counter', 'User CPU time spent, in seconds.');
    out.push(`process_cpu_user_seconds_total ${cpu.user / 1e6}`);
    header(out, 'process_cpu_system_seconds_total', 'counter', 'System CPU time spent, in seconds.');
    out.push(`process_cpu_system_seconds_total ${cpu.system / 1e6}`);
    const memory = process.memoryUsage();
    header(out, 'process_resident_memory_bytes', 'gauge', 'Resident memory size, in bytes.');
    out.push(`process_resident_memory_bytes ${memory.rss}`);
    header(out, 'nodejs_heap_size_total_bytes', 'gauge', 'V8 heap size, in bytes.');
    out.push(`nodejs_heap_size_total_bytes ${memory.heapTotal}`);
    header(out, 'nodejs_heap_size_used_bytes', 'gauge', 'V8 heap used, in bytes.');
    out.push(`nodejs_heap_size_used_bytes ${memory.heapUsed}`);
    header(out, 'nodejs_external_memory_bytes', 'gauge', 'Memory of C++ objects bound to JavaScript objects (buffers among them), in bytes.');
    out.push(`nodejs_external_memory_bytes ${memory.external}`);
  } catch {
    // Reading the process's figures can fail (no /proc, too many open files): the rest is still worth a scrape.
  }
}

function header(out: string[], name: string, type: 'counter' | 'gauge' | 'histogram', help: string): void {
  out.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
}

/** A label value as the text format wants it: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/[\\"\n]/g, (char) => (char === '\\' ? '\\\\' : char === '"' ? '\\"' : '\\n')) : value;
}

/** HELP text: backslash and line feed escaped (quotes may stay). */
function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (char) => (char === '\\' ? '\\\\' : '\\n'));
}
