/**
 * The part of autocannon's programmatic API the HTTP benchmark uses. autocannon ships no
 * types of its own, and the benchmark may not add a dependency for them, so the members read
 * by `index.ts` and `instructions.ts` are declared here, as autocannon 8 documents them.
 */
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    /** Concurrent connections, each with at most `pipelining` requests in flight. */
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Requests to send in all, instead of a duration (instructions.ts). */
    amount?: number;
    /** Seconds a request may take before it counts as timed out (default 10). */
    timeout?: number;
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }

  interface Result {
    /** Seconds the run actually lasted. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    /** Milliseconds per request. */
    latency: Histogram;
    /** Requests completed per one-second sample; `total` is every completed request. */
    requests: Histogram & { sent: number };
    /** Bytes received per one-second sample. */
    throughput: Histogram;
  }

  /** Without a callback, the returned tracker is also a promise of the result. */
  function autocannon(options: Options): PromiseLike<Result>;

  export default autocannon;
  export type { Options, Result };
}
