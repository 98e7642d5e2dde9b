/**
 * The resource-style surface: `/api/v1/books/b1` and the like, each route a GraphQL operation
 * (resourceRoutes.ts) run through the same pipeline as `/graphql`: the same authentication,
 * rate limits, limits, authorization and executor. What is HTTP's is in this folder, one step a
 * module, in the order a request meets them:
 *
 *   routeReader.ts      the request read into a call, or remembered from an earlier GET
 *     routeTable.ts       path, version and method: the route (400, 404, 405, 410; OpenAPI)
 *     routeParameters.ts  path, query and body: the operation's variables (400, 415)
 *   this module         authentication (the pipeline) ─ 401 / 403 / 503, then
 *     preconditions.ts    If-Match ─ 412
 *                         the operation (the pipeline) ─ 429 / 503
 *   resourceAnswer.ts   the outcome as the method's answer (200, 201, 204, 304, 404, an error's status)
 *     resourceLinks.ts    Link to other pages, Location of a created item
 */
import type { GraphQLSchema } from 'graphql';
import type { Limits } from '../../analysis/limits.ts';
import type { OperationOutcome, OperationPipeline, RequestParams } from '../../server/pipeline.ts';
import { AuthError } from '../../security/authError.ts';
import { ANONYMOUS } from '../../security/identity.ts';
import type { Identity } from '../../security/identity.ts';
import type { RateRefusal } from '../../ratelimit/rateLimiter.ts';
import { telemetry } from '../../observability/openTelemetry.ts';
import { clientInfo } from '../httpHeaders.ts';
import { HttpOperation } from '../httpOperation.ts';
import { preconditionHolds, preconditionOf } from './preconditions.ts';
import type { Precondition } from './preconditions.ts';
import { ERROR_CODES } from '../../errors/codes.ts';
import { answerOutcome, errorAnswer, failure, rateLimitedAnswer } from './resourceAnswer.ts';
import type { ResourceRequest, ResourceResponse, RouteCall } from './resourceCall.ts';
import { isAnswer } from './resourceCall.ts';
import { compileVersion } from './resourceRoutes.ts';
import type { CompiledVersion, ResourceVersionOptions } from './resourceRoutes.ts';
import { RouteReader } from './routeReader.ts';
import { RouteTable } from './routeTable.ts';

export type { ResourceRequest, ResourceResponse } from './resourceCall.ts';

export type ResourcesOptions = ResourceVersionOptions | ReadonlyArray<ResourceVersionOptions>;

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
  return new ResourceSurface(new RouteTable(versions, pipeline.schema, prefix), pipeline, prefix);
}

/**
 * A request's way through the surface once it is read into a call: authenticated, its
 * precondition checked, its operation run, its outcome answered. Synchronous when
 * authentication and execution are (a promise only when something waits).
 */
class ResourceSurface<Raw> implements ResourceHandler<Raw> {
  readonly versions: ReadonlyArray<CompiledVersion>;
  private readonly reader: RouteReader;
  private readonly pipeline: OperationPipeline<Raw>;
  private readonly prefix: string;

  constructor(table: RouteTable, pipeline: OperationPipeline<Raw>, prefix: string) {
    this.versions = table.versions;
    this.reader = new RouteReader(table);
    this.pipeline = pipeline;
    this.prefix = prefix;
    // The HTTP handler may call these apart from the surface.
    this.owns = this.owns.bind(this);
    this.handle = this.handle.bind(this);
  }

  owns(pathname: string): boolean {
    return pathname === this.prefix || pathname.startsWith(this.prefix + '/');
  }

  handle(request: ResourceRequest<Raw>): ResourceResponse | Promise<ResourceResponse> {
    const call = this.reader.read(request);
    // The version's index is an answer; a refusal before any operation (no such route or
    // version, a method, Accept or body the route does not take) is charged, as on /graphql.
    if (isAnswer(call)) return call[1].status < 400 ? call : this.charged(ANONYMOUS, request, {}, call);
    // Traced: the request's span is named by the route's template, not the path sent.
    const otel = telemetry();
    if (otel !== null) otel.routed(request.method, routeTemplate(call));
    const authenticated = this.pipeline.authenticate(request.headers);
    return authenticated instanceof Promise ? authenticated.then((identity) => this.authenticated(call, request, identity)) : this.authenticated(call, request, authenticated);
  }

  /** Once the caller is known: a refused credential's answer; else If-Match, then the operation. */
  private authenticated(call: RouteCall, request: ResourceRequest<Raw>, identity: Identity | AuthError): ResourceResponse | Promise<ResourceResponse> {
    if (identity instanceof AuthError) return this.refusedCredential(call, request, identity);
    const precondition = preconditionOf(call, request);
    return precondition === null ? this.run(call, request, identity) : this.runIfMatched(precondition, call, request, identity);
  }

  /** 401 with a challenge, 403 or 503, as on `/graphql`. A refused credential is charged to the client's address (see OperationPipeline.charge). */
  private refusedCredential(call: RouteCall, request: ResourceRequest<Raw>, refusal: AuthError): ResourceResponse | Promise<ResourceResponse> {
    const headers: Record<string, string> = { ...call.versionHeaders };
    const challenge = this.pipeline.challenge(refusal);
    if (challenge !== null) headers['www-authenticate'] = challenge;
    const refused = errorAnswer(refusal.status, refusal.code, refusal.message, headers);
    return refusal.status === 503 ? refused : this.charged(ANONYMOUS, request, call.versionHeaders, refused);
  }

  /** The write, if its If-Match names the resource's current entity tag; else 412. */
  private async runIfMatched(precondition: Precondition, call: RouteCall, request: ResourceRequest<Raw>, identity: Identity): Promise<ResourceResponse> {
    if (await preconditionHolds(this.pipeline, precondition, call, request, identity)) return this.run(call, request, identity);
    // The write does not run, and is not charged: the read that refused it is.
    const message = `The resource at ${call.rawPath} is not the one If-Match names (it has changed, or is gone).`;
    return this.charged(identity, request, call.versionHeaders, failure(ERROR_CODES.PreconditionFailed, message, call.versionHeaders));
  }

  /** Runs the route's operation through the pipeline, and answers its outcome. */
  private run(call: RouteCall, request: ResourceRequest<Raw>, identity: Identity): ResourceResponse | Promise<ResourceResponse> {
    const params: RequestParams = call.known?.params ?? { query: call.route.query, operationName: null, variables: call.variables };
    // The body (the variables) is the client's, charged by its size; the route's document is the server's own.
    const size = request.body === null ? undefined : request.body.length + (params.query?.length ?? 0);
    const outcome = this.pipeline.run(new HttpOperation(request, identity, params, call.method === 'GET', false, false, undefined, size), call.known ?? undefined);
    return outcome instanceof Promise ? outcome.then((settled) => this.answer(call, request, settled)) : this.answer(call, request, outcome);
  }

  private answer(call: RouteCall, request: ResourceRequest<Raw>, outcome: OperationOutcome): ResourceResponse {
    return answerOutcome(call, request, outcome, this.prefix);
  }

  /** `refused`, once one request is charged for it; the rate limit's 429 when the budget is spent. */
  private charged(identity: Identity, request: ResourceRequest<Raw>, versionHeaders: Record<string, string>, refused: ResourceResponse): ResourceResponse | Promise<ResourceResponse> {
    const toAnswer = (refusal: RateRefusal | null) => (refusal === null ? refused : rateLimitedAnswer(refusal, versionHeaders));
    const charge = this.pipeline.charge(identity, clientInfo(request));
    return charge instanceof Promise ? charge.then(toAnswer) : toAnswer(charge);
  }
}

/**
 * A matched route's template as OpenTelemetry's `http.route` gives it: the path sent, its
 * segments after the prefix and the version replaced by the route's (`/api/v1/books/{id}`).
 */
function routeTemplate(call: RouteCall): string {
  let end = call.rawPath.length;
  for (let i = 0; i < call.parts.length; i++) end = call.rawPath.lastIndexOf('/', end - 1);
  return call.rawPath.slice(0, end) + call.route.path;
}
