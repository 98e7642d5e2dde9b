/**
 * Writing a resource route's answer: from the operation's outcome, the status, headers and body
 * the route's method calls for; and the `{ error: { code, message } }` answer of every refusal.
 *
 *   GET      200 `{ data }` with an ETag (If-None-Match that names it: 304), null: 404;
 *            HEAD as GET without the body
 *   POST     201 with Location (the new item's route)
 *   PUT      200, PATCH 200 (204 when nothing is returned)
 *   DELETE   204
 *   an error: its own code and status (FORBIDDEN 403, NOT_FOUND 404, BAD_USER_INPUT 400, ...) or 500
 */
import type { GraphQLError } from 'graphql';
import { ERROR_CODES, executionErrorStatus } from '../../errors/codes.ts';
import type { ErrorCode, ErrorCodeInfo } from '../../errors/codes.ts';
import type { OperationOutcome, OperationResult } from '../../server/pipeline.ts';
import type { RateRefusal } from '../../ratelimit/rateLimiter.ts';
import { addRateHeaders, etagOf, headerOf, matchesEtag } from '../httpHeaders.ts';
import type { ResourceRequest, ResourceResponse, RouteCall } from './resourceCall.ts';
import { locationOf, pagingLinks } from './resourceLinks.ts';
import type { CompiledRoute } from './resourceRoutes.ts';
import { JSON_CONTENT_TYPE } from '../../jsutils/jsonContentType.ts';

/** A refusal: `{ error: { code, message } }` with the status the registry gives its code. */
export function failure(error: ErrorCodeInfo<ErrorCode, number>, message: string, headers: Record<string, string> = {}): ResourceResponse {
  return errorAnswer(error.status, error.code, message, headers);
}

/** A refusal whose status and code another layer decided (the authenticator, the rate limiter, a resolver). */
export function errorAnswer(status: number, code: string, message: string, headers: Record<string, string>): ResourceResponse {
  return [JSON.stringify({ error: { code, message } }), { status, headers: { ...headers, 'content-type': JSON_CONTENT_TYPE } }];
}

/** Over the rate limit (429), or its store away (503): when to try again, and the caller's standing. */
export function rateLimitedAnswer(refusal: RateRefusal, versionHeaders: Record<string, string>): ResourceResponse {
  const headers: Record<string, string> = { ...versionHeaders, 'retry-after': String(refusal.retryAfter) };
  if (refusal.standing !== null) addRateHeaders(headers, refusal.standing);
  const answer = errorAnswer(refusal.status, refusal.code, refusal.message, headers);
  answer[1].holdMs = refusal.holdMs;
  return answer;
}

/**
 * The operation's outcome as the route's HTTP answer. A route's operation is a query run by GET
 * or a mutation run by another method, neither deferring nor streaming, so it never comes to a
 * subscription's stream, to incremental payloads or to a method that may not carry it: those
 * would be the server's fault.
 */
export function answerOutcome(call: RouteCall, request: ResourceRequest<unknown>, outcome: OperationOutcome, prefix: string): ResourceResponse {
  switch (outcome.kind) {
    case 'result':
      return resultAnswer(call, request, outcome, prefix);
    case 'rateLimited':
      return rateLimitedAnswer(outcome.refusal, call.versionHeaders);
    case 'incremental':
      // Routes that defer or stream are refused at start (resourceRoutes.ts), and a route's
      // request carries no incremental format: closed, should it ever come.
      void outcome.subsequent.return().catch(() => undefined);
      return failure(ERROR_CODES.InternalServerError, 'The route did not run as an operation.', call.versionHeaders);
    case 'stream':
    case 'notAllowed':
      return failure(ERROR_CODES.InternalServerError, 'The route did not run as an operation.', call.versionHeaders);
    default: {
      const unhandled: never = outcome;
      throw new TypeError(`Unexpected outcome: ${JSON.stringify(unhandled)}`);
    }
  }
}

/** The outcome's result, when the operation ran (whether it succeeded or not); null otherwise. */
export function resultOf(outcome: OperationOutcome): OperationResult | null {
  return outcome.kind === 'result' ? outcome : null;
}

/** The resource in an operation's data: the root field's value, or a sub-collection's field under it. */
export function resourceOf(route: CompiledRoute, data: unknown): unknown {
  const owner = (data as Record<string, unknown> | null | undefined)?.[route.field] ?? null;
  return route.subField === null || owner === null ? owner : ((owner as Record<string, unknown>)[route.subField] ?? null);
}

function resultAnswer(call: RouteCall, request: ResourceRequest<unknown>, outcome: OperationResult, prefix: string): ResourceResponse {
  const headers: Record<string, string> = { ...call.versionHeaders };
  if (outcome.rate !== undefined) addRateHeaders(headers, outcome.rate);
  const { result } = outcome;
  if (result.errors !== undefined && result.errors.length > 0) return graphQLErrorAnswer(result.errors[0] as GraphQLError, outcome.requestError, headers);
  const value = resourceOf(call.route, result.data);
  switch (call.route.method) {
    case 'GET':
      return readAnswer(call, request, value, headers);
    case 'DELETE':
      return [null, { status: 204, headers }];
    default:
      return writeAnswer(call, value, headers, prefix);
  }
}

/**
 * The first error of a result that has errors. A request error (no data) is the client's: its
 * variables did not coerce, or it is over a limit (400), or it asks for fields the caller may
 * not use (403). A field error answers with its code's status, or 500 for a code that says
 * nothing about HTTP.
 */
function graphQLErrorAnswer(first: GraphQLError, requestError: boolean, headers: Record<string, string>): ResourceResponse {
  const code = String(first.extensions?.['code'] ?? ERROR_CODES.InternalServerError.code);
  if (requestError) return failure(code === ERROR_CODES.Forbidden.code ? ERROR_CODES.Forbidden : ERROR_CODES.BadRequest, first.message, headers);
  return errorAnswer(executionErrorStatus(code), code, first.message, headers);
}

/**
 * A GET's (or HEAD's) answer: the resource with its entity tag (RFC 9110 §8.8.3), or 304 Not
 * Modified when If-None-Match names that tag (§13.1.2). Answers differ by credential, so shared
 * caches may keep only those sent without one; every cache asks again before reusing one.
 */
function readAnswer(call: RouteCall, request: ResourceRequest<unknown>, value: unknown, headers: Record<string, string>): ResourceResponse {
  if (value === null) return failure(ERROR_CODES.NotFound, `No resource is at ${call.rawPath}.`, headers);
  const text = JSON.stringify({ data: value });
  const etag = call.etags === null ? etagOf(text) : call.etags.etagOf(text);
  headers['etag'] = etag;
  const links = pagingLinks(call.route, call.variables, value, call.rawPath, call.search);
  if (links !== null) headers['link'] = headers['link'] === undefined ? links : `${headers['link']}, ${links}`;
  headers['cache-control'] = request.headers['authorization'] !== undefined || request.headers['x-api-key'] !== undefined ? 'private, no-cache' : 'no-cache';
  if (matchesEtag(headerOf(request.headers, 'if-none-match'), etag)) return [null, { status: 304, headers }];
  headers['content-type'] = JSON_CONTENT_TYPE;
  return [request.method === 'HEAD' ? null : text, { status: 200, headers }];
}

/** A POST's, PUT's or PATCH's answer: the resource it returned (201 with Location for a POST). */
function writeAnswer(call: RouteCall, value: unknown, headers: Record<string, string>, prefix: string): ResourceResponse {
  if (value === null) return failure(ERROR_CODES.NotFound, `No resource is at ${call.rawPath}.`, headers);
  // An operation that returns no resource (a Boolean, say): nothing to send back.
  if (typeof value !== 'object') return [null, { status: 204, headers }];
  headers['content-type'] = JSON_CONTENT_TYPE;
  if (call.route.method === 'POST') {
    const location = locationOf(call.version, call.route, value, prefix);
    if (location !== null) headers['location'] = location;
    return [JSON.stringify({ data: value }), { status: 201, headers }];
  }
  return [JSON.stringify({ data: value }), { status: 200, headers }];
}
