/**
 * GraphQL over HTTP, without the HTTP: a plain request in, `[body, init]` out.
 *
 * The protocol logic knows nothing of `node:http` (server.ts only converts), so it can be read,
 * tested and reused on its own. One request goes through these phases; each can end it:
 *
 *   path ─ 404        method ─ 405         Accept ─ 406          Content-Type ─ 415
 *   JSON body and members ─ 400 BAD_REQUEST      batch size ─ 400 BATCH_LIMIT_EXCEEDED
 *   for each operation:
 *     parse (length, tokens) ─ GRAPHQL_PARSE_FAILED / TOKEN_LIMIT_EXCEEDED      ┐ cached by
 *     validate ─ GRAPHQL_VALIDATION_FAILED                                       ┘ query text
 *     mutation over GET ─ 405          limits (depth, cost, ...) ─ *_LIMIT_EXCEEDED
 *     execute, within the timeout ─ TIMEOUT; resolver errors ─ INTERNAL_SERVER_ERROR
 *   respond: application/graphql-response+json (400 when there is no data) or
 *            application/json (200), ETag and 304 for GET
 *
 * Media types and status codes follow the GraphQL-over-HTTP specification.
 */
import { createHash, randomUUID } from 'node:crypto';
import { GraphQLError, NoSchemaIntrospectionCustomRule, specifiedRules, validate } from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLSchema, OperationDefinitionNode, ValidationRule } from 'graphql';
import { checkBatchSize, checkLimits, DEFAULT_LIMITS, parseWithLimits } from '../analysis/limits.ts';
import type { Limits } from '../analysis/limits.ts';
import type { Analysis } from '../analysis/analyze.ts';
import { executePlan } from '../execution/execute.ts';
import { OperationPlan, planOperation } from '../execution/plan.ts';
import type { SelectionPlan } from '../execution/plan.ts';
import { stringifyData } from '../execution/compileStringify.ts';
import { GraphQLErrorCode, HttpErrorCode, codedError, httpErrorBody, withCode } from './errors.ts';
import type { HttpError } from './errors.ts';
import { LruCache } from './lruCache.ts';
import { describe } from '../jsutils/describe.ts';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { stringifySmall } from '../jsutils/stringifySmall.ts';

/** A request as any transport can describe it. */
export interface PlainRequest<Raw = unknown> {
  readonly method: string;
  /** Path and query string, as on the request line: `/graphql?query=...`. */
  readonly url: string;
  /** Header values by lower-case name. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body as UTF-8 text, or null when there is none. */
  readonly body: string | null;
  /** The transport's own request object, handed to the context factory. */
  readonly raw: Raw;
  /**
   * Registers a callback for the client going away before the response is complete; called
   * at once if it already has. The handler registers only for executions that go asynchronous:
   * a synchronous one is over before the transport could notice anything. (A hook rather than
   * an AbortSignal: on Node 20 creating a signal costs several microseconds, a tenth of a small
   * request's whole time, so signals are made only when someone asks; see OperationAbort.)
   */
  onClientGone?(callback: () => void): void;
}

/** What a context factory receives beside the request. */
export interface OperationScope {
  /**
   * Aborts when the execution times out or the client goes away. Made on first read (a signal
   * is dear on Node 20), so read it only where it is used, or keep the scope itself.
   */
  readonly signal: AbortSignal;
}

export interface ResponseInit {
  status: number;
  headers: Record<string, string>;
}

export type HandlerResponse = [body: string | null, init: ResponseInit];

/** A value now, or a promise of it: the handler answers synchronously when execution is synchronous. */
export type MaybePromise<T> = T | Promise<T>;

export interface LogEntry {
  level: 'error' | 'info';
  message: string;
  requestId?: string;
  error?: unknown;
}

export interface HandlerOptions<Raw = unknown> {
  schema: GraphQLSchema;
  /**
   * The per-request context: where loaders and the caller's identity come from. It may return a
   * promise. Without a factory, the context is `{ request, signal }`.
   */
  context?: (request: Raw, scope: OperationScope) => unknown;
  /** Where the endpoint is (default `/graphql`). */
  path?: string;
  limits?: Partial<Limits>;
  /** Parsed and validated documents kept, by query text (default 1000). */
  documentCacheSize?: number;
  /** Execution time allowed (default 10 s); past it the client gets TIMEOUT and the signal aborts. */
  executionTimeoutMs?: number;
  /** Mask unexpected errors, refuse introspection, no suggestions (default: NODE_ENV is production). */
  production?: boolean;
  /** Allow introspection (default: not in production). */
  introspection?: boolean;
  /** Add `extensions.cost = { requested, actual, limit }` to results (default true). */
  reportCost?: boolean;
  log?: (entry: LogEntry) => void;
}

/**
 * An operation with no list field and at most this many fields (fragments written out) has a
 * result small enough that generated code writes it faster than the native JSON.stringify.
 */
const SMALL_RESULT_FIELDS = 32;

/** Bodies up to this many characters have their parsed members remembered (a few MB at most). */
const SMALL_BODY = 4096;

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_RESPONSE = 'application/json; charset=utf-8';

/** What a query text becomes once: its document and validation errors, or its parse errors. */
interface PreparedDocument {
  readonly document: DocumentNode | null;
  readonly errors: ReadonlyArray<GraphQLError>;
  /** Limit checks of operations without variables, whose outcome cannot change (by operation name). */
  readonly checked: Map<string | null, { analysis: Analysis | null; errors: GraphQLError[] }>;
}

/** The members of one GraphQL request, as received. */
interface RequestParams {
  query: string;
  operationName: string | null;
  variables: Record<string, unknown> | null;
}

/** An operation that has passed every check before execution: what executing it needs. */
interface ReadyOperation {
  /** The chosen operation, planned (it holds the schema, document and operation). */
  readonly plan: OperationPlan;
  /** The cost analysis, for the cost report (null when limits are off). */
  readonly analysis: Analysis | null;
  /** The root selection plan when the result is small (see isSmall), whose generated writer writes `data`. */
  readonly writer: SelectionPlan | null;
}

/**
 * A small POST body seen before. Everything between the body and execution depends only on the
 * body's text (its query, operation name and variables) and on this handler's fixed schema,
 * limits and rules, so a body whose operation passed every check once is executed at once the
 * next time: `ready` is set then.
 */
interface KnownBody {
  readonly params: RequestParams;
  ready: ReadyOperation | null;
}

interface OperationOutcome {
  result: ExecutionResult;
  /** Whether the result is a request error (no `data`): 400 under application/graphql-response+json. */
  requestError: boolean;
  /**
   * For a result known to be small (see isSmall): the operation's root selection plan, whose
   * generated writer writes `data` (compileStringify.ts). Otherwise the native JSON.stringify does.
   */
  writer?: SelectionPlan | null;
}

/** Builds the handler: a function from a plain request to `[body, init]`. */
export function createHandler<Raw = unknown>(options: HandlerOptions<Raw>): (request: PlainRequest<Raw>) => MaybePromise<HandlerResponse> {
  const path = options.path ?? '/graphql';
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const production = options.production ?? process.env.NODE_ENV === 'production';
  const introspection = options.introspection ?? !production;
  const reportCost = options.reportCost ?? true;
  const timeoutMs = options.executionTimeoutMs ?? 10_000;
  const log = options.log ?? ((entry: LogEntry) => console.error(entry.message, entry.requestId ?? '', entry.error ?? ''));
  const documents = new LruCache<string, PreparedDocument>(options.documentCacheSize ?? 1000);
  /** Small POST bodies already read, by body text (see SMALL_BODY and KnownBody). */
  const knownBodies = new LruCache<string, KnownBody>(options.documentCacheSize ?? 1000);
  const rules: ReadonlyArray<ValidationRule> = introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
  const schema = options.schema;

  function prepare(query: string): PreparedDocument {
    let prepared = documents.get(query);
    if (prepared === undefined) {
      const parsed = parseWithLimits(query, limits);
      if ('errors' in parsed) {
        prepared = { document: null, errors: parsed.errors, checked: new Map() };
      } else {
        const errors = validate(schema, parsed.document, rules, { hideSuggestions: production }).map((error) =>
          withCode(error, GraphQLErrorCode.ValidationFailed),
        );
        prepared = { document: errors.length > 0 ? null : parsed.document, errors, checked: new Map() };
      }
      documents.set(query, prepared);
    }
    return prepared;
  }

  /** Checks an operation (parse, validate, choose, method, limits) and executes it; `known` then remembers it as ready. */
  function runOperation(
    params: RequestParams,
    method: string,
    request: PlainRequest<Raw>,
    known?: KnownBody,
  ): MaybePromise<OperationOutcome | HandlerResponse> {
    const prepared = prepare(params.query);
    if (prepared.document === null) return { result: { errors: [...prepared.errors] }, requestError: true };
    const document = prepared.document;

    // The executor's own plan cache chooses the operation (and keeps the choice for execute()).
    const plan = planOperation(schema, document, params.operationName);
    if (!(plan instanceof OperationPlan)) {
      return { result: { errors: plan.map((error) => withCode(error, GraphQLErrorCode.OperationResolutionFailure)) }, requestError: true };
    }
    const kind = plan.operation.operation;
    if (method === 'GET' && kind !== 'query') {
      return httpFailure(HttpErrorCode.MethodNotAllowed, `A ${kind} cannot be sent with GET; use POST.`, { allow: 'POST' });
    }
    if (kind === 'subscription') {
      return {
        result: { errors: [codedError('Subscriptions are not served over a plain HTTP request.', GraphQLErrorCode.SubscriptionOverHttp)] },
        requestError: true,
      };
    }

    const checked = checkOperation(prepared, document, plan.operation, params);
    if (checked.errors.length > 0) return { result: { errors: checked.errors }, requestError: true };

    const ready: ReadyOperation = { plan, analysis: checked.analysis, writer: isSmall(checked.analysis) ? plan.root : null };
    if (known !== undefined) known.ready = ready;
    return startOperation(ready, params, request);
  }

  /** Makes the operation's context, then executes it. */
  function startOperation(ready: ReadyOperation, params: RequestParams, request: PlainRequest<Raw>): MaybePromise<OperationOutcome> {
    const abort = new OperationAbort();
    const contextValue = options.context ? options.context(request.raw, abort) : new DefaultContext(request.raw, abort);
    if (isPromiseLike(contextValue)) {
      return Promise.resolve(contextValue).then((resolved) => executeOperation(ready, params, request, abort, resolved));
    }
    return executeOperation(ready, params, request, abort, contextValue);
  }

  /** Runs a checked operation; a synchronous execution is answered at once, an asynchronous one within the timeout. */
  function executeOperation(
    ready: ReadyOperation,
    params: RequestParams,
    request: PlainRequest<Raw>,
    abort: OperationAbort,
    contextValue: unknown,
  ): MaybePromise<OperationOutcome> {
    const executed = executePlan(ready.plan, {
      variableValues: params.variables,
      contextValue,
      measureCost: reportCost,
      signal: abort,
    });
    const { analysis, writer } = ready;
    if (!(executed instanceof Promise)) return { result: finishResult(executed, analysis), requestError: !('data' in executed), writer };
    request.onClientGone?.(() => abort.abort(new Error('The client closed the connection.')));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<null>((resolve) => {
      timer = setTimeout(resolve, timeoutMs, null);
    });
    return Promise.race([executed, timedOut]).then((result): OperationOutcome => {
      clearTimeout(timer);
      if (result === null) {
        abort.abort(new Error(`Execution timed out after ${timeoutMs} ms.`));
        const error = codedError(`Execution timed out after ${timeoutMs} ms.`, GraphQLErrorCode.Timeout);
        return { result: { errors: [error], data: null }, requestError: false };
      }
      return { result: finishResult(result, analysis), requestError: !('data' in result), writer };
    });
  }

  /** Limits, checked once per operation when nothing in them depends on variables. */
  function checkOperation(prepared: PreparedDocument, document: DocumentNode, operation: OperationDefinitionNode, params: RequestParams) {
    const cacheable = (operation.variableDefinitions?.length ?? 0) === 0;
    if (cacheable) {
      const known = prepared.checked.get(params.operationName);
      if (known !== undefined) return known;
    }
    const checked = checkLimits({ schema, document, operationName: params.operationName, variableValues: params.variables, limits });
    if (cacheable) prepared.checked.set(params.operationName, checked);
    return checked;
  }

  /** Codes on every error, unexpected errors masked in production, and the cost report. */
  function finishResult(result: ExecutionResult, analysis: Analysis | null): ExecutionResult {
    let errors = result.errors;
    if (errors !== undefined) {
      const isVariableError = !('data' in result);
      errors = errors.map((error) => {
        if (isVariableError) return withCode(error, GraphQLErrorCode.BadUserInput);
        // A resolver's GraphQLError is meant for the client (and keeps its code: located errors
        // carry their original's extensions); anything else thrown is a fault, hidden in production.
        const original = error.originalError;
        if (production && original != null && !(original instanceof GraphQLError)) {
          const requestId = randomUUID();
          log({ level: 'error', message: `Unexpected error in a resolver: ${error.message}`, requestId, error: original ?? error });
          return new GraphQLError('Unexpected error.', {
            nodes: error.nodes,
            source: error.source,
            positions: error.positions,
            path: error.path,
            extensions: { code: GraphQLErrorCode.InternalServerError, requestId },
          });
        }
        return withCode(error, GraphQLErrorCode.InternalServerError);
      });
    }
    // Nothing to add or change: the executor's result is the answer as it is.
    if (errors === undefined && result.extensions === undefined && !(reportCost && analysis !== null)) return result;
    const finished: ExecutionResult = errors === undefined ? { data: result.data } : { errors, data: result.data };
    if (reportCost && analysis !== null) {
      const actual = (result.extensions?.['cost'] as { actual?: number } | undefined)?.actual ?? 0;
      finished.extensions = { cost: { requested: analysis.cost, actual, limit: limits.cost === false ? null : limits.cost } };
    }
    return finished;
  }

  /**
   * The response: the result (or a batch's results) in the negotiated media type, with its
   * status (400 for a request error under application/graphql-response+json; a batch is always
   * 200), and for GET an ETag (or 304).
   */
  function respondWith(
    request: PlainRequest<Raw>,
    mediaType: string,
    results: ExecutionResult | ExecutionResult[],
    requestError: boolean,
    writer: SelectionPlan | null = null,
  ): HandlerResponse {
    const body = writer !== null && !Array.isArray(results) ? resultText(results, writer) : JSON.stringify(results);
    const status = mediaType === GRAPHQL_RESPONSE && requestError ? 400 : 200;
    const headers: Record<string, string> = { 'content-type': mediaType };
    if (request.method === 'GET' && status === 200) {
      const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
      headers['etag'] = etag;
      headers['cache-control'] = 'no-cache';
      if (matchesEtag(header(request, 'if-none-match'), etag)) return [null, { status: 304, headers: { etag } }];
    }
    return [body, { status, headers }];
  }

  /** A batch's operations run one after another; each gets its own result. */
  async function runBatch(request: PlainRequest<Raw>, mediaType: string, items: unknown[]): Promise<HandlerResponse> {
    const outcomes: OperationOutcome[] = [];
    for (const item of items) {
      const params = readParams(item);
      if (params instanceof GraphQLError) {
        outcomes.push({ result: { errors: [params] }, requestError: true });
        continue;
      }
      const outcome = await runOperation(params, request.method, request);
      if (Array.isArray(outcome)) return outcome;
      outcomes.push(outcome);
    }
    return respondWith(request, mediaType, outcomes.map((outcome) => outcome.result), false);
  }

  return function handle(request: PlainRequest<Raw>): MaybePromise<HandlerResponse> {
    const url = request.url;
    // Most requests are POSTs to the endpoint itself, with no query string to look for.
    const queryStart = url === path ? -1 : url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    if (pathname !== path) return httpFailure(HttpErrorCode.NotFound, `Nothing is served at ${pathname}; the GraphQL endpoint is ${path}.`);
    const method = request.method;
    if (method !== 'GET' && method !== 'POST') {
      return httpFailure(HttpErrorCode.MethodNotAllowed, `Method ${method} is not allowed; use GET or POST.`, { allow: 'GET, POST' });
    }
    const mediaType = negotiate(header(request, 'accept'));
    if (mediaType === null) {
      return httpFailure(
        HttpErrorCode.NotAcceptable,
        'The Accept header allows neither application/graphql-response+json nor application/json.',
      );
    }

    let payload: unknown;
    if (method === 'GET') {
      const parsed = paramsFromQueryString(queryStart === -1 ? '' : request.url.slice(queryStart + 1));
      if (parsed instanceof GraphQLError) return graphqlFailure(mediaType, parsed);
      payload = parsed;
    } else {
      const contentType = header(request, 'content-type');
      const unsupported = checkContentType(contentType);
      if (unsupported !== null) return httpFailure(HttpErrorCode.UnsupportedMediaType, unsupported);
      const body = request.body;
      // Clients send the same small bodies again and again (a query without variables, or
      // with the same ones): their members are read once, and once their operation has passed
      // every check it is executed at once (KnownBody). Nothing downstream writes to them.
      const known = body !== null && body.length <= SMALL_BODY ? knownBodies.get(body) : undefined;
      if (known !== undefined) {
        if (known.ready !== null) return respondTo(request, mediaType, startOperation(known.ready, known.params, request));
        return runSingle(request, mediaType, known.params, known);
      }
      if (body === null || body.trim() === '') {
        return graphqlFailure(mediaType, codedError('The request body is empty; expected a JSON object with a "query".', GraphQLErrorCode.BadRequest));
      }
      try {
        payload = JSON.parse(body);
      } catch (error) {
        return graphqlFailure(
          mediaType,
          codedError(`The request body is not valid JSON: ${(error as Error).message}`, GraphQLErrorCode.BadRequest),
        );
      }
    }

    if (Array.isArray(payload)) {
      if (payload.length === 0) return graphqlFailure(mediaType, codedError('The batch is empty.', GraphQLErrorCode.BadRequest));
      const tooMany = checkBatchSize(payload.length, limits);
      if (tooMany !== null) return graphqlFailure(mediaType, tooMany);
      return runBatch(request, mediaType, payload);
    }
    const params = readParams(payload);
    if (params instanceof GraphQLError) return graphqlFailure(mediaType, params);
    let known: KnownBody | undefined;
    if (method === 'POST' && (request.body as string).length <= SMALL_BODY) {
      known = { params, ready: null };
      knownBodies.set(request.body as string, known);
    }
    return runSingle(request, mediaType, params, known);
  };

  /** One operation, not in a batch: its outcome is the response. */
  function runSingle(request: PlainRequest<Raw>, mediaType: string, params: RequestParams, known?: KnownBody): MaybePromise<HandlerResponse> {
    return respondTo(request, mediaType, runOperation(params, request.method, request, known));
  }

  /** The response to one operation's outcome (or the HTTP failure that ended it). */
  function respondTo(
    request: PlainRequest<Raw>,
    mediaType: string,
    outcome: MaybePromise<OperationOutcome | HandlerResponse>,
  ): MaybePromise<HandlerResponse> {
    if (outcome instanceof Promise) {
      return outcome.then((settled) => (Array.isArray(settled) ? settled : respondWith(request, mediaType, settled.result, settled.requestError, settled.writer)));
    }
    return Array.isArray(outcome) ? outcome : respondWith(request, mediaType, outcome.result, outcome.requestError, outcome.writer);
  }
}

/**
 * Whether an operation was abandoned (timeout, client gone), readable as a plain flag by the
 * executor, and as an AbortSignal by resolvers, made only if one asks for it.
 */
class OperationAbort implements OperationScope {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | null = null;

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/** The context when the server has no factory: the transport's request, and the operation's signal (made when read). */
class DefaultContext<Raw> {
  readonly request: Raw;
  private readonly scope: OperationScope;

  constructor(request: Raw, scope: OperationScope) {
    this.request = request;
    this.scope = scope;
  }

  get signal(): AbortSignal {
    return this.scope.signal;
  }
}

/**
 * Whether an operation's result is bounded and small: no list field (GitHub's node count is the
 * sum over list fields) and few fields, fragments written out. The analysis is the cost
 * analyzer's, made before execution anyway.
 */
function isSmall(analysis: Analysis | null): boolean {
  return analysis !== null && analysis.nodes === 0 && analysis.fields <= SMALL_RESULT_FIELDS;
}

/**
 * A small result's JSON text: `data` by the root plan's generated writer, the cost report by
 * stringifySmall; the same text JSON.stringify gives (see compileStringify.ts). Results with
 * errors, and anything unusual, are left to JSON.stringify.
 */
function resultText(result: ExecutionResult, root: SelectionPlan): string {
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

function header(request: PlainRequest<unknown>, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function httpFailure(error: HttpError, message: string, extraHeaders: Record<string, string> = {}): HandlerResponse {
  return [httpErrorBody(error, message), { status: error[1], headers: { 'content-type': JSON_RESPONSE, ...extraHeaders } }];
}

/** A request that is not a well-formed GraphQL request: 400, with a GraphQL-shaped body. */
function graphqlFailure(mediaType: string, error: GraphQLError): HandlerResponse {
  return [JSON.stringify({ errors: [error] }), { status: 400, headers: { 'content-type': mediaType } }];
}

/**
 * The response media type the Accept header allows: application/graphql-response+json when
 * accepted, else application/json; a missing header, `*\/*` or `application/*` mean JSON.
 */
function negotiate(accept: string | undefined): string | null {
  if (accept === undefined) return JSON_RESPONSE;
  let negotiated = negotiatedByAccept.get(accept);
  if (negotiated === undefined) {
    negotiated = negotiateUncached(accept);
    negotiatedByAccept.set(accept, negotiated);
  }
  return negotiated;
}

/** Clients send few distinct Accept headers: each is read once. */
const negotiatedByAccept = new LruCache<string, string | null>(256);

function negotiateUncached(accept: string): string | null {
  if (accept.trim() === '') return JSON_RESPONSE;
  let json = false;
  let wildcard = false;
  for (const part of accept.split(',')) {
    const [rawType = '', ...parameters] = part.split(';');
    const type = rawType.trim().toLowerCase();
    const q = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    if (type === 'application/graphql-response+json') return GRAPHQL_RESPONSE;
    if (type === 'application/json') json = true;
    else if (type === '*/*' || type === 'application/*') wildcard = true;
  }
  return json || wildcard ? JSON_RESPONSE : null;
}

/** POST bodies are JSON in UTF-8; null when acceptable, else why not (by header value, remembered). */
function checkContentType(contentType: string | undefined): string | null {
  if (contentType === undefined) return checkContentTypeUncached(undefined);
  let verdict = contentTypeVerdicts.get(contentType);
  if (verdict === undefined) {
    verdict = checkContentTypeUncached(contentType) ?? '';
    contentTypeVerdicts.set(contentType, verdict);
  }
  return verdict === '' ? null : verdict;
}

/** Verdicts by header value ('' for acceptable). */
const contentTypeVerdicts = new LruCache<string, string>(256);

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

/** GET parameters: `query`, `operationName`, and `variables`/`extensions` as JSON strings. */
function paramsFromQueryString(search: string): Record<string, unknown> | GraphQLError {
  const parameters = new URLSearchParams(search);
  const payload: Record<string, unknown> = {};
  for (const name of ['query', 'operationName']) {
    const value = parameters.get(name);
    if (value !== null) payload[name] = value;
  }
  for (const name of ['variables', 'extensions']) {
    const value = parameters.get(name);
    if (value === null || value === '') continue;
    try {
      payload[name] = JSON.parse(value);
    } catch {
      return codedError(`The "${name}" parameter is not valid JSON.`, GraphQLErrorCode.BadRequest);
    }
  }
  return payload;
}

/** The members of a request, checked for their types. */
function readParams(payload: unknown): RequestParams | GraphQLError {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return codedError('A GraphQL request must be a JSON object with a "query".', GraphQLErrorCode.BadRequest);
  }
  const { query, operationName, variables, extensions } = payload as Record<string, unknown>;
  if (query === undefined || query === null) {
    return codedError('The request has no "query"; expected the GraphQL document as a string.', GraphQLErrorCode.BadRequest);
  }
  if (typeof query !== 'string') {
    return codedError(`"query" must be a string, got ${describe(query)}.`, GraphQLErrorCode.BadRequest);
  }
  if (operationName != null && typeof operationName !== 'string') {
    return codedError(`"operationName" must be a string or null, got ${describe(operationName)}.`, GraphQLErrorCode.BadRequest);
  }
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return codedError(`"variables" must be an object or null, got ${describe(variables)}.`, GraphQLErrorCode.BadRequest);
  }
  if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) {
    return codedError(`"extensions" must be an object or null, got ${describe(extensions)}.`, GraphQLErrorCode.BadRequest);
  }
  return {
    query,
    operationName: (operationName as string | null | undefined) ?? null,
    variables: (variables as Record<string, unknown> | null | undefined) ?? null,
  };
}

function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === etag || tag === `W/${etag}` || tag === '*';
  });
}
