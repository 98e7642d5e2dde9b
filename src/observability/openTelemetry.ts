/**
 * OpenTelemetry spans, when `@opentelemetry/api` is installed and a tracer provider is
 * registered: nothing else to configure. The API is an optional peer dependency, imported once
 * when this module loads (as ioredis is, redis/loadIoredis.ts); without it, or without a
 * provider, `telemetry()` answers null and a request pays that one check.
 *
 * Spans (docs/operations.md lists their attributes):
 *   `POST /graphql`             a server span per HTTP request (HTTP semantic conventions),
 *                               continuing the caller's W3C `traceparent`/`tracestate`
 *   `query Books`               a span per GraphQL operation, named as OpenTelemetry's GraphQL
 *                               conventions name it (the document only when asked: it may hold secrets)
 *   `batch authorById`          a span per batch a BatchLoader sends, under the operation's span
 *   `POST` (client)             a webhook delivery, its `traceparent` sent to the receiver
 *
 * Parents are passed by context: the server runs a request's handling under its span, the
 * pipeline an operation under its own; a batch finds its operation through the registered
 * context manager (the SDKs register one for Node), as any span made in a resolver does (under
 * the resolver's span when resolver spans are on, a batch still under the operation's).
 */
import type * as OtelApi from '@opentelemetry/api';
import { setBatchHook } from '../batching/batchHook.ts';
import type { BatchHook } from '../batching/batchHook.ts';
import { mapAsyncIterable } from '../jsutils/mapAsyncIterable.ts';
import type { TraceIds } from './logEntry.ts';
import { operationContextOf, unwatchResolvers, watchResolvers } from './resolverSpans.ts';

type Api = typeof OtelApi;
type Span = OtelApi.Span;
type Context = OtelApi.Context;

/** The instrumentation scope's name, as spans carry it. */
export const TRACER_NAME = 'graphql-glassbox';

let api: Api | null = null;

/** Settles once the optional API has been looked for (tests wait for it; a server need not). */
export const openTelemetryLoaded: Promise<boolean> = import('@opentelemetry/api').then(
  (module) => {
    // Named exports where Node finds them in the CommonJS build, else its default export.
    const loaded = module as unknown as Api & { default?: Api };
    api = loaded.trace === undefined && loaded.default !== undefined ? loaded.default : loaded;
    return true;
  },
  () => false,
);

/**
 * Where every copy of the OpenTelemetry API of major version 1 (the peer range we accept)
 * registers its globals, the tracer provider as `trace` (the API's `registerGlobal`).
 */
const OTEL_REGISTRY = Symbol.for('opentelemetry.js.api.1');

let lastDelegate: unknown = undefined;
let current: Telemetry | null = null;

/**
 * The spans' maker when a tracer provider is registered, else null: the one check a request
 * pays without OpenTelemetry. A provider registered (or replaced) later is seen at once.
 */
export function telemetry(): Telemetry | null {
  if (api === null) return null;
  // No tracer provider registered: the API's global registry holds none. That one read is
  // the usual request's whole check (asking the API itself takes a getter, a version check and two calls).
  const registry = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_REGISTRY];
  if (registry === undefined || registry.trace === undefined) return current === null ? null : forget();
  const provider = api.trace.getTracerProvider() as OtelApi.TracerProvider & { getDelegate?(): OtelApi.TracerProvider };
  const delegate = provider.getDelegate === undefined ? provider : provider.getDelegate();
  if (delegate !== lastDelegate) {
    lastDelegate = delegate;
    current = delegate.constructor.name === 'NoopTracerProvider' ? null : new Telemetry(api, api.trace.getTracer(TRACER_NAME));
    setBatchHook(current === null ? null : current.batches);
  }
  return current;
}

/** The provider was unregistered (`trace.disable()`): no spans from now on. */
function forget(): null {
  lastDelegate = undefined;
  current = null;
  setBatchHook(null);
  return null;
}

/** The trace and span ids of the span active now (for log lines), or null. */
export function activeTraceIds(): TraceIds | null {
  if (current === null || api === null) return null;
  const span = api.trace.getActiveSpan();
  return span === undefined ? null : idsOf(span);
}

/** A span's ids, when it is a recorded one. */
export function idsOf(span: unknown): TraceIds | null {
  if (span == null) return null;
  const context = (span as Span).spanContext();
  return { traceId: context.traceId, spanId: context.spanId };
}

/** What an operation's span reads of an error. */
interface ErrorLike {
  readonly message: string;
  readonly extensions?: { readonly [key: string]: unknown };
  readonly originalError?: unknown;
}

/** What an operation's span reads of its outcome (server/outcomes.ts's, without importing the layer above). */
type OperationOutcomeLike =
  | { readonly kind: 'result'; readonly result: { readonly errors?: ReadonlyArray<ErrorLike> } }
  | { readonly kind: 'incremental'; readonly initial: { readonly errors?: ReadonlyArray<ErrorLike> }; readonly subsequent: AsyncGenerator<unknown, void, void> }
  | { readonly kind: 'rateLimited'; readonly refusal: { readonly code: string } }
  | { readonly kind: 'stream'; readonly stream: AsyncGenerator<{ readonly errors?: ReadonlyArray<ErrorLike> }, void, void> }
  | { readonly kind: 'notAllowed' };

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export class Telemetry {
  readonly batches: BatchHook;
  /** Every operation span's options, made once. */
  private readonly operationOptions: OtelApi.SpanOptions;

  constructor(
    private readonly otel: Api,
    private readonly tracer: OtelApi.Tracer,
  ) {
    this.operationOptions = { kind: otel.SpanKind.INTERNAL };
    this.batches = {
      started: (loader, keys) =>
        this.tracer.startSpan(
          `batch ${loader}`,
          { kind: otel.SpanKind.INTERNAL, attributes: { 'glassbox.batch.loader': loader, 'glassbox.batch.keys': keys } },
          operationContextOf(otel.context.active()),
        ),
      settled: (token, error) => this.end(token as Span, error),
    };
  }

  /**
   * A server span for an HTTP request, continuing the caller's trace when its `traceparent` is
   * well formed (W3C Trace Context; read here, so that no propagator needs registering).
   */
  httpServerSpan(method: string, url: string, headers: Readonly<Record<string, string | string[] | undefined>>, route: string | null): Span {
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const attributes: OtelApi.Attributes = { 'http.request.method': method, 'url.path': path, 'url.scheme': 'http' };
    if (route !== null) attributes['http.route'] = route;
    const agent = headers['user-agent'];
    if (typeof agent === 'string') attributes['user_agent.original'] = agent;
    const parent = this.remoteParent(headers['traceparent'], headers['tracestate']);
    return this.tracer.startSpan(route === null ? method : `${method} ${route}`, { kind: this.otel.SpanKind.SERVER, attributes }, parent);
  }

  /** The context a remote `traceparent` names (the root context when there is none, or it is malformed). */
  remoteParent(traceparent: unknown, tracestate: unknown): Context {
    const root = this.otel.ROOT_CONTEXT;
    if (typeof traceparent !== 'string') return root;
    const match = TRACEPARENT.exec(traceparent.trim());
    if (match === null || /^0+$/.test(match[1] as string) || /^0+$/.test(match[2] as string)) return root;
    const spanContext: OtelApi.SpanContext = { traceId: match[1] as string, spanId: match[2] as string, traceFlags: parseInt(match[3] as string, 16) & 1, isRemote: true };
    if (typeof tracestate === 'string' && tracestate !== '') spanContext.traceState = this.otel.createTraceState(tracestate);
    return this.otel.trace.setSpanContext(root, spanContext);
  }

  /** An HTTP request answered with `status` (499: the client left first). */
  endHttp(span: Span, status: number): void {
    span.setAttribute('http.response.status_code', status);
    // Server spans are errors for 5xx only (HTTP semantic conventions): a 4xx is the client's.
    if (status >= 500) span.setStatus({ code: this.otel.SpanStatusCode.ERROR });
    span.end();
  }

  /**
   * Runs `fn` with `span` active: spans made under it (operations, batches, a resolver's own)
   * are its children. A closure, not a method and its `this`: the context manager would bind it.
   */
  within<R>(span: Span, fn: () => R): R {
    const otel = this.otel;
    return otel.context.with(otel.trace.setSpan(otel.context.active(), span), fn);
  }

  /**
   * A span for one GraphQL operation, under the active span; named once its operation is chosen.
   * `resolvers`: with a span per resolver call under it (resolverSpans.ts).
   */
  operationSpan(resolvers: boolean): Span {
    const span = this.tracer.startSpan('GraphQL Operation', this.operationOptions);
    if (resolvers) watchResolvers(this.otel, this.tracer, span);
    return span;
  }

  /**
   * The span of an operation sent on a WebSocket: a root of its own, since a socket lives for
   * hours and one trace per connection would never end; linked to the caller's trace when the
   * upgrade request carried a `traceparent`.
   */
  socketOperationSpan(resolvers: boolean, upgrade: Readonly<Record<string, string | string[] | undefined>>): Span {
    const caller = this.otel.trace.getSpanContext(this.remoteParent(upgrade['traceparent'], upgrade['tracestate']));
    const options: OtelApi.SpanOptions = { kind: this.otel.SpanKind.INTERNAL, root: true };
    if (caller !== undefined) options.links = [{ context: caller }];
    const span = this.tracer.startSpan('GraphQL Operation', options, this.otel.ROOT_CONTEXT);
    if (resolvers) watchResolvers(this.otel, this.tracer, span);
    return span;
  }

  /**
   * A resource route matched (transports/rest): its template as the request span's `http.route`
   * and name (`GET /api/v1/books/{id}`). The request's span is the active one while it is routed.
   */
  routed(method: string, template: string): void {
    const span = this.otel.trace.getActiveSpan();
    if (span === undefined) return;
    span.setAttribute('http.route', template);
    span.updateName(`${method} ${template}`);
  }

  /**
   * An operation's outcome: its errors on its span, which ends. A subscription's span ends once
   * it is subscribed; each event it sends then gets a span of its own under it (the stream
   * returned here tells them).
   */
  operationEnded<O extends OperationOutcomeLike>(span: Span, outcome: O): O {
    if (outcome.kind === 'result' && outcome.result.errors !== undefined && outcome.result.errors.length > 0) this.operationErrors(span, outcome.result.errors);
    else if (outcome.kind === 'incremental' && outcome.initial.errors !== undefined && outcome.initial.errors.length > 0) this.operationErrors(span, outcome.initial.errors);
    else if (outcome.kind === 'rateLimited') span.setStatus({ code: this.otel.SpanStatusCode.ERROR, message: outcome.refusal.code });
    span.end();
    // Resolvers run on until the last payload of an incremental delivery: the one saying
    // `hasNext: false` (a transport asks for no more after it), or the delivery's end, failure or
    // return(), whichever comes first. A subscription's events are executions of their own.
    const unwatch = (): void => unwatchResolvers(span);
    if (outcome.kind === 'incremental') return { ...outcome, subsequent: mapAsyncIterable(outcome.subsequent, (payload) => lastPayloadThen(payload, unwatch), unwatch) };
    unwatch();
    if (outcome.kind !== 'stream') return outcome;
    return { ...outcome, stream: this.tracedEvents(span, outcome.stream) };
  }

  /** An operation that failed (threw) before it had an outcome: its span ends with the error. */
  operationFailed(span: Span, error: unknown): void {
    this.end(span, error);
    unwatchResolvers(span);
  }

  /** A subscription's events, each told as a span (`<operation> event`) under its operation's, with its errors. */
  private tracedEvents<T extends { readonly errors?: ReadonlyArray<ErrorLike> }>(operation: Span, stream: AsyncGenerator<T, void, void>): AsyncGenerator<T, void, void> {
    const parent = this.otel.trace.setSpan(this.otel.ROOT_CONTEXT, operation);
    const name = `${(operation as unknown as { name?: string }).name ?? 'subscription'} event`;
    const traced = {
      next: (): Promise<IteratorResult<T, void>> =>
        stream.next().then((step) => {
          if (step.done !== true) {
            const span = this.tracer.startSpan(name, { kind: this.otel.SpanKind.INTERNAL }, parent);
            if (step.value.errors !== undefined && step.value.errors.length > 0) this.operationErrors(span, step.value.errors);
            span.end();
          }
          return step;
        }),
      return: (value: void) => stream.return(value),
      throw: (error: unknown) => stream.throw(error),
      [Symbol.asyncIterator]() {
        return traced;
      },
    };
    return traced as unknown as AsyncGenerator<T, void, void>;
  }

  /**
   * The operation chosen: the active span's (the operation's: Pipeline.runTraced) name and
   * attributes as OpenTelemetry's GraphQL conventions give them.
   */
  operationChosen(type: string, name: string | undefined, document: string | null): void {
    const span = this.otel.trace.getActiveSpan();
    if (span === undefined) return;
    span.updateName(name === undefined ? type : `${type} ${name}`);
    span.setAttribute('graphql.operation.type', type);
    if (name !== undefined) span.setAttribute('graphql.operation.name', name);
    if (document !== null) span.setAttribute('graphql.document', document);
  }

  /**
   * An operation's errors: an exception event each (the message and code; the stack of an
   * unexpected one), and the span's status an error.
   */
  operationErrors(span: Span, errors: ReadonlyArray<ErrorLike>): void {
    for (const error of errors) {
      const original = error.originalError;
      const attributes: OtelApi.Attributes = { 'exception.type': typeof error.extensions?.['code'] === 'string' ? (error.extensions['code'] as string) : 'GraphQLError', 'exception.message': error.message };
      if (original instanceof Error && original.stack !== undefined && original.constructor.name !== 'GraphQLError') attributes['exception.stacktrace'] = original.stack;
      span.addEvent('exception', attributes);
    }
    span.setStatus({ code: this.otel.SpanStatusCode.ERROR, message: errors[0]?.message ?? '' });
  }

  /** A span ended; `error` (when not undefined) recorded on it first. */
  end(span: Span, error: unknown): void {
    if (error !== undefined) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: this.otel.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    }
    span.end();
  }

  /** A client span for an outgoing HTTP request (a webhook delivery), under the active span. */
  httpClientSpan(method: string, url: URL): Span {
    return this.tracer.startSpan(method, {
      kind: this.otel.SpanKind.CLIENT,
      attributes: { 'http.request.method': method, 'url.full': url.href.replace(url.search, ''), 'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) },
    });
  }

  /** The W3C `traceparent` (and `tracestate`) a span's receiver continues. */
  traceHeaders(span: Span): Record<string, string> {
    const { traceId, spanId, traceFlags, traceState } = span.spanContext();
    const headers: Record<string, string> = { traceparent: `00-${traceId}-${spanId}-${(traceFlags & 1) === 1 ? '01' : '00'}` };
    const state = traceState?.serialize();
    if (state !== undefined && state !== '') headers['tracestate'] = state;
    return headers;
  }

  /** An outgoing request answered (`status`, 0 when none came) or failed. */
  endHttpClient(span: Span, status: number, error: string | null): void {
    if (status > 0) span.setAttribute('http.response.status_code', status);
    if (error !== null) span.setAttribute('error.type', error);
    if (status >= 400 || error !== null) span.setStatus({ code: this.otel.SpanStatusCode.ERROR });
    span.end();
  }
}

/** `payload`, after calling `then` if it is an incremental delivery's last (`hasNext: false`). */
function lastPayloadThen<T>(payload: T, then: () => void): T {
  if ((payload as { hasNext?: boolean } | null)?.hasNext === false) then();
  return payload;
}
