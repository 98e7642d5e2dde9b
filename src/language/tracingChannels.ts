/**
 * tracingChannels: graphql 17's `node:diagnostics_channel` tracing channels, published by this
 * engine, so that an APM subscriber written for graphql-js 17 sees our parse, validate, execute,
 * subscribe and resolvers as it sees graphql-js's (graphql 17's `diagnostics.d.ts` has the names
 * and the context shapes; docs/operations.md, "Tracing channels", has them for an operator).
 *
 *   graphql:parse                      { source }                              result: the document
 *   graphql:validate                   { schema, document }                    result: the errors
 *   graphql:execute                    { schema, document, rawVariableValues, operationName, operationType }
 *   graphql:execute:variableCoercion   the same and `operation`                result: { variableValues } | { errors }
 *   graphql:execute:rootSelectionSet   the same and `operation`                result: the ExecutionResult
 *   graphql:subscribe                  as graphql:execute                      result: the stream or an ExecutionResult
 *   graphql:resolve                    { fieldName, alias, parentType, fieldType, args, isDefaultResolver, fieldPath }
 *
 * `tracingChannel(name)` returns one object per name in the process, so these are the very
 * channels graphql 17 publishes on, and those an APM subscribes to.
 *
 * The cost when nobody listens is the point of this module's shape: every site asks `isTraced`
 * (one `hasSubscribers` read) once, and does nothing else unless it is true. Resolvers are the
 * exception graphql-js does not have to make: a whole execution decides once, at its start,
 * whether its fields are published (execution.ts); only then does it leave the plain-read fast
 * paths for the reference path, which publishes every field.
 *
 * Under graphql 17, graphql's own `parse` and `validate` publish graphql:parse and
 * graphql:validate; under 16 the `parse` and `validate` here do (the engine calls these, never
 * graphql's directly, wherever it parses or validates a request), so either way each is published
 * once.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import type { TracingChannel } from 'node:diagnostics_channel';
import { getOperationAST, parse as graphqlParse, validate as graphqlValidate } from 'graphql';
import type { DocumentNode, GraphQLError, GraphQLSchema, OperationDefinitionNode, OperationTypeNode, ParseOptions, Source, ValidationRule } from 'graphql';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { AWAITS_PUBLISHED_SETTLING, PUBLISHES_PARSE_AND_VALIDATE } from './graphqlCompat.ts';

/**
 * Set by a `start` subscriber of this engine's own on the context it is given, to have the
 * traced work run inside a context of its own: observability/resolverSpans.ts makes a
 * resolver's OpenTelemetry span the active one while the resolver runs, so that the spans the
 * resolver makes (a database call's) are its children. A channel's subscriber has no other way
 * to enter a context for the work it observes: Node's is an AsyncLocalStorage bound to the
 * channel (`bindStore`), and OpenTelemetry's context manager keeps its own to itself. Not part
 * of graphql 17's context shapes; a symbol, so no subscriber of theirs meets it.
 */
export const RUN_WITHIN: unique symbol = Symbol('graphql-glassbox run within');

/** What every context gets once the traced work is over: its result, or what it threw or rejected with. */
interface Outcome {
  error?: unknown;
  result?: unknown;
  [RUN_WITHIN]?: <T>(work: () => T) => T;
}

/** graphql:parse */
export interface ParseContext extends Outcome {
  source: string | Source;
}

/** graphql:validate */
export interface ValidateContext extends Outcome {
  schema: GraphQLSchema;
  document: DocumentNode;
}

/** graphql:execute and graphql:subscribe: the operation as the caller named it (found lazily, as graphql 17 does). */
export interface OperationContext extends Outcome {
  schema: GraphQLSchema;
  document: DocumentNode;
  rawVariableValues: { readonly [variable: string]: unknown } | null | undefined;
  readonly operationName: string | undefined;
  readonly operationType: OperationTypeNode | undefined;
}

/** graphql:execute:variableCoercion and graphql:execute:rootSelectionSet: the operation chosen. */
export interface ChosenOperationContext extends Outcome {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  rawVariableValues: { readonly [variable: string]: unknown } | null | undefined;
  operationName: string | undefined;
  operationType: OperationTypeNode;
}

/** graphql:resolve: one resolver call (the default resolver's too). */
export interface ResolveContext extends Outcome {
  fieldName: string;
  /** The response name (the alias, or the field's name). */
  alias: string;
  parentType: string;
  /** The field's type as GraphQL writes it (`[User!]!`). */
  fieldType: string;
  args: Record<string, unknown>;
  isDefaultResolver: boolean;
  /** The response path joined with dots (`user.friends.0.name`). */
  readonly fieldPath: string;
}

/** Each channel's context, by the channel's name (graphql 17's `GraphQLChannelContextByName`). */
export interface ChannelContexts {
  'graphql:parse': ParseContext;
  'graphql:validate': ValidateContext;
  'graphql:execute': OperationContext;
  'graphql:execute:variableCoercion': ChosenOperationContext;
  'graphql:execute:rootSelectionSet': ChosenOperationContext;
  'graphql:subscribe': OperationContext;
  'graphql:resolve': ResolveContext;
}

/** A TracingChannel whose `hasSubscribers` is read without the Node types of every version knowing it. */
type Channel<Context extends object> = TracingChannel<unknown, Context> & { readonly hasSubscribers?: boolean };

export const parseChannel: Channel<ParseContext> = tracingChannel('graphql:parse');
export const validateChannel: Channel<ValidateContext> = tracingChannel('graphql:validate');
export const executeChannel: Channel<OperationContext> = tracingChannel('graphql:execute');
export const variableCoercionChannel: Channel<ChosenOperationContext> = tracingChannel('graphql:execute:variableCoercion');
export const rootSelectionSetChannel: Channel<ChosenOperationContext> = tracingChannel('graphql:execute:rootSelectionSet');
export const subscribeChannel: Channel<OperationContext> = tracingChannel('graphql:subscribe');
export const resolveChannel: Channel<ResolveContext> = tracingChannel('graphql:resolve');

/**
 * The context of graphql:execute or graphql:subscribe from the caller's arguments. The operation
 * is looked up only if a subscriber reads its name or type (as graphql 17 does): it may be
 * missing or ambiguous, which the execution reports in its own time.
 */
export function operationContext(
  schema: GraphQLSchema,
  document: DocumentNode,
  rawVariableValues: OperationContext['rawVariableValues'],
  operationName: string | null | undefined,
): OperationContext {
  let operation: OperationDefinitionNode | null | undefined;
  const chosen = () => (operation === undefined ? (operation = getOperationAST(document, operationName)) : operation);
  return {
    schema,
    document,
    rawVariableValues,
    get operationName() {
      return operationName ?? chosen()?.name?.value;
    },
    get operationType() {
      return chosen()?.operation;
    },
  };
}

/** The context of graphql:execute or graphql:subscribe for an operation already chosen (the server's). */
export function knownOperationContext(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rawVariableValues: OperationContext['rawVariableValues'],
): OperationContext {
  return { schema, document, rawVariableValues, operationName: operation.name?.value, operationType: operation.operation };
}

/** The context of graphql:execute:variableCoercion and graphql:execute:rootSelectionSet. */
export function chosenOperationContext(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rawVariableValues: OperationContext['rawVariableValues'],
): ChosenOperationContext {
  return { schema, document, operation, rawVariableValues, operationName: operation.name?.value, operationType: operation.operation };
}

/**
 * Whether anybody listens on a channel. Node (20.13 and later) answers in one read; a runtime
 * whose TracingChannel lacks the aggregate is asked about each of the five channels.
 */
export const isTraced: (channel: Channel<object>) => boolean =
  typeof parseChannel.hasSubscribers === 'boolean'
    ? (channel) => channel.hasSubscribers === true
    : (channel) =>
        channel.start.hasSubscribers || channel.end.hasSubscribers || channel.asyncStart.hasSubscribers || channel.asyncEnd.hasSubscribers || channel.error.hasSubscribers;

/**
 * Whether anybody listens on any channel an execution publishes on: execute, the variables'
 * coercion, the root selection set, resolve. Asked once as an execution starts; when nobody
 * does, the execution asks nothing more (execute.ts). One question rather than one per site
 * keeps the sites' checks out of the unobserved execution's code, which V8 then optimizes as if
 * the channels were not there.
 */
export function isExecutionObserved(): boolean {
  return isTraced(executeChannel) || isTraced(variableCoercionChannel) || isTraced(rootSelectionSetChannel) || isTraced(resolveChannel);
}

/**
 * Publishes `work` on a channel, whether it answers at once or with a promise, in graphql 17's
 * order: `start`; then, at once, `end` (after `error` if it threw); and for a promise, once it
 * settles, `asyncStart` and `asyncEnd` (after `error` if it rejected). `result` or `error` is on
 * the context before the event that ends the work. The caller has asked `isTraced` already.
 */
export function traced<Context extends Outcome, T>(channel: Channel<Context>, context: Context, work: () => T): T {
  return channel.start.runStores(context, () => {
    let value: T;
    try {
      const within = context[RUN_WITHIN];
      value = within === undefined ? work() : within(work);
    } catch (error) {
      context.error = error;
      channel.error.publish(context);
      channel.end.publish(context);
      throw error;
    }
    if (!isPromiseLike(value)) {
      context.result = value;
      channel.end.publish(context);
      return value;
    }
    channel.end.publish(context);
    return publishSettled(channel, context, value) as T;
  });
}

/**
 * The events of a promise's settling. Under graphql 17 the caller awaits the promise of the
 * publication, a microtask after the promise, as graphql 17's own executor does (so a listened-to
 * execution's errors come in the order of graphql 17's, listened to: graphqlCompat.ts
 * AWAITS_PUBLISHED_SETTLING). Under 16 a native promise is returned as it is, its events published
 * from a reaction of their own, registered first, so before the caller's: the order of events is
 * the same, and what awaits the promise runs at the same microtask as when nobody listens. A
 * thenable that is not a native promise is always followed once (its `then` is not called twice).
 */
function publishSettled<Context extends Outcome>(channel: Channel<Context>, context: Context, value: PromiseLike<unknown>): PromiseLike<unknown> {
  const settled = value.then(
    (result) => {
      context.result = result;
      channel.asyncStart.publish(context);
      channel.asyncEnd.publish(context);
      return result;
    },
    (error: unknown) => {
      context.error = error;
      channel.error.publish(context);
      channel.asyncStart.publish(context);
      channel.asyncEnd.publish(context);
      throw error;
    },
  );
  if (AWAITS_PUBLISHED_SETTLING || !(value instanceof Promise)) return settled;
  (settled as Promise<unknown>).catch(ignore);
  return value;
}

function ignore(): void {}

/** graphql's `parse`, publishing graphql:parse (under graphql 16; 17's own parse publishes it). */
export function parse(source: string | Source, options?: ParseOptions): DocumentNode {
  if (PUBLISHES_PARSE_AND_VALIDATE || !isTraced(parseChannel)) return graphqlParse(source, options);
  return traced(parseChannel, { source }, () => graphqlParse(source, options));
}

/** graphql's `validate`, publishing graphql:validate (under graphql 16; 17's own validate publishes it). */
export function validate(
  schema: GraphQLSchema,
  document: DocumentNode,
  rules?: ReadonlyArray<ValidationRule>,
  options?: { maxErrors?: number; hideSuggestions?: boolean },
): ReadonlyArray<GraphQLError> {
  const run = () => (graphqlValidate as (...args: unknown[]) => ReadonlyArray<GraphQLError>)(schema, document, rules, options);
  if (PUBLISHES_PARSE_AND_VALIDATE || !isTraced(validateChannel)) return run();
  return traced(validateChannel, { schema, document }, run);
}
