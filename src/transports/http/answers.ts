/**
 * The answers of GraphQL over HTTP that are not a result: refusals in the service's error shapes,
 * and the headers every answer may carry (RateLimit, CORS).
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import { ErrorCode, errorBody, httpStatus } from '../../errors/codes.ts';
import { stringifyData } from '../../execution/compileStringify.ts';
import type { SelectionPlan } from '../../execution/plan.ts';
import { stringifySmall } from '../../jsutils/stringifySmall.ts';
import { rateLimitHeader } from '../../ratelimit/rateLimiter.ts';
import type { RateRefusal, RateStanding } from '../../ratelimit/rateLimiter.ts';
import type { HandlerResponse, ResponseInit } from './handler.ts';
import { addRateHeaders } from '../httpHeaders.ts';
import { EVENT_STREAM, JSON_RESPONSE } from './mediaTypes.ts';

/** `{ error: { code, message } }` with the code's status. */
export function httpFailure(code: ErrorCode, message: string, extraHeaders: Record<string, string> = {}): HandlerResponse {
  return [errorBody(code, message), { status: httpStatus(code), headers: { 'content-type': JSON_RESPONSE, ...extraHeaders } }];
}

/**
 * A request that is not a well-formed GraphQL request: 400, with a GraphQL-shaped body (JSON,
 * also when events were asked for: there is no operation to stream).
 */
export function graphqlFailure(mediaType: string, error: GraphQLError): HandlerResponse {
  return [JSON.stringify({ errors: [error] }), { status: 400, headers: { 'content-type': mediaType === EVENT_STREAM ? JSON_RESPONSE : mediaType } }];
}

/**
 * Over the rate limit (429) or the limiter's store away (503): `{ error: { code, message } }`,
 * Retry-After in seconds, and where the budgets stand.
 */
export function rateLimitedAnswer(refusal: RateRefusal): HandlerResponse {
  const headers: Record<string, string> = { 'content-type': JSON_RESPONSE, 'retry-after': String(refusal.retryAfter) };
  if (refusal.standing !== null) addRateHeaders(headers, refusal.standing);
  return [JSON.stringify({ error: { code: refusal.code, message: refusal.message } }), { status: refusal.status, headers, holdMs: refusal.holdMs }];
}

/** A mutation sent with GET: 405, and Allow says what to use. */
export function notAllowedAnswer(operation: 'mutation'): HandlerResponse {
  return httpFailure(ErrorCode.MethodNotAllowed, `A ${operation} cannot be sent with GET; use POST.`, { allow: 'POST' });
}

/** A response's headers with RateLimit-Policy and RateLimit: made whole at once, not grown. */
export function withRateHeaders(mediaType: string, standing: RateStanding): Record<string, string> {
  const current = rateLimitHeader(standing);
  if (current === null) return { 'content-type': mediaType };
  return { 'content-type': mediaType, 'ratelimit-policy': standing.policy.header, ratelimit: current };
}

/** An answer with more headers (CORS): where both vary, the answer varies by all their names. */
export function withHeaders(response: HandlerResponse, extra: Readonly<Record<string, string>>): HandlerResponse {
  const [body, init] = response;
  const headers = { ...init.headers, ...extra };
  const vary = init.headers['vary'];
  if (vary !== undefined && extra['vary'] !== undefined) {
    const names = `${vary}, ${extra['vary']}`.split(',').map((name) => name.trim());
    headers['vary'] = names.filter((name, index) => names.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === index).join(', ');
  }
  const withExtra: ResponseInit = { status: init.status, headers };
  if (init.holdMs !== undefined) withExtra.holdMs = init.holdMs;
  return [body, withExtra];
}

/**
 * A small result's JSON text: `data` by the root plan's generated writer, the cost report by
 * stringifySmall; the same text JSON.stringify gives (compileStringify.ts says why, and
 * spec-tests/compiled-stringify.test.ts proves it). Results with errors, and anything unusual,
 * are left to JSON.stringify.
 */
export function smallResultText(result: ExecutionResult, root: SelectionPlan): string {
  if (result.errors === undefined && (Object.prototype as { toJSON?: unknown }).toJSON === undefined) {
    const data = stringifyData(root, result.data);
    if (data !== undefined) {
      if (result.extensions === undefined) return '{"data":' + data + '}';
      const extensions = stringifySmall(result.extensions);
      if (extensions !== undefined) return '{"data":' + data + ',"extensions":' + extensions + '}';
    }
  }
  return JSON.stringify(result);
}
