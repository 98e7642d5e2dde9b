/**
 * Header logic the GraphQL endpoint and the resource routes share: reading a header, making and
 * matching an entity tag, and the rate-limit headers.
 */
import { hash } from 'node:crypto';
import { rateLimitHeader } from '../ratelimit/rateLimiter.ts';
import type { ClientInfo, RateStanding } from '../ratelimit/rateLimiter.ts';

/** A header's value, several values joined. */
export function headerOf(headers: Readonly<Record<string, string | string[] | undefined>>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A media range of an Accept header: its type, lower-cased, and its quality. */
export interface MediaRange {
  readonly type: string;
  readonly q: number;
}

/**
 * An Accept header's media ranges in their order, each with its quality (1 when it has none or
 * one that is not a number); those with q=0, which refuse their type, are left out. One reading
 * of the header for every negotiation (the GraphQL endpoint's, the resource routes', GraphiQL's).
 */
export function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [type = '', ...parameters] = part.split(';');
    const quality = parameters.map((parameter) => parameter.trim().toLowerCase()).find((parameter) => parameter.startsWith('q='));
    const q = quality === undefined || Number.isNaN(Number(quality.slice(2))) ? 1 : Number(quality.slice(2));
    if (q > 0) ranges.push({ type: type.trim().toLowerCase(), q });
  }
  return ranges;
}

/** A strong entity tag for a body: its SHA-1 (one-shot, no hash object made). */
export function etagOf(body: string): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

/** Texts up to this many characters are remembered with their tag (see EtagMemo). */
const REMEMBERED_TEXT = 8 * 1024;

/**
 * The entity tag of the last text a read answered with, kept with that text. Reads of an
 * unchanged resource answer the same text again, and comparing two texts (a memory compare,
 * stopping at the first difference) costs a small part of hashing one, and hashing is a large
 * part of a read's cost (docs/benchmarks.md, the route figures). So the tag is made again only
 * when the text changed. One per URL read, so at most REMEMBERED_TEXT
 * characters each.
 */
export class EtagMemo {
  /** The most a memo keeps alive: the longest text it remembers, and its tag. */
  static readonly MAX_BYTES = REMEMBERED_TEXT * 2 + 128;
  private text: string | null = null;
  private etag = '';

  etagOf(text: string): string {
    if (text === this.text) return this.etag;
    const etag = etagOf(text);
    if (text.length <= REMEMBERED_TEXT) {
      this.text = text;
      this.etag = etag;
    }
    return etag;
  }
}

/**
 * Whether If-None-Match (weak comparison) or If-Match (`weak` false: strong comparison, RFC
 * 9110 §13.1.1) names this entity tag, or is `*`.
 */
export function matchesEtag(condition: string | undefined, etag: string, weak = true): boolean {
  if (condition === undefined) return false;
  return condition.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === etag || (weak && tag === `W/${etag}`) || tag === '*';
  });
}

/** RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers). */
export function addRateHeaders(headers: Record<string, string>, standing: RateStanding): void {
  const current = rateLimitHeader(standing);
  if (current === null) return;
  headers['ratelimit-policy'] = standing.policy.header;
  headers['ratelimit'] = current;
}

/** Where a request came from, as the rate limiter and the per-client bounds read it. */
export function clientInfo(request: { readonly remoteAddress?: string | undefined; readonly headers: Readonly<Record<string, string | string[] | undefined>> }): ClientInfo {
  return { remoteAddress: request.remoteAddress, forwardedFor: request.headers['x-forwarded-for'] };
}
