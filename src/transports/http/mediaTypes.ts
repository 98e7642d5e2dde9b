/**
 * What GraphQL over HTTP says of media types: which one an answer is written in (from Accept),
 * which request bodies are accepted (from Content-Type), and how a GET carries its request in
 * the query string.
 */
import type { GraphQLError } from 'graphql';
import { ErrorCode, codedError } from '../../errors/codes.ts';
import { memoizeText } from '../../jsutils/lruCache.ts';
import { mediaRanges } from '../httpHeaders.ts';
import { JSON_CONTENT_TYPE } from '../../jsutils/jsonContentType.ts';
import type { IncrementalFormat } from '../../server/pipeline.ts';
/** JSON: the legacy GraphQL media type, and every `{ error }` answer. */
export const JSON_RESPONSE = JSON_CONTENT_TYPE;

export const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
/** GraphQL over Server-Sent Events (eventStream.ts), chosen by `Accept: text/event-stream`. */
export const EVENT_STREAM = 'text/event-stream; charset=utf-8';

/**
 * Incremental delivery over HTTP (the GraphQL-over-HTTP incremental delivery RFC): one part per
 * payload, each `application/json`, between boundaries `-`.
 */
export const MULTIPART = 'multipart/mixed; boundary="-"';

/** What a request's Accept header allows: the media type of a result, and whether (and in which format) incremental payloads. */
export interface Accepted {
  /**
   * A result's media type: application/graphql-response+json, application/json or
   * text/event-stream. A result that is not incremental is JSON even when the header allows
   * only `multipart/mixed`: multipart is for incremental payloads.
   */
  readonly mediaType: string;
  /** The format of incremental payloads (multipart/mixed, or Server-Sent Events), unset when the header allows none. */
  readonly incremental: IncrementalFormat | undefined;
}

const JSON_ONLY: Accepted = { mediaType: JSON_RESPONSE, incremental: undefined };

/**
 * What the Accept header allows: application/graphql-response+json when accepted, else
 * application/json; a missing header, `*\/*` or `application/*` mean JSON. `text/event-stream`
 * listed before any JSON type means Server-Sent Events, which carry incremental payloads in the
 * current format. `multipart/mixed` anywhere allows incremental payloads over HTTP, in the
 * format its parameter names (incrementalFormat), and results that are not incremental as JSON.
 * Null: nothing this endpoint writes (406).
 */
export function negotiate(accept: string | undefined): Accepted | null {
  return accept === undefined ? JSON_ONLY : negotiateText(accept);
}

const negotiateText = memoizeText((accept: string): Accepted | null => {
  if (accept.trim() === '') return JSON_ONLY;
  let chosen: string | null = null;
  let json = false;
  let wildcard = false;
  for (const { type } of mediaRanges(accept)) {
    if (type === 'text/event-stream' && !json) return { mediaType: EVENT_STREAM, incremental: 'current' };
    if (type === 'application/graphql-response+json') {
      chosen = GRAPHQL_RESPONSE;
      break;
    }
    if (type === 'application/json') json = true;
    else if (type === '*/*' || type === 'application/*') wildcard = true;
  }
  const incremental = accept.toLowerCase().includes('multipart/mixed') ? multipartFormat(accept) : undefined;
  const mediaType = chosen ?? (json || wildcard || incremental !== undefined ? JSON_RESPONSE : null);
  return mediaType === null ? null : { mediaType, incremental };
});

/** The incremental format of the first `multipart/mixed` range that names one this server writes (q=0 refuses it). */
function multipartFormat(accept: string): IncrementalFormat | undefined {
  for (const range of accept.split(',')) {
    const [type = '', ...rest] = range.split(';');
    if (type.trim().toLowerCase() !== 'multipart/mixed') continue;
    const parameters = rest.map((parameter) => parameter.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    if (quality !== undefined && Number(quality.slice(2)) === 0) continue;
    const format = incrementalFormat(parameters.filter((parameter) => parameter !== quality));
    if (format !== undefined) return format;
  }
  return undefined;
}

/**
 * The format a `multipart/mixed` range asks for: `incrementalSpec=v0.2` the current one
 * (graphql 17's experimentalExecuteIncrementally; Apollo Client's GraphQL17Alpha9Handler),
 * `deferSpec=20220824` the 2022 one (legacyExecuteIncrementally; its Defer20220824Handler), no
 * such parameter the current one (the RFC's, and what GraphiQL reads). A version this server does
 * not write leaves the range out.
 */
function incrementalFormat(parameters: ReadonlyArray<string>): IncrementalFormat | undefined {
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=').map((part) => part.trim().replace(/^"(.*)"$/, '$1'));
    if (name === 'incrementalspec') return value === 'v0.2' ? 'current' : undefined;
    if (name === 'deferspec') return value === '20220824' ? 'legacy' : undefined;
  }
  return 'current';
}

/** POST bodies are JSON in UTF-8; null when acceptable, else why not (by header value, remembered). */
export function checkContentType(contentType: string | undefined): string | null {
  return contentType === undefined ? checkContentTypeUncached(undefined) : contentTypeVerdict(contentType);
}

const contentTypeVerdict = memoizeText(checkContentTypeUncached);

function checkContentTypeUncached(contentType: string | undefined): string | null {
  if (contentType === undefined || contentType.trim() === '') {
    return 'The request has no Content-Type; send application/json.';
  }
  const [type = '', ...parameters] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'application/json') {
    return `Content-Type ${type.trim()} is not supported; send application/json.`;
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset' && value.trim().replace(/"/g, '').toLowerCase() !== 'utf-8') {
      return `Charset ${value.trim()} is not supported; send UTF-8.`;
    }
  }
  return null;
}

/** GET parameters: `query`, `operationName`, `documentId`, and `variables`/`extensions` as JSON strings. */
export function paramsFromQueryString(search: string): Record<string, unknown> | GraphQLError {
  const parameters = new URLSearchParams(search);
  const payload: Record<string, unknown> = {};
  for (const name of ['query', 'operationName', 'documentId']) {
    const value = parameters.get(name);
    if (value !== null) payload[name] = value;
  }
  for (const name of ['variables', 'extensions']) {
    const value = parameters.get(name);
    if (value === null || value === '') continue;
    try {
      payload[name] = JSON.parse(value);
    } catch {
      return codedError(`The "${name}" parameter is not valid JSON.`, ErrorCode.BadRequest);
    }
  }
  return payload;
}
