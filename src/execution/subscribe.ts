/**
 * subscribe: runs a subscription operation (GraphQL spec, "Subscription"), a drop-in for the
 * installed graphql-js's `subscribe` (16 or 17; where they differ, graphqlCompat.ts says how),
 * and `createSourceEventStream` with graphql-js 16's arguments: the same results, the same errors.
 *
 *   CreateSourceEventStream   choose the operation and coerce its variables (request errors),
 *                             then call the root field's `subscribe` resolver (a field error):
 *                             it returns the source stream, an AsyncIterable of events.
 *   MapSourceToResponseEvent  each event becomes the root value of one execution of the
 *                             operation (ExecuteSubscriptionEvent), the root field's `resolve`
 *                             applied to it like any resolver's.
 *
 * graphql-js executes every event from scratch: it walks the document again (16 also chooses the
 * operation and coerces the variables again). Here the operation is chosen and planned once per
 * subscription; each event runs the plan (execute.ts `executeWithVariables`), which after the first events
 * is the same generated code a repeated query runs. Variables are coerced as the installed
 * graphql coerces them: for every event (16), or once (17).
 *
 * Closing the response stream (`return()`) closes the source stream, so the publisher can clean
 * up; an error thrown by the source ends the response stream with that error, as in graphql-js.
 */
import { GraphQLError, defaultFieldResolver, isNonNullType, locatedError } from 'graphql';
import type { DocumentNode, ExecutionResult, FieldNode, GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { inspect } from '../jsutils/inspect.ts';
import { isAsyncIterable } from '../jsutils/isAsyncIterable.ts';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { mapAsyncIterable } from '../jsutils/mapAsyncIterable.ts';
import type { PromiseOrValue } from '../jsutils/promiseOrValue.ts';
import { collectFields } from '../language/collectFields.ts';
import {
  ANY_SOURCE_ERROR_IS_A_RESULT,
  CHECKS_SUBSCRIPTION_OPERATION,
  COERCES_VARIABLES_PER_EVENT,
  NON_STREAM_IS_FIELD_ERROR,
  NO_ROOT_FIELD_MESSAGE,
  REFUSES_POSITIONAL_SUBSCRIBE,
  SUBSCRIBES_SYNCHRONOUSLY,
  argumentValues,
  coerceVariableValues,
  ensureGraphQLError,
} from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';
import { isTraced, knownOperationContext, operationContext, subscribeChannel, traced } from '../language/tracingChannels.ts';
import { fieldDefinition } from '../language/fieldDefinition.ts';
import { refuseIncrementalInSubscription } from './refuseIncremental.ts';
import { assertValidExecutionArguments, executeEventCoercingVariables, executeWithVariables, operationVariables } from './execute.ts';
import type { ExecuteArgs } from './execute.ts';
import { newPath, pathToArray } from './path.ts';
import { OperationPlan, isPlanError, planOperation } from './plan.ts';
import { resolveInfo } from './resolveInfo.ts';
import { sourceStreamSignals } from './executionSignals.ts';

/** graphql-js's subscribe arguments: execute's, and the resolver used for root fields without `subscribe`. */
export interface SubscribeArgs extends ExecuteArgs {
  subscribeFieldResolver?: GraphQLFieldResolver<unknown, unknown> | null;
}

/**
 * Subscribes: the response stream (an AsyncIterable of ExecutionResult), or an ExecutionResult
 * holding the request or field errors that kept the source stream from being made. Under graphql
 * 17 it answers at once, unless the subscribe resolver answers with a promise, as 17's does;
 * under 16 always with a promise, as 16's does (graphqlCompat.ts SUBSCRIBES_SYNCHRONOUSLY).
 * Either way its graphql:subscribe publication is graphql 17's: it ends at `end` when the answer
 * is known at once, and has asyncStart and asyncEnd only when it waited for the resolver. Misuse
 * of the API rejects it under graphql 16, as graphql 16's does; under graphql 17 it throws at
 * once, as 17's does, and so does an operation that is not a subscription (graphqlCompat.ts).
 */
export function subscribe(args: SubscribeArgs): PromiseOrValue<Subscribed> {
  if (REFUSES_POSITIONAL_SUBSCRIBE && arguments.length >= 2) {
    return Promise.reject(new Error('graphql@16 dropped long-deprecated support for positional arguments, please pass an object instead.'));
  }
  return SUBSCRIBES_SYNCHRONOUSLY ? subscribePublished(args) : subscribeInPromise(args);
}

/** What subscribing answers: the response stream, or the errors that kept it from being made. */
type Subscribed = AsyncGenerator<ExecutionResult, void, void> | ExecutionResult;

/**
 * graphql 16's subscribe is an async function: whatever happens, a throw too, comes as a promise.
 * The promise is made outside the publication, which stays graphql 17's (tracingChannels.ts).
 */
async function subscribeInPromise(args: SubscribeArgs): Promise<Subscribed> {
  return subscribePublished(args);
}

function subscribePublished(args: SubscribeArgs): PromiseOrValue<Subscribed> {
  if (!isTraced(subscribeChannel)) return subscribeUnpublished(args);
  return traced(subscribeChannel, operationContext(args.schema, args.document, args.variableValues, args.operationName), () => subscribeUnpublished(args));
}

/** subscribe() within its graphql:subscribe publication (language/tracingChannels.ts), or without one when nobody listens. */
function subscribeUnpublished(args: SubscribeArgs): PromiseOrValue<Subscribed> {
  const plan = chooseOperation(args);
  if (!(plan instanceof OperationPlan)) return plan;
  const variables = operationVariables(plan, args);
  if (Array.isArray(variables)) return { errors: variables };
  // graphql 16 takes the stream from the subscription root whatever the operation (graphqlCompat.ts).
  if (CHECKS_SUBSCRIPTION_OPERATION && plan.operation.operation !== 'subscription') throw new GraphQLError('Expected subscription operation.');
  return subscribeWithVariables(plan, args, variables);
}

/** What subscribing to a planned operation reads of subscribe()'s arguments: the plan has the schema, document and operation. */
export type PlannedSubscribeArgs = Omit<SubscribeArgs, 'schema' | 'document' | 'operationName' | 'access'>;

/**
 * subscribe() for an operation already chosen by planOperation, and planned for the caller's
 * access, as the operation pipeline holds it: the source stream mapped to responses, or the
 * errors that kept it from being made. Published on graphql:subscribe, and answered at once or
 * with a promise, as subscribe() is.
 */
export function subscribePlan(plan: OperationPlan, args: PlannedSubscribeArgs): PromiseOrValue<Subscribed> {
  return SUBSCRIBES_SYNCHRONOUSLY ? subscribePlanPublished(plan, args) : subscribePlanInPromise(plan, args);
}

/** As subscribeInPromise: graphql 16's answer is a promise, made outside the publication. */
async function subscribePlanInPromise(plan: OperationPlan, args: PlannedSubscribeArgs): Promise<Subscribed> {
  return subscribePlanPublished(plan, args);
}

function subscribePlanPublished(plan: OperationPlan, args: PlannedSubscribeArgs): PromiseOrValue<Subscribed> {
  if (!isTraced(subscribeChannel)) return subscribePlanUnpublished(plan, args);
  const context = knownOperationContext(plan.schema, plan.document, plan.operation, args.variableValues);
  return traced(subscribeChannel, context, () => subscribePlanUnpublished(plan, args));
}

function subscribePlanUnpublished(plan: OperationPlan, args: PlannedSubscribeArgs): PromiseOrValue<Subscribed> {
  const variables = operationVariables(plan, args);
  if (Array.isArray(variables)) return { errors: variables };
  return subscribeWithVariables(plan, args, variables);
}

/** The response stream once the source stream is made: at once if the subscribe resolver answered at once. */
function subscribeWithVariables(plan: OperationPlan, args: PlannedSubscribeArgs, variables: VariableValues): PromiseOrValue<Subscribed> {
  const source = sourceWithVariables(plan, args, variables);
  return source instanceof Promise ? source.then((made) => responseStream(plan, args, variables, made)) : responseStream(plan, args, variables, source);
}

/** MapSourceToResponseEvent: the source stream mapped to the results of its events, or the errors that kept it from being made. */
function responseStream(plan: OperationPlan, args: PlannedSubscribeArgs, variables: VariableValues, source: Source): Subscribed {
  if (!('stream' in source)) return source;
  // ExecuteSubscriptionEvent: the planned operation, with the event as its root value. graphql 16
  // coerces the variables again for every event: each event gets values of its own, which a
  // resolver may change without the next event seeing it. graphql 17 coerces them once, and
  // every event shares them (graphqlCompat.ts).
  if (COERCES_VARIABLES_PER_EVENT) return mapAsyncIterable(source.stream, (payload) => executeEventCoercingVariables(plan, { ...args, rootValue: payload }));
  // graphql 17 refuses an event's @defer or @stream whose `if` came true (refuseIncremental.ts).
  const prepare = plan.incremental ? refuseIncrementalInSubscription : undefined;
  return mapAsyncIterable(source.stream, (payload) => executeWithVariables(plan, { ...args, rootValue: payload }, variables, prepare));
}

/**
 * CreateSourceEventStream (GraphQL spec, "Source Stream"), in both of graphql-js's forms: an argument object, or
 * (schema, document, rootValue, contextValue, variableValues, operationName, subscribeFieldResolver).
 */
export function createSourceEventStream(args: SubscribeArgs): Promise<AsyncIterable<unknown> | ExecutionResult>;
export function createSourceEventStream(
  schema: GraphQLSchema,
  document: DocumentNode,
  rootValue?: unknown,
  contextValue?: unknown,
  variableValues?: ExecuteArgs['variableValues'],
  operationName?: string | null,
  subscribeFieldResolver?: GraphQLFieldResolver<unknown, unknown> | null,
): Promise<AsyncIterable<unknown> | ExecutionResult>;
export async function createSourceEventStream(...rawArgs: unknown[]): Promise<AsyncIterable<unknown> | ExecutionResult> {
  const source = await sourceEventStream(normalizedArgs(rawArgs));
  return 'stream' in source ? source.stream : source;
}

function normalizedArgs(rawArgs: unknown[]): SubscribeArgs {
  const first = rawArgs[0];
  if (first !== null && typeof first === 'object' && 'document' in first) return first as SubscribeArgs;
  const [schema, document, rootValue, contextValue, variableValues, operationName, subscribeFieldResolver] = rawArgs;
  return {
    schema: schema as GraphQLSchema,
    document: document as DocumentNode,
    rootValue,
    contextValue,
    variableValues: variableValues as SubscribeArgs['variableValues'],
    operationName: operationName as string | null | undefined,
    subscribeFieldResolver: subscribeFieldResolver as SubscribeArgs['subscribeFieldResolver'],
  };
}

/** The source stream, or the errors that kept it from being made. */
type Source = { stream: AsyncIterable<unknown> } | ExecutionResult;

/** The operation planned for the caller's access, or the request errors of choosing it. */
function chooseOperation(args: SubscribeArgs): OperationPlan | ExecutionResult {
  assertValidExecutionArguments(args.schema, args.document, args.variableValues, 'subscribe');
  const chosen = planOperation(args.schema, args.document, args.operationName);
  return isPlanError(chosen) ? { errors: [...chosen] } : chosen.forAccess(args.access);
}

async function sourceEventStream(args: SubscribeArgs): Promise<Source> {
  const plan = chooseOperation(args);
  return plan instanceof OperationPlan ? planSourceStream(plan, args) : plan;
}

function planSourceStream(plan: OperationPlan, args: PlannedSubscribeArgs): PromiseOrValue<Source> {
  const coerced = coerceVariables(plan, args);
  if (coerced.errors !== undefined) return { errors: [...coerced.errors] };
  return sourceWithVariables(plan, args, coerced.variables);
}

/** CoerceVariableValues (GraphQL spec, "Coercing Variable Values") for the subscription's operation. */
function coerceVariables(plan: OperationPlan, args: PlannedSubscribeArgs): ReturnType<typeof coerceVariableValues> {
  return coerceVariableValues(plan.schema, plan.operation.variableDefinitions ?? [], args.variableValues ?? {}, {
    maxErrors: args.options?.maxCoercionErrors,
    hideSuggestions: args.hideSuggestions,
  });
}

/**
 * The source stream, or the errors that kept it from being made: at once, unless the subscribe
 * resolver answers with a promise.
 */
function sourceWithVariables(plan: OperationPlan, args: PlannedSubscribeArgs, variables: VariableValues): PromiseOrValue<Source> {
  let call: ResolverCall;
  try {
    call = callSubscribeResolver(args, plan, variables);
  } catch (error) {
    return sourceError(error);
  }
  const { answer, locate } = call;
  if (!isPromiseLike(answer)) return settledSource(answer, locate);
  return Promise.resolve(answer).then(
    (value) => settledSource(value, locate),
    (error: unknown) => sourceError(locate(error)),
  );
}

/**
 * What the subscribe resolver answered, or its promise settled to, as the source stream or the
 * error it is: an Error it answered with is a field error; so is a non-stream under graphql 17,
 * where under graphql 16 it is a fault (graphqlCompat.ts NON_STREAM_IS_FIELD_ERROR).
 */
function settledSource(answer: unknown, locate: ResolverCall['locate']): Source {
  if (answer instanceof Error) return sourceError(locate(answer));
  if (isAsyncIterable(answer)) return { stream: answer };
  const message = `Subscription field must return Async Iterable. Received: ${inspect(answer)}.`;
  return sourceError(NON_STREAM_IS_FIELD_ERROR ? locate(new GraphQLError(message)) : new Error(message));
}

/**
 * What an error making the source stream answers: a field error (located by
 * callSubscribeResolver) is an answer; anything else is a fault, thrown, which graphql 17
 * answers too (graphqlCompat.ts).
 */
function sourceError(error: unknown): ExecutionResult {
  if (error instanceof GraphQLError) return { errors: [error] };
  if (ANY_SOURCE_ERROR_IS_A_RESULT) return { errors: [ensureGraphQLError(error)] };
  throw error;
}

/** What the subscribe resolver answered (maybe a promise), and how to locate an error of that answer at the root field. */
interface ResolverCall {
  readonly answer: unknown;
  readonly locate: (error: unknown) => GraphQLError;
}

/**
 * ResolveFieldEventStream (GraphQL spec, "Source Stream"): calls the root subscription field's `subscribe`
 * resolver (or `subscribeFieldResolver`, or graphql-js's default) with the root value.
 * As in graphql-js, the root type is the schema's subscription type, and only the first root
 * field (after @skip/@include) makes the stream. What the resolver throws is thrown located.
 */
function callSubscribeResolver(args: PlannedSubscribeArgs, plan: OperationPlan, variables: VariableValues): ResolverCall {
  const { schema, operation, fragments } = plan;
  const rootType = schema.getSubscriptionType();
  if (rootType == null) {
    throw new GraphQLError('Schema is not configured to execute subscription operation.', { nodes: operation });
  }
  const rootFields = collectFields(schema, fragments, variables, rootType, [operation.selectionSet]);
  // @skip and @include can leave no root field (the SingleFieldSubscriptions rule cannot see
  // variables): graphql-js then fails taking the first one apart, with the TypeError below.
  const first = rootFields.entries().next();
  if (first.done === true) throw new TypeError(NO_ROOT_FIELD_MESSAGE);
  const [responseName, fieldNodes] = first.value;
  const node = fieldNodes[0] as FieldNode;
  const definition = fieldDefinition(schema, rootType, node.name.value);
  if (definition === undefined) {
    throw new GraphQLError(`The subscription field "${node.name.value}" is not defined.`, { nodes: fieldNodes });
  }
  const path = newPath(undefined, responseName, rootType.name, !isNonNullType(definition.type));
  const locate = (error: unknown): GraphQLError => locatedError(error, fieldNodes, pathToArray(path));
  // A root field the caller may not use never has its subscribe resolver called.
  const denial = plan.access?.denial(rootType, definition) ?? null;
  if (denial !== null) throw locate(denial);
  const field = { fieldName: definition.name, fieldNodes, returnType: definition.type, parentType: rootType };
  const signals = sourceStreamSignals(args.abortSignal ?? undefined);
  const info = resolveInfo({ schema, fragments, rootValue: args.rootValue, operation, variableValues: variables, executionSignals: () => signals }, field, path);
  try {
    const fieldArguments = argumentValues(definition, node, variables, args.hideSuggestions);
    const resolve = definition.subscribe ?? args.subscribeFieldResolver ?? defaultFieldResolver;
    return { answer: resolve(args.rootValue, fieldArguments, args.contextValue, info), locate };
  } catch (error) {
    throw locate(error);
  }
}

