/**
 * Reading a request into a route call (its route, version and variables), and remembering what
 * a GET came to: a GET is its URL and version headers, so a later read of the same is the same
 * call, and skips matching and reading its parameters.
 *
 *   Accept ─ 406 unless it allows application/json
 */
import { LruCache, memoizeText } from '../../jsutils/lruCache.ts';
import type { KnownRequest } from '../../server/pipeline.ts';
import { SMALL_REQUEST } from '../../server/pipeline.ts';
import { EtagMemo, headerOf, mediaRanges } from '../httpHeaders.ts';
import { ERROR_CODES } from '../../errors/codes.ts';
import { failure } from './resourceAnswer.ts';
import type { ResourceRequest, ResourceResponse, RouteCall, RouteMatch } from './resourceCall.ts';
import { isAnswer } from './resourceCall.ts';
import { readVariables } from './routeParameters.ts';
import { isRetired } from './routeTable.ts';
import type { RouteTable } from './routeTable.ts';

export class RouteReader {
  private readonly table: RouteTable;
  /**
   * GETs read before, by URL and version headers: what reading them came to (without the
   * request), and with it their KnownRequest: the pipeline runs the operation at once the next
   * time, once it passed every check for the caller's grants. (A cache of its own, apart from
   * the pipeline's cache of request bodies: a URL is never taken for a body.)
   */
  private readonly seenReads = new LruCache<string, RouteCall>(1000, { maxBytes: 8 * 1024 * 1024, sizeOf: (key) => key.length * 6 + 512 });

  constructor(table: RouteTable) {
    this.table = table;
  }

  /** The call a request makes; else the answer that refuses it (or serves it without an operation). */
  read(request: ResourceRequest<unknown>): RouteCall | ResourceResponse {
    const readKey = request.method === 'GET' || request.method === 'HEAD' ? readKeyOf(request) : null;
    if (readKey !== null) {
      // Everything a read was checked for depends only on its URL and version headers, but
      // Accept and the version's sunset: checked again.
      const seen = this.seenReads.get(readKey);
      if (seen !== undefined && !isRetired(seen.version) && acceptsJson(headerOf(request.headers, 'accept'))) return seen;
    }
    const match = this.table.match(request);
    if (isAnswer(match)) return match;
    if (!acceptsJson(headerOf(request.headers, 'accept'))) return failure(ERROR_CODES.NotAcceptable, 'The Accept header must allow application/json.', match.versionHeaders);
    const variables = readVariables(match, request);
    if (isAnswer(variables)) return variables;
    const call = callOf(match, variables);
    if (readKey !== null && readKey.length <= SMALL_REQUEST) this.seenReads.set(readKey, call);
    return call;
  }
}

/**
 * The call of a matched route with its variables. A GET is its URL, and its URL is its
 * variables: what the pipeline remembers of it holds for every later read.
 */
function callOf(match: RouteMatch, variables: Record<string, unknown>): RouteCall {
  const { route, version, parts, versionHeaders, rawPath, search, method } = match;
  const known: KnownRequest | null = method === 'GET' ? { params: { query: route.query, operationName: null, variables }, ready: null } : null;
  return { route, version, parts, variables, versionHeaders, rawPath, search, method, known, etags: known === null ? null : new EtagMemo() };
}

/** A GET's key among those read before: its URL and the headers that choose the version; null when it has a body. */
function readKeyOf(request: ResourceRequest<unknown>): string | null {
  if (request.body !== null && request.body.length > 0) return null;
  const apiVersion = request.headers['api-version'];
  const acceptVersion = request.headers['accept-version'];
  if (apiVersion === undefined && acceptVersion === undefined) return request.url;
  return `${request.url}\n${String(apiVersion ?? '')}\n${String(acceptVersion ?? '')}`;
}

/** Whether Accept allows JSON; clients send few distinct Accept headers, each read once. */
function acceptsJson(accept: string | undefined): boolean {
  return accept === undefined || acceptsJsonText(accept);
}

const acceptsJsonText = memoizeText((accept: string): boolean => {
  if (accept.trim() === '') return true;
  return mediaRanges(accept).some(({ type }) => type === 'application/json' || type === 'application/*' || type === '*/*');
});
