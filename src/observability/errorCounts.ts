/**
 * Errors returned to clients, counted by code where they are made (the operation pipeline's
 * results, incremental payloads and subscription events; a transport's own refusals), for
 * `graphql_errors_total`. Counting at the source, rather than re-reading what was written,
 * counts every transport alike (HTTP, WebSocket, Server-Sent Events, resource routes) and costs
 * nothing for a result without errors.
 *
 * Codes are strings of the schema's resolvers, so at most MAX_ERROR_CODES distinct ones are kept;
 * any other is counted as OTHER, so that a code with an id in it cannot grow the registry
 * without bound.
 */
export const MAX_ERROR_CODES = 100;
export const OTHER_CODE = 'OTHER';

export class ErrorCounts {
  private readonly counts = new Map<string, number>();

  /** One error by its code (a missing or empty code is UNKNOWN). */
  add(code: unknown): void {
    let label = typeof code === 'string' && code !== '' ? code : 'UNKNOWN';
    let count = this.counts.get(label);
    if (count === undefined) {
      if (this.counts.size >= MAX_ERROR_CODES) {
        label = OTHER_CODE;
        count = this.counts.get(label) ?? 0;
      } else {
        count = 0;
      }
    }
    this.counts.set(label, count + 1);
  }

  /** Each error of a list by its `extensions.code` (undefined: none). */
  addErrors(errors: ReadonlyArray<{ readonly extensions?: { readonly [key: string]: unknown } | undefined } | null> | undefined): void {
    if (errors === undefined) return;
    for (const error of errors) this.add(error?.extensions?.['code']);
  }

  /** Codes and counts, in the order codes were first seen. */
  entries(): IterableIterator<[string, number]> {
    return this.counts.entries();
  }
}
