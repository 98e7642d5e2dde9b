/**
 * What the steps of a resource request hand one another: the request as the HTTP handler gives
 * it, the answer as a body and its status and headers, and, between them, the call: what
 * reading the request came to (its route, version and variables).
 */
import type { KnownRequest } from '../../server/pipeline.ts';
import type { EtagMemo } from '../httpHeaders.ts';
import type { PlainRequest } from '../plainRequest.ts';
import type { CompiledRoute, CompiledVersion } from './resourceRoutes.ts';

/** What the resource handler needs of a request. */
export type ResourceRequest<Raw> = Pick<PlainRequest<Raw>, 'method' | 'url' | 'headers' | 'body' | 'raw' | 'remoteAddress'>;

/** A route's answer: its body and status and headers; `holdMs` as in the GraphQL endpoint's ResponseInit (a rate-limit refusal, held). */
export type ResourceResponse = [body: string | null, init: { status: number; headers: Record<string, string>; holdMs?: number }];

/** The route a request's path and method name, in the version it asks for (routeTable.ts). */
export interface RouteMatch {
  readonly route: CompiledRoute;
  readonly version: CompiledVersion;
  /** The path's segments after the prefix and the version, decoded. */
  readonly parts: ReadonlyArray<string>;
  /** The headers every answer of this version carries: API-Version, Vary, Deprecation, Sunset. */
  readonly versionHeaders: Record<string, string>;
  /** The path as sent (for messages and links), and the query string after its `?`. */
  readonly rawPath: string;
  readonly search: string;
  /** The route's method: HEAD is read as GET. */
  readonly method: string;
}

/**
 * What reading a request to a route came to (without the request itself, which the later steps
 * pass beside it): for a GET, the same for every later read of its URL and version headers.
 */
export interface RouteCall extends RouteMatch {
  readonly variables: Record<string, unknown>;
  /** A GET's remembered operation (kept with the call among the reads seen before); null otherwise. */
  readonly known: KnownRequest | null;
  /** A GET's last answer and its entity tag, made again only when the answer changes; null otherwise. */
  readonly etags: EtagMemo | null;
}

/**
 * Whether a step answered (refused, or served the request itself) rather than handing on what it
 * read. What it hands on is never an array (the constraint), so an array is the answer.
 */
export function isAnswer<T extends object & { readonly [Symbol.iterator]?: never }>(value: T | ResourceResponse): value is ResourceResponse {
  return Array.isArray(value);
}
