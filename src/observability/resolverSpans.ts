/**
 * A span per resolver call (`openTelemetry: { resolvers: true }`), named and attributed as
 * OpenTelemetry's GraphQL instrumentation names its own: `graphql.resolve books.0.author`, with
 * `graphql.field.name`, `graphql.field.path`, `graphql.field.type` and `graphql.parent.name`,
 * under the span of the nearest field above it that has one (`books` for `books.0.author`), or
 * else under the operation's span.
 *
 * Made from the graphql:resolve tracing channel (language/tracingChannels.ts publishes it for
 * our executor, graphql 17 for its own), so the executor knows nothing of OpenTelemetry, and an
 * operation whose server did not ask pays nothing for it: the channel is subscribed only while
 * an operation that asked for resolver spans is in flight. Meanwhile (a channel is the
 * process's) every execution that starts publishes its resolvers; those of operations that did
 * not ask are passed over by one WeakMap look-up each.
 *
 * A resolver's span is the active one while the resolver runs (tracingChannels.ts RUN_WITHIN),
 * as in OpenTelemetry's own GraphQL instrumentation: the spans a resolver makes (a database
 * client's) are its children. The context also names the operation's span, so that a batch the
 * resolver's load sets off stays a child of the operation (openTelemetry.ts), as it is without
 * resolver spans: a batch serves the loads of many resolvers.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import type * as OtelApi from '@opentelemetry/api';
import { RUN_WITHIN } from '../language/tracingChannels.ts';

type Api = typeof OtelApi;
type Span = OtelApi.Span;

/** What a graphql:resolve context holds that a span is made of (graphql 17's `GraphQLResolveContext`). */
interface ResolveEvent {
  readonly fieldName: string;
  readonly parentType: string;
  readonly fieldType: string;
  /** The response path joined with dots (`books.0.author`). */
  readonly fieldPath: string;
  error?: unknown;
  result?: unknown;
  /** The span made at its start (this module's own mark on the context). */
  [SPAN]?: Span;
  /** How the resolver is run: with its span active (tracingChannels.ts). */
  [RUN_WITHIN]?: <T>(work: () => T) => T;
}

const SPAN: unique symbol = Symbol('graphql-glassbox resolver span');

/** An operation that asked for resolver spans: its tracer, and the spans made so far, by path. */
interface WatchedOperation {
  readonly otel: Api;
  readonly tracer: OtelApi.Tracer;
  readonly fields: Map<string, Span>;
}

/** The operations whose resolvers get spans, by their operation span (found as the active span when a resolver starts). */
const watched = new WeakMap<object, WatchedOperation>();
/** How many watched operations have not ended: the channel is subscribed while there are some, and LINGER_MS after. */
let inFlight = 0;
/**
 * How long the channel stays subscribed once no watched operation is left. Subscribing and
 * unsubscribing swap the prototypes of its five channels, and V8 then discards the optimized
 * code that read them: done for every operation, a server with resolver spans on would
 * recompile its execution path per request.
 */
const LINGER_MS = 1000;
/** The timer that lets the channel go, while it lingers. */
let lingering: ReturnType<typeof setTimeout> | null = null;
let api: Api | null = null;
/** The context key under which a resolver's context names its operation's span (made with the API, once). */
let operationKey: symbol | null = null;
const resolveChannel = tracingChannel<unknown, ResolveEvent>('graphql:resolve');
const handlers = { start, end, asyncStart: ignore, asyncEnd: finish, error };

/** From now on until unwatchResolvers, the resolvers `operation` runs (with its span active) get spans. */
export function watchResolvers(otel: Api, tracer: OtelApi.Tracer, operation: Span): void {
  if (watched.has(operation)) return;
  watched.set(operation, { otel, tracer, fields: new Map() });
  api = otel;
  operationKey ??= otel.createContextKey('graphql-glassbox operation span');
  if (inFlight++ > 0) return;
  if (lingering === null) {
    resolveChannel.subscribe(handlers);
    return;
  }
  clearTimeout(lingering);
  lingering = null;
}

/**
 * `operation`'s resolvers have all run (its last payload is out, or it failed). LINGER_MS after
 * the last watched operation, the channel is unsubscribed: executions that start from then on,
 * those of a server that never asked for resolver spans included, publish nothing and keep their
 * fast paths. (An execution that starts while it lingers publishes its resolvers, and gets no
 * spans unless its operation is watched.)
 */
export function unwatchResolvers(operation: Span): void {
  if (!watched.delete(operation)) return;
  if (--inFlight > 0) return;
  lingering = setTimeout(letGo, LINGER_MS);
  // A lingering subscription keeps no process alive.
  lingering.unref();
}

function letGo(): void {
  lingering = null;
  resolveChannel.unsubscribe(handlers);
}

/**
 * The context a span made now should have as its parent when it belongs to the operation, not to
 * one resolver (a batch): `context` with the operation's span active again if a resolver's span
 * is, else `context` itself.
 */
export function operationContextOf(context: OtelApi.Context): OtelApi.Context {
  if (operationKey === null || api === null) return context;
  const operation = context.getValue(operationKey) as Span | undefined;
  return operation === undefined ? context : api.trace.setSpan(context, operation);
}

function start(event: ResolveEvent): void {
  if (api === null || operationKey === null) return;
  const active = api.context.active();
  const operation = (active.getValue(operationKey) as Span | undefined) ?? api.trace.getSpan(active);
  const watching = operation === undefined ? undefined : watched.get(operation);
  if (watching === undefined) return;
  const { otel, tracer, fields } = watching;
  const path = event.fieldPath;
  const attributes = { 'graphql.field.name': event.fieldName, 'graphql.field.path': path, 'graphql.field.type': event.fieldType, 'graphql.parent.name': event.parentType };
  const parent = parentOf(fields, path) ?? (operation as Span);
  const span = tracer.startSpan(`graphql.resolve ${path}`, { kind: otel.SpanKind.INTERNAL, attributes }, otel.trace.setSpan(active, parent));
  fields.set(path, span);
  event[SPAN] = span;
  const resolving = otel.trace.setSpan(active, span).setValue(operationKey, operation);
  event[RUN_WITHIN] = (work) => otel.context.with(resolving, work);
}

/** The span of the nearest field above `path` that has one (list indices have none). */
function parentOf(fields: Map<string, Span>, path: string): Span | undefined {
  for (let end = path.lastIndexOf('.'); end > 0; end = path.lastIndexOf('.', end - 1)) {
    const span = fields.get(path.slice(0, end));
    if (span !== undefined) return span;
  }
  return undefined;
}

/** A call that answered at once (its result or error is on the context) ends its span here; a promise's, at asyncEnd. */
function end(event: ResolveEvent): void {
  if ('result' in event || 'error' in event) finish(event);
}

function finish(event: ResolveEvent): void {
  const span = event[SPAN];
  if (span === undefined) return;
  event[SPAN] = undefined;
  span.end();
}

/** A call that threw or rejected: an exception event, and the span's status an error. */
function error(event: ResolveEvent): void {
  const span = event[SPAN];
  if (span === undefined || api === null) return;
  const thrown = event.error;
  span.recordException(thrown instanceof Error ? thrown : String(thrown));
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: thrown instanceof Error ? thrown.message : String(thrown) });
}

function ignore(): void {}
