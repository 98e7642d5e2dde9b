/**
 * Hit and miss counts of the caches a request's document comes from, kept by the pipeline and
 * the persisted-query store and read by the metrics at scrape time. Plain integer fields on one
 * object, so that counting costs an increment on the hot path and nothing else: no labels, no
 * lookups, no knowledge of metrics.
 */
export class CacheCounts {
  /**
   * Operations whose document was not parsed for them: a known request text whose operation
   * was ready (the fast path), or a query text found in the parsed-document cache.
   */
  documentHits = 0;
  /** Documents parsed and validated for the operation (trusted documents at start too). */
  documentMisses = 0;
  /** Requests that named a persisted query by its hash without its text, and whose text was known. */
  apqHits = 0;
  /** Such requests whose hash was unknown (PERSISTED_QUERY_NOT_FOUND: the client then sends the text). */
  apqMisses = 0;
  /** New documents validated in the event loop's thread. */
  validatedHere = 0;
  /** New documents validated in the validation worker thread (server/validationThread.ts). */
  validatedInWorker = 0;
  /** The estimated bytes the parsed-document cache holds (within `documentCacheBytes`). */
  documentCacheBytes = 0;
}
