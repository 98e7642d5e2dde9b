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
/** JSON: the legacy GraphQL media type, and every `{ error }` answer. */
export const JSON_RESPONSE = JSON_CONTENT_TYPE;

export const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
/** GraphQL over Server-Sent Events (eventStream.ts), chosen by `Accept: text/event-stream`. */
export const EVENT_STREAM = 'text/event-stream; charset=utf-8';

/**
 * The response media type the Accept header allows: application/graphql-response+json when
 * accepted, else application/json; a missing header, `*\/*` or `application/*` mean JSON.
 * `text/event-stream` listed before any JSON type means Server-Sent Events.
 */
export function negotiate(accept: string | undefined): string | null {
  return accept === undefined ? JSON_RESPONSE : negotiateText(accept);
}

const negotiateText = memoizeText((accept: string): string | null => {
  if (accept.trim() === '') return JSON_RESPONSE;
  let json = false;
  let wildcard = false;
  for (const { type } of mediaRanges(accept)) {
    if (type === 'text/event-stream' && !json) return EVENT_STREAM;
    if (type === 'application/graphql-response+json') return GRAPHQL_RESPONSE;
    if (type === 'application/json') json = true;
    else if (type === '*/*' || type === 'application/*') wildcard = true;
  }
  return json || wildcard ? JSON_RESPONSE : null;
});

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
