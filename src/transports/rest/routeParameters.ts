/**
 * Reading and checking a request's parameters into its operation's variables: path parameters,
 * then query parameters, then the JSON body (resourceRoutes.ts says which variable each fills).
 *
 *   path parameter of 0 or more than 256 characters ─ 400
 *   query parameter the route does not take ─ 400 naming it and those it takes;
 *     repeated ─ 400 unless its variable is a list
 *   a body on GET or DELETE ─ 400; a body not `application/json` ─ 415; not a JSON object ─ 400;
 *     a member that is not a parameter of the route ─ 400
 *
 * Values that do not coerce to their variables' types are GraphQL's to refuse, when the
 * operation runs.
 */
import { headerOf } from '../httpHeaders.ts';
import { ERROR_CODES } from '../../errors/codes.ts';
import { failure } from './resourceAnswer.ts';
import type { ResourceRequest, ResourceResponse, RouteMatch } from './resourceCall.ts';
import { isAnswer } from './resourceCall.ts';
import { valueFromText } from './resourceRoutes.ts';
import type { CompiledRoute } from './resourceRoutes.ts';

/** Longest path parameter accepted (an id of 10,000 characters is nobody's). */
const MAX_PARAM = 256;

/** The variables a request gives its route's operation; else the 400 or 415 that refuses it. */
export function readVariables(match: RouteMatch, request: ResourceRequest<unknown>): Record<string, unknown> | ResourceResponse {
  const variables: Record<string, unknown> = {};
  const refused =
    readPathParameters(match.route, match.parts, variables, match.versionHeaders) ??
    readQueryParameters(match.route, match.search, variables, match.versionHeaders) ??
    readBody(match, request, variables);
  return refused ?? variables;
}

/** The path parameters' variables, as GET reads them for these path parts (unchecked: the request's own route checked them). */
export function pathVariables(route: CompiledRoute, parts: ReadonlyArray<string>): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const [index, segment] of route.segments.entries()) {
    if (typeof segment !== 'string') variables[segment.param] = pathValue(route, segment.param, parts[index] as string);
  }
  return variables;
}

/** A path parameter's text as its variable's value. */
function pathValue(route: CompiledRoute, param: string, text: string): unknown {
  const variable = route.variables.find((each) => each.name === param);
  return variable === undefined ? text : valueFromText([text], variable.type);
}

function readPathParameters(route: CompiledRoute, parts: ReadonlyArray<string>, variables: Record<string, unknown>, headers: Record<string, string>): ResourceResponse | null {
  for (const [index, segment] of route.segments.entries()) {
    if (typeof segment === 'string') continue;
    const text = parts[index] as string;
    if (text.length === 0 || text.length > MAX_PARAM) return failure(ERROR_CODES.BadRequest, `The path parameter ${segment.param} must be 1 to ${MAX_PARAM} characters.`, headers);
    variables[segment.param] = pathValue(route, segment.param, text);
  }
  return null;
}

function readQueryParameters(route: CompiledRoute, search: string, variables: Record<string, unknown>, headers: Record<string, string>): ResourceResponse | null {
  const query = new URLSearchParams(search);
  const unknown = [...new Set(query.keys())].filter((name) => !route.variables.some((variable) => variable.name === name) || Object.hasOwn(variables, name));
  if (unknown.length > 0) {
    const known = route.variables.filter((variable) => !Object.hasOwn(variables, variable.name)).map((variable) => variable.name);
    const takes = known.length === 0 ? 'this route takes none' : `this route takes ${known.join(', ')}`;
    return failure(ERROR_CODES.BadRequest, `Unknown query parameter${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; ${takes}.`, headers);
  }
  for (const variable of route.variables) {
    const texts = query.getAll(variable.name);
    if (texts.length === 0) continue;
    const value = valueFromText(texts, variable.type);
    if (value instanceof Error) return failure(ERROR_CODES.BadRequest, `The query parameter ${variable.name} is given more than once.`, headers);
    variables[variable.name] = value;
  }
  return null;
}

/** The body's members as variables, or the whole body as the route's one input-object variable. */
function readBody(match: RouteMatch, request: ResourceRequest<unknown>, variables: Record<string, unknown>): ResourceResponse | null {
  const { route, method, versionHeaders } = match;
  const body = request.body;
  if (body === null || body.length === 0) return null;
  if (method === 'GET' || method === 'DELETE') return failure(ERROR_CODES.BadRequest, `A ${request.method} request has no body.`, versionHeaders);
  const parsed = jsonObjectOf(body, headerOf(request.headers, 'content-type'), versionHeaders);
  if (isAnswer(parsed)) return parsed;
  if (route.bodyVariable !== null && !Object.hasOwn(variables, route.bodyVariable)) {
    variables[route.bodyVariable] = parsed;
    return null;
  }
  for (const [name, value] of Object.entries(parsed)) {
    if (Object.hasOwn(variables, name) || !route.variables.some((variable) => variable.name === name)) {
      return failure(ERROR_CODES.BadRequest, `The body member ${name} is not a parameter of this route.`, versionHeaders);
    }
    variables[name] = value;
  }
  return null;
}

/** A body as the JSON object it must be; else 415 (not JSON by its Content-Type) or 400. */
function jsonObjectOf(body: string, contentType: string | undefined, headers: Record<string, string>): Record<string, unknown> | ResourceResponse {
  if (contentType === undefined || contentType.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
    return failure(ERROR_CODES.UnsupportedMediaType, 'A body must be application/json.', headers);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return failure(ERROR_CODES.BadRequest, `The body is not valid JSON: ${(error as Error).message}`, headers);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return failure(ERROR_CODES.BadRequest, 'The body must be a JSON object.', headers);
  return parsed as Record<string, unknown>;
}
