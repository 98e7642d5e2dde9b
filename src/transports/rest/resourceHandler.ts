/**
 * The resource-style surface (SPEC §4.2, §7.3, §9): `/api/v1/books/b1` and the like, each route
 * a GraphQL operation (resourceRoutes.ts) run through the same pipeline as `/graphql`: the same
 * authentication, rate limits, limits, authorization and executor. What is HTTP's is here:
 *
 *   version: in the path (`/api/v1/...`) or a header (`/api/...` with `API-Version` or
 *            `Accept-Version`); neither: the newest version, named in the `API-Version` answer
 *            header; a retired version answers with Deprecation and Sunset until its sunset,
 *            then 410 Gone
 *   path ─ 404 (no route), 405 with Allow (no route for this method)
 *   Accept ─ 406 (only application/json)    Content-Type of a body ─ 415    a body on GET ─ 400
 *   parameters: path, query (an unknown one ─ 400 naming it; repeated ─ 400 unless a list), body
 *   authentication (the pipeline) ─ 401 / 403 / 503
 *   the operation (the pipeline) ─ 429 / 503; variables that do not coerce ─ 400 BAD_REQUEST
 *   answer: GET 200 `{ data }` with an ETag (If-None-Match ─ 304), null ─ 404; HEAD as GET
 *           without the body; POST 201 with Location (the new item's route); DELETE 204;
 *           PUT/PATCH 200 (204 when nothing is returned); a field error ─ its own code and
 *           status (FORBIDDEN 403, NOT_FOUND 404, BAD_USER_INPUT 400, ...) or 500
 */
import type { GraphQLError, GraphQLSchema } from 'graphql';
import type { Limits } from '../../analysis/limits.ts';
import type { KnownRequest, OperationOutcome, OperationPipeline, RequestParams } from '../../server/pipeline.ts';
import { AuthError } from '../../security/authError.ts';
import { ANONYMOUS } from '../../security/identity.ts';
import type { Identity } from '../../security/identity.ts';
import type { RateRefusal } from '../../ratelimit/rateLimiter.ts';
import { EtagMemo, addRateHeaders, clientInfo, etagOf, headerOf, matchesEtag, mediaRanges } from '../http/headers.ts';
import { LruCache, memoizeText } from '../../jsutils/lruCache.ts';
import { SMALL_REQUEST } from '../../server/pipeline.ts';
import { HttpOperation } from '../http/httpOperation.ts';
import { openApiDocument } from './openApi.ts';
import { ROUTE_METHODS, compileVersion, valueFromText } from './resourceRoutes.ts';
import type { CompiledRoute, CompiledVersion, ResourceVersionOptions } from './resourceRoutes.ts';

export type ResourcesOptions = ResourceVersionOptions | ReadonlyArray<ResourceVersionOptions>;

/** What the resource handler needs of a request (the HTTP handler's PlainRequest has it all). */
export interface ResourceRequest<Raw> {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string | null;
  readonly raw: Raw;
  readonly remoteAddress?: string | undefined;
}

export type ResourceResponse = [body: string | null, init: { status: number; headers: Record<string, string> }];

const JSON_TYPE = 'application/json; charset=utf-8';
/** Longest path parameter accepted (an id of 10,000 characters is nobody's). */
const MAX_PARAM = 256;

/** Codes a field error may carry, and the status each answers with. */
const STATUS_OF_CODE: Record<string, number> = {
  BAD_USER_INPUT: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  MFA_REQUIRED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  TIMEOUT: 504,
};

export interface ResourceHandler<Raw> {
  /** Whether a path is the resource surface's (`/api` and below). */
  owns(pathname: string): boolean;
  handle(request: ResourceRequest<Raw>): ResourceResponse | Promise<ResourceResponse>;
  readonly versions: ReadonlyArray<CompiledVersion>;
}

export function createResourceHandler<Raw>(options: ResourcesOptions, pipeline: OperationPipeline<Raw>, prefix = '/api'): ResourceHandler<Raw> {
  const list = Array.isArray(options) ? options : [options as ResourceVersionOptions];
  if (list.length === 0) throw new TypeError('resources needs at least one version.');
  const versions = list.map((each) => compileVersion(each, pipeline.schema as GraphQLSchema, pipeline.limits as Limits));
  const byName = new Map(versions.map((version) => [version.version, version]));
  /**
   * GETs read before, by URL and version headers: what reading them came to (without the
   * request), and with it their KnownRequest: the pipeline runs the operation at once the next
   * time, once it passed every check for the caller's grants. (A cache of its own, apart from
   * the pipeline's cache of request bodies: a URL is never taken for a body.)
   */
  const seenReads = new LruCache<string, RouteCall>(1000, { maxBytes: 8 * 1024 * 1024, sizeOf: (key) => key.length * 6 + 512 });
  // Each version's OpenAPI document, made once: `/api/v1/openapi.json`.
  const openApiTexts = new Map(versions.map((version) => [version.version, JSON.stringify(openApiDocument(version, pipeline.schema, prefix, 'Resource API'))]));
  if (byName.size !== versions.length) throw new TypeError('resources: two versions have the same name.');
  // The newest version that is not retired answers requests that name none.
  const current = [...versions].filter((version) => version.deprecation === null).sort((a, b) => Number(b.version.slice(1)) - Number(a.version.slice(1)))[0] ?? versions[versions.length - 1];

  /** Synchronous when authentication and execution are (a promise only when something waits). */
  function handle(request: ResourceRequest<Raw>): ResourceResponse | Promise<ResourceResponse> {
    // A GET seen before (same URL and version headers) is read as it was: its route, version
    // and variables, straight to authentication. Everything it was checked for depends only
    // on those, but Accept and the version's sunset, checked again here.
    const readKey = request.method === 'GET' || request.method === 'HEAD' ? readKeyOf(request) : null;
    if (readKey !== null) {
      const seen = seenReads.get(readKey);
      const deprecation = seen?.version.deprecation;
      if (seen !== undefined && (deprecation == null || Date.now() < deprecation.sunset.getTime()) && acceptsJson(headerOf(request.headers, 'accept'))) {
        const authenticated = pipeline.authenticate(request.headers);
        return authenticated instanceof Promise ? authenticated.then((identity) => proceed(seen, request, identity)) : proceed(seen, request, authenticated);
      }
    }
    const queryStart = request.url.indexOf('?');
    const rawPath = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
    const search = queryStart === -1 ? '' : request.url.slice(queryStart + 1);
    // Encoded slashes and dot segments never name a resource: refused rather than decoded into one.
    if (/%2f|%5c|\/\.\.?(\/|$)/i.test(rawPath)) return failure(400, 'BAD_REQUEST', 'The path has an encoded slash or a dot segment.');
    let parts: string[];
    try {
      parts = rawPath.slice(prefix.length + 1).split('/').map(decodeURIComponent);
    } catch {
      return failure(400, 'BAD_REQUEST', 'The path is not valid percent-encoding.');
    }
    if (parts.some((part) => part === '.' || part === '..' || part.includes('/') || part.includes('\\'))) {
      return failure(400, 'BAD_REQUEST', 'The path has an encoded slash or a dot segment.');
    }
    // The version: in the path, else in a header, else the current one.
    let version: CompiledVersion | undefined;
    const inPath = parts[0] !== undefined && /^v[0-9]+$/.test(parts[0]);
    const named = inPath ? parts.shift() : headerOf(request.headers, 'api-version') ?? headerOf(request.headers, 'accept-version');
    if (named === undefined) version = current;
    else version = byName.get(named.trim());
    if (version === undefined) return failure(404, 'NOT_FOUND', `There is no API version ${named}; the versions are ${versions.map((each) => each.version).join(', ')}.`);
    // Named by a header, or by none, the answer depends on the version headers (caches must
    // know); named in the path, it does not.
    const versionHeaders: Record<string, string> = inPath ? { 'api-version': version.version } : { 'api-version': version.version, vary: 'API-Version, Accept-Version' };
    if (version.deprecation !== null) {
      if (Date.now() >= version.deprecation.sunset.getTime()) {
        return failure(410, 'GONE', `API version ${version.version} was retired on ${version.deprecation.sunset.toISOString().slice(0, 10)}.`, versionHeaders);
      }
      // RFC 9745: an Structured Field Date (seconds); RFC 8594: an HTTP date.
      versionHeaders['deprecation'] = `@${Math.floor(version.deprecation.deprecatedAt.getTime() / 1000)}`;
      versionHeaders['sunset'] = version.deprecation.sunset.toUTCString();
      if (version.deprecation.link !== null) versionHeaders['link'] = `<${version.deprecation.link}>; rel="deprecation"; type="text/html"`;
    }
    if (parts.length === 1 && parts[0] === '') return failure(404, 'NOT_FOUND', `Nothing is served at ${rawPath}.`, versionHeaders);
    if (parts.length === 1 && parts[0] === 'openapi.json') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return failure(405, 'METHOD_NOT_ALLOWED', `Method ${request.method} is not allowed on ${rawPath}; use GET, HEAD.`, { ...versionHeaders, allow: 'GET, HEAD' });
      const text = openApiTexts.get(version.version) as string;
      return [request.method === 'HEAD' ? null : text, { status: 200, headers: { ...versionHeaders, 'content-type': JSON_TYPE, 'cache-control': 'no-cache' } }];
    }

    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const matching = version.routes.filter((route) => matches(route, parts));
    if (matching.length === 0) return failure(404, 'NOT_FOUND', `No resource is served at ${rawPath}.`, versionHeaders);
    const route = bestRoute(matching.filter((candidate) => candidate.method === method));
    if (route === undefined) {
      const allowed = ROUTE_METHODS.filter((each) => matching.some((candidate) => candidate.method === each));
      const allow = [...(allowed.includes('GET') ? ['GET', 'HEAD'] : []), ...allowed.filter((each) => each !== 'GET')].join(', ');
      return failure(405, 'METHOD_NOT_ALLOWED', `Method ${request.method} is not allowed on ${rawPath}; use ${allow}.`, { ...versionHeaders, allow });
    }
    if (!acceptsJson(headerOf(request.headers, 'accept'))) return failure(406, 'NOT_ACCEPTABLE', 'The Accept header must allow application/json.', versionHeaders);

    // Variables: path parameters, query parameters, then the body.
    const variables: Record<string, unknown> = {};
    for (const [index, segment] of route.segments.entries()) {
      if (typeof segment === 'string') continue;
      const value = parts[index] as string;
      if (value.length === 0 || value.length > MAX_PARAM) return failure(400, 'BAD_REQUEST', `The path parameter ${segment.param} must be 1 to ${MAX_PARAM} characters.`, versionHeaders);
      const variable = route.variables.find((each) => each.name === segment.param);
      variables[segment.param] = variable === undefined ? value : valueFromText([value], variable.type);
    }
    const query = new URLSearchParams(search);
    const unknown = [...new Set(query.keys())].filter((name) => !route.variables.some((variable) => variable.name === name) || Object.hasOwn(variables, name));
    if (unknown.length > 0) {
      const known = route.variables.filter((variable) => !Object.hasOwn(variables, variable.name)).map((variable) => variable.name);
      return failure(400, 'BAD_REQUEST', `Unknown query parameter${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; ${known.length === 0 ? 'this route takes none' : `this route takes ${known.join(', ')}`}.`, versionHeaders);
    }
    for (const variable of route.variables) {
      const texts = query.getAll(variable.name);
      if (texts.length === 0) continue;
      const value = valueFromText(texts, variable.type);
      if (value instanceof Error) return failure(400, 'BAD_REQUEST', `The query parameter ${variable.name} is given more than once.`, versionHeaders);
      variables[variable.name] = value;
    }
    const body = request.body;
    if (method === 'GET' || method === 'DELETE') {
      if (body !== null && body.length > 0) return failure(400, 'BAD_REQUEST', `A ${request.method} request has no body.`, versionHeaders);
    } else if (body !== null && body.length > 0) {
      const contentType = headerOf(request.headers, 'content-type');
      if (contentType === undefined || contentType.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
        return failure(415, 'UNSUPPORTED_MEDIA_TYPE', 'A body must be application/json.', versionHeaders);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch (error) {
        return failure(400, 'BAD_REQUEST', `The body is not valid JSON: ${(error as Error).message}`, versionHeaders);
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return failure(400, 'BAD_REQUEST', 'The body must be a JSON object.', versionHeaders);
      if (route.bodyVariable !== null && !Object.hasOwn(variables, route.bodyVariable)) {
        variables[route.bodyVariable] = parsed;
      } else {
        for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
          if (Object.hasOwn(variables, name) || !route.variables.some((variable) => variable.name === name)) {
            return failure(400, 'BAD_REQUEST', `The body member ${name} is not a parameter of this route.`, versionHeaders);
          }
          variables[name] = value;
        }
      }
    }

    // A GET is its URL, and its URL is its variables: what the pipeline remembers of it holds for every later read.
    const known: KnownRequest | null = method === 'GET' ? { params: { query: route.query, operationName: null, variables }, ready: null } : null;
    const call: RouteCall = { route, version, parts, variables, versionHeaders, rawPath, search, method, known, etags: known === null ? null : new EtagMemo() };
    if (readKey !== null && readKey.length <= SMALL_REQUEST) seenReads.set(readKey, call);
    const authenticated = pipeline.authenticate(request.headers);
    return authenticated instanceof Promise ? authenticated.then((identity) => proceed(call, request, identity)) : proceed(call, request, authenticated);
  }

  /** Once the caller is known: If-Match, then the operation. */
  function proceed(call: RouteCall, request: ResourceRequest<Raw>, identity: Identity | AuthError): ResourceResponse | Promise<ResourceResponse> {
    const { method, version, parts, rawPath, versionHeaders } = call;
    if (identity instanceof AuthError) {
      const headers: Record<string, string> = { ...versionHeaders };
      const challenge = pipeline.challenge(identity);
      if (challenge !== null) headers['www-authenticate'] = challenge;
      const refused = failure(identity.status, identity.code, identity.message, headers);
      // A refused credential is charged to the client's address (see OperationPipeline.charge).
      return identity.status === 503 ? refused : charged(ANONYMOUS, request, versionHeaders, refused);
    }
    // If-Match: the change applies to the resource as the client last saw it, or not at all.
    const ifMatch = headerOf(request.headers, 'if-match');
    const reader =
      ifMatch === undefined || (method !== 'PUT' && method !== 'PATCH' && method !== 'DELETE')
        ? undefined
        : bestRoute(version.routes.filter((candidate) => candidate.method === 'GET' && matches(candidate, parts)));
    if (reader !== undefined) {
      return currentEtag(reader, parts, request, identity).then((current) =>
        current === null || !matchesEtag(ifMatch, current, false)
          ? // The write does not run, and is not charged: the read that refused it is.
            charged(
              identity,
              request,
              versionHeaders,
              failure(412, 'PRECONDITION_FAILED', `The resource at ${rawPath} is not the one If-Match names (it has changed, or is gone).`, versionHeaders),
            )
          : execute(call, request, identity),
      );
    }
    return execute(call, request, identity);
  }

  /** Runs the route's operation through the pipeline. */
  function execute(call: RouteCall, request: ResourceRequest<Raw>, identity: Identity): ResourceResponse | Promise<ResourceResponse> {
    const { method, route, variables, known } = call;
    const params: RequestParams = known?.params ?? { query: route.query, operationName: null, variables };
    const outcome = pipeline.run(new HttpOperation(request, identity, params, method === 'GET', false), known ?? undefined);
    return outcome instanceof Promise ? outcome.then((settled) => answer(call, request, settled)) : answer(call, request, outcome);
  }

  /** `refused`, once one request is charged for it; the rate limit's 429 when the budget is spent. */
  function charged(identity: Identity, request: ResourceRequest<Raw>, versionHeaders: Record<string, string>, refused: ResourceResponse): ResourceResponse | Promise<ResourceResponse> {
    const toAnswer = (refusal: RateRefusal | null) => (refusal === null ? refused : rateLimitedAnswer(refusal, versionHeaders));
    const charge = pipeline.charge(identity, clientInfo(request));
    return charge instanceof Promise ? charge.then(toAnswer) : toAnswer(charge);
  }

  function rateLimitedAnswer(refusal: RateRefusal, versionHeaders: Record<string, string>): ResourceResponse {
    const headers: Record<string, string> = { ...versionHeaders, 'retry-after': String(refusal.retryAfter) };
    if (refusal.standing !== null) addRateHeaders(headers, refusal.standing);
    return failure(refusal.status, refusal.code, refusal.message, headers);
  }

  /** The operation's outcome as the route's HTTP answer. */
  function answer(call: RouteCall, request: ResourceRequest<Raw>, outcome: OperationOutcome): ResourceResponse {
    const { route, version, variables, versionHeaders, rawPath, search } = call;
    if ('rateLimited' in outcome) return rateLimitedAnswer(outcome.rateLimited, versionHeaders);
    if (!('result' in outcome)) return failure(500, 'INTERNAL_SERVER_ERROR', 'The route did not run as an operation.', versionHeaders);
    const headers: Record<string, string> = { ...versionHeaders };
    if (outcome.rate !== undefined) addRateHeaders(headers, outcome.rate);
    const { result } = outcome;
    const errors = result.errors ?? [];
    if (errors.length > 0) {
      const first = errors[0] as GraphQLError;
      const code = String(first.extensions?.['code'] ?? 'INTERNAL_SERVER_ERROR');
      // A request error (no data) is the client's: its variables did not coerce, or a limit.
      const status = outcome.requestError ? (code === 'FORBIDDEN' ? 403 : 400) : (STATUS_OF_CODE[code] ?? 500);
      return failure(status, status === 400 && outcome.requestError ? 'BAD_REQUEST' : code, first.message, headers);
    }
    const value = resourceOf(route, result.data);
    if (route.method === 'DELETE') return [null, { status: 204, headers }];
    if (route.method === 'GET') {
      if (value === null) return failure(404, 'NOT_FOUND', `No resource is at ${rawPath}.`, headers);
      const text = JSON.stringify({ data: value });
      const etag = call.etags === null ? etagOf(text) : call.etags.etagOf(text);
      headers['etag'] = etag;
      const links = pagingLinks(route, variables, value, rawPath, search);
      if (links !== null) headers['link'] = headers['link'] === undefined ? links : `${headers['link']}, ${links}`;
      headers['cache-control'] = request.headers['authorization'] !== undefined || request.headers['x-api-key'] !== undefined ? 'private, no-cache' : 'no-cache';
      if (matchesEtag(headerOf(request.headers, 'if-none-match'), etag)) return [null, { status: 304, headers }];
      headers['content-type'] = JSON_TYPE;
      return [request.method === 'HEAD' ? null : text, { status: 200, headers }];
    }
    if (value === null) return failure(404, 'NOT_FOUND', `No resource is at ${rawPath}.`, headers);
    // An operation that returns no resource (a Boolean, say): nothing to send back.
    if (typeof value !== 'object') return [null, { status: 204, headers }];
    headers['content-type'] = JSON_TYPE;
    if (route.method === 'POST') {
      const location = locationOf(version, route, value, prefix);
      if (location !== null) headers['location'] = location;
      return [JSON.stringify({ data: value }), { status: 201, headers }];
    }
    return [JSON.stringify({ data: value }), { status: 200, headers }];
  }

  /** The entity tag of what GET answers for these path parts now (null: nothing there). */
  async function currentEtag(reader: CompiledRoute, parts: ReadonlyArray<string>, request: ResourceRequest<Raw>, identity: Identity): Promise<string | null> {
    const variables: Record<string, unknown> = {};
    for (const [index, segment] of reader.segments.entries()) {
      if (typeof segment === 'string') continue;
      const variable = reader.variables.find((each) => each.name === segment.param);
      variables[segment.param] = variable === undefined ? parts[index] : valueFromText([parts[index] as string], variable.type);
    }
    // Part of the request it precedes, which is charged: not charged again.
    const outcome = await pipeline.run(new HttpOperation(request, identity, { query: reader.query, operationName: null, variables }, true, false, true));
    if (!('result' in outcome) || (outcome.result.errors?.length ?? 0) > 0) return null;
    const value = resourceOf(reader, outcome.result.data);
    return value === null ? null : etagOf(JSON.stringify({ data: value }));
  }

  return {
    owns: (pathname) => pathname === prefix || pathname.startsWith(prefix + '/'),
    handle,
    versions,
  };
}

/** The resource in an operation's data: the root field's value, or a sub-collection's field under it. */
function resourceOf(route: CompiledRoute, data: unknown): unknown {
  const owner = (data as Record<string, unknown> | null | undefined)?.[route.field] ?? null;
  return route.subField === null || owner === null ? owner : ((owner as Record<string, unknown>)[route.subField] ?? null);
}

/**
 * Link headers (RFC 8288) of a page: a route with `limit` and `offset` variables whose resource
 * says its `total` gets `rel="next"` while there is more, `rel="prev"` past the first page; a
 * route with a `cursor` variable, `rel="next"` from its connection's `pageInfo`.
 */
function pagingLinks(route: CompiledRoute, variables: Record<string, unknown>, value: unknown, path: string, search: string): string | null {
  // Cursor paging (a Relay connection whose `first` and `after` the route names `limit` and
  // `cursor`): the next page starts after the page's end cursor. Relay pages forwards only.
  if (route.variables.some((variable) => variable.name === 'cursor')) {
    const pageInfo = (value as { pageInfo?: { hasNextPage?: unknown; endCursor?: unknown } } | null)?.pageInfo;
    if (pageInfo?.hasNextPage !== true || typeof pageInfo.endCursor !== 'string') return null;
    const query = new URLSearchParams(search);
    query.set('cursor', pageInfo.endCursor);
    return `<${path}?${query.toString()}>; rel="next"`;
  }
  const limitVariable = route.variables.find((variable) => variable.name === 'limit');
  const offsetVariable = route.variables.find((variable) => variable.name === 'offset');
  if (limitVariable === undefined || offsetVariable === undefined || value === null || typeof value !== 'object') return null;
  const total = (value as { total?: unknown }).total;
  const limit = Number(variables['limit'] ?? limitVariable.defaultValue);
  const offset = Number(variables['offset'] ?? offsetVariable.defaultValue ?? 0);
  if (typeof total !== 'number' || !Number.isInteger(limit) || limit <= 0 || !Number.isInteger(offset)) return null;
  const link = (to: number, rel: string): string => {
    const query = new URLSearchParams(search);
    query.set('limit', String(limit));
    query.set('offset', String(to));
    return `<${path}?${query.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (offset + limit < total) links.push(link(offset + limit, 'next'));
  if (offset > 0) links.push(link(Math.max(offset - limit, 0), 'prev'));
  return links.length === 0 ? null : links.join(', ');
}

/**
 * The GET route of the new item (`/reviews/{id}`), filled with its id: of the item routes of its
 * type, the one named by the collection it was created in (`POST /books/{id}/reviews`), else the first.
 */
function locationOf(version: CompiledVersion, created: CompiledRoute, value: unknown, prefix: string): string | null {
  if (value === null || typeof value !== 'object' || !('id' in value)) return null;
  const items = version.routes.filter(
    (route) => route.method === 'GET' && route.typeName === created.typeName && route.segments.length === 2 && typeof route.segments[1] !== 'string',
  );
  const collection = [...created.segments].reverse().find((segment) => typeof segment === 'string');
  const item = items.find((route) => route.segments[0] === collection) ?? items[0];
  if (item === undefined) return null;
  return `${prefix}/${version.version}/${item.segments[0] as string}/${encodeURIComponent(String((value as { id: unknown }).id))}`;
}

/** A GET's key among those read before: its URL and the headers that choose the version; null when it has a body. */
function readKeyOf(request: ResourceRequest<unknown>): string | null {
  if (request.body !== null && request.body.length > 0) return null;
  const apiVersion = request.headers['api-version'];
  const acceptVersion = request.headers['accept-version'];
  if (apiVersion === undefined && acceptVersion === undefined) return request.url;
  return `${request.url}\n${String(apiVersion ?? '')}\n${String(acceptVersion ?? '')}`;
}

/** Of the routes matching a path, the one with the most literal segments (`/things/favourites` before `/things/{id}`). */
function bestRoute(routes: ReadonlyArray<CompiledRoute>): CompiledRoute | undefined {
  let best: CompiledRoute | undefined;
  let bestScore = -1;
  for (const route of routes) {
    const score = route.segments.filter((segment) => typeof segment === 'string').length;
    if (score > bestScore) {
      best = route;
      bestScore = score;
    }
  }
  return best;
}

function matches(route: CompiledRoute, parts: ReadonlyArray<string>): boolean {
  if (route.segments.length !== parts.length) return false;
  return route.segments.every((segment, index) => (typeof segment === 'string' ? segment === parts[index] : true));
}

function failure(status: number, code: string, message: string, headers: Record<string, string> = {}): ResourceResponse {
  return [JSON.stringify({ error: { code, message } }), { status, headers: { ...headers, 'content-type': JSON_TYPE } }];
}


/** Whether Accept allows JSON; clients send few distinct Accept headers, each read once. */
function acceptsJson(accept: string | undefined): boolean {
  return accept === undefined || acceptsJsonText(accept);
}

const acceptsJsonText = memoizeText((accept: string): boolean => {
  if (accept.trim() === '') return true;
  return mediaRanges(accept).some(({ type }) => type === 'application/json' || type === 'application/*' || type === '*/*');
});

/**
 * What reading a request to a route came to (without the request itself, which its steps pass
 * beside it): for a GET, the same for every later read of its URL and version headers.
 */
interface RouteCall {
  readonly route: CompiledRoute;
  readonly version: CompiledVersion;
  readonly parts: ReadonlyArray<string>;
  readonly variables: Record<string, unknown>;
  readonly versionHeaders: Record<string, string>;
  readonly rawPath: string;
  readonly search: string;
  readonly method: string;
  /** A GET's remembered operation (kept with the call among the reads seen before); null otherwise. */
  readonly known: KnownRequest | null;
  /** A GET's last answer and its entity tag, made again only when the answer changes; null otherwise. */
  readonly etags: EtagMemo | null;
}
