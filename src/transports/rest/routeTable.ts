/**
 * Matching a request to a route: its path read into segments, the version it asks for, and the
 * route of that version its path and method name.
 *
 *   version: in the path (`/api/v1/...`) or a header (`/api/...` with `API-Version` or
 *            `Accept-Version`); neither: the newest version that is not retired, named in the
 *            `API-Version` answer header; a retired version answers with Deprecation (RFC 9745)
 *            and Sunset (RFC 8594) until its sunset, then 410 Gone
 *   path:    an encoded slash or a dot segment ─ 400; no route ─ 404; `openapi.json` ─ the
 *            version's OpenAPI document
 *   method:  no route for it ─ 405 with Allow (RFC 9110 §15.5.6)
 */
import type { GraphQLSchema } from 'graphql';
import { headerOf } from '../httpHeaders.ts';
import { openApiDocument } from './openApi.ts';
import type { ResourceRequest, ResourceResponse, RouteMatch } from './resourceCall.ts';
import { isAnswer } from './resourceCall.ts';
import { ERROR_CODES } from '../../errors/codes.ts';
import { failure } from './resourceAnswer.ts';
import { JSON_CONTENT_TYPE } from '../../jsutils/jsonContentType.ts';
import { ROUTE_METHODS } from './resourceRoutes.ts';
import type { CompiledRoute, CompiledVersion } from './resourceRoutes.ts';

/** The versions a handler serves, by name, with each one's OpenAPI document. */
export class RouteTable {
  readonly versions: ReadonlyArray<CompiledVersion>;
  private readonly byName: ReadonlyMap<string, CompiledVersion>;
  /** Each version's OpenAPI document, made once: `/api/v1/openapi.json`. */
  private readonly openApiTexts: ReadonlyMap<string, string>;
  /** The newest version that is not retired: it answers requests that name none. */
  private readonly current: CompiledVersion;
  private readonly prefix: string;

  constructor(versions: ReadonlyArray<CompiledVersion>, schema: GraphQLSchema, prefix: string) {
    this.versions = versions;
    this.prefix = prefix;
    this.byName = new Map(versions.map((version) => [version.version, version]));
    this.openApiTexts = new Map(versions.map((version) => [version.version, JSON.stringify(openApiDocument(version, schema, prefix, 'Resource API'))]));
    if (this.byName.size !== versions.length) throw new TypeError('resources: two versions have the same name.');
    const served = versions.filter((version) => version.deprecation === null).sort((a, b) => Number(b.version.slice(1)) - Number(a.version.slice(1)));
    this.current = served[0] ?? (versions[versions.length - 1] as CompiledVersion);
  }

  /** The route a request names; else the answer: a refusal, or the version's OpenAPI document. */
  match(request: ResourceRequest<unknown>): RouteMatch | ResourceResponse {
    const queryStart = request.url.indexOf('?');
    const rawPath = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
    const search = queryStart === -1 ? '' : request.url.slice(queryStart + 1);
    const parts = pathParts(rawPath, this.prefix);
    if (typeof parts === 'string') return failure(ERROR_CODES.BadRequest, parts);
    const inPath = parts[0] !== undefined && /^v[0-9]+$/.test(parts[0]);
    const version = this.versionOf(inPath ? parts.shift() : (headerOf(request.headers, 'api-version') ?? headerOf(request.headers, 'accept-version')));
    if (isAnswer(version)) return version;
    const versionHeaders = versionHeadersOf(version, inPath);
    if (isAnswer(versionHeaders)) return versionHeaders;
    if (parts.length === 1 && parts[0] === '') return failure(ERROR_CODES.NotFound, `Nothing is served at ${rawPath}.`, versionHeaders);
    if (parts.length === 1 && parts[0] === 'openapi.json') return this.openApiAnswer(version, request.method, rawPath, versionHeaders);
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const route = routeOf(version, parts, method, request.method, rawPath, versionHeaders);
    if (isAnswer(route)) return route;
    return { route, version, parts, versionHeaders, rawPath, search, method };
  }

  /** The version a request names (by path or header), or the current one when it names none. */
  private versionOf(named: string | undefined): CompiledVersion | ResourceResponse {
    if (named === undefined) return this.current;
    const version = this.byName.get(named.trim());
    if (version !== undefined) return version;
    return failure(ERROR_CODES.NotFound, `There is no API version ${named}; the versions are ${this.versions.map((each) => each.version).join(', ')}.`);
  }

  private openApiAnswer(version: CompiledVersion, method: string, rawPath: string, versionHeaders: Record<string, string>): ResourceResponse {
    if (method !== 'GET' && method !== 'HEAD') {
      return failure(ERROR_CODES.MethodNotAllowed, `Method ${method} is not allowed on ${rawPath}; use GET, HEAD.`, { ...versionHeaders, allow: 'GET, HEAD' });
    }
    const text = this.openApiTexts.get(version.version) as string;
    return [method === 'HEAD' ? null : text, { status: 200, headers: { ...versionHeaders, 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-cache' } }];
  }
}

/** Whether a version is past its sunset (served no more: 410). */
export function isRetired(version: CompiledVersion): boolean {
  return version.deprecation !== null && Date.now() >= version.deprecation.sunset.getTime();
}

/** The route with these path parts (after the version) that answers `method` (HEAD read as GET), if any. */
export function routeFor(version: CompiledVersion, parts: ReadonlyArray<string>, method: string): CompiledRoute | undefined {
  return bestRoute(version.routes.filter((candidate) => candidate.method === method && matches(candidate, parts)));
}

/**
 * The path's segments after the prefix, decoded; else why the path names no resource. Encoded
 * slashes and dot segments never name one: refused rather than decoded into one.
 */
function pathParts(rawPath: string, prefix: string): string[] | string {
  if (/%2f|%5c|\/\.\.?(\/|$)/i.test(rawPath)) return 'The path has an encoded slash or a dot segment.';
  let parts: string[];
  try {
    parts = rawPath.slice(prefix.length + 1).split('/').map(decodeURIComponent);
  } catch {
    return 'The path is not valid percent-encoding.';
  }
  if (parts.some((part) => part === '.' || part === '..' || part.includes('/') || part.includes('\\'))) return 'The path has an encoded slash or a dot segment.';
  return parts;
}

/**
 * The headers every answer of a version carries; 410 Gone past its sunset. Named by a header,
 * or by none, the answer depends on the version headers, so caches must know (Vary); named in
 * the path, it does not.
 */
function versionHeadersOf(version: CompiledVersion, inPath: boolean): Record<string, string> | ResourceResponse {
  const headers: Record<string, string> = inPath ? { 'api-version': version.version } : { 'api-version': version.version, vary: 'API-Version, Accept-Version' };
  const { deprecation } = version;
  if (deprecation === null) return headers;
  if (isRetired(version)) return failure(ERROR_CODES.Gone, `API version ${version.version} was retired on ${deprecation.sunset.toISOString().slice(0, 10)}.`, headers);
  // RFC 9745: a Structured Field Date (seconds); RFC 8594: an HTTP date.
  headers['deprecation'] = `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`;
  headers['sunset'] = deprecation.sunset.toUTCString();
  if (deprecation.link !== null) headers['link'] = `<${deprecation.link}>; rel="deprecation"; type="text/html"`;
  return headers;
}

/** The route of these path parts for the method; 404 when no route has the path, 405 with Allow when none takes the method. */
function routeOf(
  version: CompiledVersion,
  parts: ReadonlyArray<string>,
  method: string,
  requestMethod: string,
  rawPath: string,
  versionHeaders: Record<string, string>,
): CompiledRoute | ResourceResponse {
  const matching = version.routes.filter((route) => matches(route, parts));
  if (matching.length === 0) return failure(ERROR_CODES.NotFound, `No resource is served at ${rawPath}.`, versionHeaders);
  const route = bestRoute(matching.filter((candidate) => candidate.method === method));
  if (route !== undefined) return route;
  const allowed = ROUTE_METHODS.filter((each) => matching.some((candidate) => candidate.method === each));
  const allow = [...(allowed.includes('GET') ? ['GET', 'HEAD'] : []), ...allowed.filter((each) => each !== 'GET')].join(', ');
  return failure(ERROR_CODES.MethodNotAllowed, `Method ${requestMethod} is not allowed on ${rawPath}; use ${allow}.`, { ...versionHeaders, allow });
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
