/**
 * subscribe: runs a subscription operation (spec 6.2.3 "Subscription"), a drop-in for
 * graphql-js 16's `subscribe` and `createSourceEventStream`: the same arguments, the same
 * results, the same errors.
 *
 *   CreateSourceEventStream   choose the operation and coerce its variables (request errors),
 *                             then call the root field's `subscribe` resolver (a field error):
 *                             it returns the source stream, an AsyncIterable of events.
 *   MapSourceToResponseEvent  each event becomes the root value of one execution of the
 *                             operation (ExecuteSubscriptionEvent), the root field's `resolve`
 *                             applied to it like any resolver's.
 *
 * graphql-js executes every event from scratch: it chooses the operation, coerces the variables
 * and walks the document again. Here the operation is chosen and planned once per subscription;
 * each event runs the plan (execute.ts `executePlan`), which after the first events is the same
 * generated code a repeated query runs. Variables are coerced for every event, as in graphql-js,
 * so that each event gets values of its own.
 *
 * Closing the response stream (`return()`) closes the source stream, so the publisher can clean
 * up; an error thrown by the source ends the response stream with that error, as in graphql-js.
 */
import { GraphQLError, defaultFieldResolver, isNonNullType, locatedError } from 'graphql';
import type { DocumentNode, ExecutionResult, FieldNode, GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { inspect } from '../jsutils/inspect.ts';
import { isAsyncIterable } from '../jsutils/isAsyncIterable.ts';
import { mapAsyncIterable } from '../jsutils/mapAsyncIterable.ts';
import { collectFields } from '../language/collectFields.ts';
import { NON_STREAM_IS_FIELD_ERROR, argumentValues, coerceVariableValues } from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';
import { fieldDefinition } from '../language/fieldDefinition.ts';
import { assertValidExecutionArguments, executePlan } from './execute.ts';
import type { ExecuteArgs } from './execute.ts';
import { newPath, pathToArray } from './path.ts';
import { OperationPlan, planOperation } from './plan.ts';
import { resolveInfo } from './resolveInfo.ts';
import { sourceStreamSignals } from './executionSignals.ts';

/** graphql-js's subscribe arguments: execute's, and the resolver used for root fields without `subscribe`. */
export interface SubscribeArgs extends ExecuteArgs {
  subscribeFieldResolver?: GraphQLFieldResolver<unknown, unknown> | null;
}

/**
 * Subscribes: the response stream (an AsyncIterable of ExecutionResult), or an ExecutionResult
 * holding the request or field errors that kept the source stream from being made. Like
 * graphql-js's, it always answers with a promise; misuse of the API rejects it.
 */
export function subscribe(args: SubscribeArgs): Promise<AsyncGenerator<ExecutionResult, void, void> | ExecutionResult> {
  // graphql-js 16 refuses the positional form of v15 the same way.
  if (arguments.length >= 2) {
    return Promise.reject(new Error('graphql@16 dropped long-deprecated support for positional arguments, please pass an object instead.'));
  }
  return subscribeAsync(args);
}

async function subscribeAsync(args: SubscribeArgs): Promise<AsyncGenerator<ExecutionResult, void, void> | ExecutionResult> {
  const plan = chooseOperation(args);
  return plan instanceof OperationPlan ? subscribePlan(plan, args) : plan;
}

/** What subscribing to a planned operation reads of subscribe()'s arguments: the plan has the schema, document and operation. */
export type PlannedSubscribeArgs = Omit<SubscribeArgs, 'schema' | 'document' | 'operationName' | 'access'>;

/**
 * subscribe() for an operation already chosen by planOperation, and planned for the caller's
 * access, as the operation pipeline holds it: the source stream mapped to responses, or the
 * errors that kept it from being made.
 */
export async function subscribePlan(
  plan: OperationPlan,
  args: PlannedSubscribeArgs,
): Promise<AsyncGenerator<ExecutionResult, void, void> | ExecutionResult> {
  const source = await planSourceStream(plan, args);
  if (!('stream' in source)) return source;
  // ExecuteSubscriptionEvent: the planned operation, with the event as its root value. Its
  // variables are coerced again for every event, as graphql-js coerces them: each event gets
  // values of its own, which a resolver may change without the next event seeing it.
  return mapAsyncIterable(source.stream, (payload) => executePlan(plan, { ...args, rootValue: payload }));
}

/**
 * CreateSourceEventStream (spec 6.2.3.1), in both of graphql-js's forms: an argument object, or
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
  assertValidExecutionArguments(args.schema, args.document, args.variableValues);
  const chosen = planOperation(args.schema, args.document, args.operationName);
  return chosen instanceof OperationPlan ? chosen.forAccess(args.access) : { errors: [...chosen] };
}

async function sourceEventStream(args: SubscribeArgs): Promise<Source> {
  const plan = chooseOperation(args);
  return plan instanceof OperationPlan ? planSourceStream(plan, args) : plan;
}

async function planSourceStream(plan: OperationPlan, args: PlannedSubscribeArgs): Promise<Source> {
  const coerced = coerceVariableValues(plan.schema, plan.operation.variableDefinitions ?? [], args.variableValues ?? {}, {
    maxErrors: args.options?.maxCoercionErrors,
    hideSuggestions: args.hideSuggestions,
  });
  if (coerced.errors !== undefined) return { errors: [...coerced.errors] };
  try {
    const stream = await subscriptionStream(args, plan, coerced.variables);
    if (!isAsyncIterable(stream)) {
      throw new Error(`Subscription field must return Async Iterable. Received: ${inspect(stream)}.`);
    }
    return { stream };
  } catch (error) {
    // A field error (located by subscriptionStream) is an answer; anything else is a fault.
    if (error instanceof GraphQLError) return { errors: [error] };
    throw error;
  }
}

/**
 * ResolveFieldEventStream (spec 6.2.3.1): calls the root subscription field's `subscribe`
 * resolver (or `subscribeFieldResolver`, or graphql-js's default) with the root value.
 * As in graphql-js, the root type is the schema's subscription type, and only the first root
 * field (after @skip/@include) makes the stream.
 */
async function subscriptionStream(args: PlannedSubscribeArgs, plan: OperationPlan, variables: VariableValues): Promise<unknown> {
  const { schema, operation, fragments } = plan;
  const rootType = schema.getSubscriptionType();
  if (rootType == null) {
    throw new GraphQLError('Schema is not configured to execute subscription operation.', { nodes: operation });
  }
  const rootFields = collectFields(schema, fragments, variables, rootType, [operation.selectionSet]);
  const [responseName, fieldNodes] = [...rootFields.entries()][0] as [string, FieldNode[]];
  const node = fieldNodes[0] as FieldNode;
  const definition = fieldDefinition(schema, rootType, node.name.value);
  if (definition === undefined) {
    throw new GraphQLError(`The subscription field "${node.name.value}" is not defined.`, { nodes: fieldNodes });
  }
  const path = newPath(undefined, responseName, rootType.name, !isNonNullType(definition.type));
  // A root field the caller may not use never has its subscribe resolver called.
  const denial = plan.access?.denial(rootType, definition) ?? null;
  if (denial !== null) throw locatedError(denial, fieldNodes, pathToArray(path));
  const field = { fieldName: definition.name, fieldNodes, returnType: definition.type, parentType: rootType };
  const signals = sourceStreamSignals(args.abortSignal ?? undefined);
  const info = resolveInfo({ schema, fragments, rootValue: args.rootValue, operation, variableValues: variables, executionSignals: () => signals }, field, path);
  try {
    const fieldArguments = argumentValues(definition, node, variables, args.hideSuggestions);
    const resolve = definition.subscribe ?? args.subscribeFieldResolver ?? defaultFieldResolver;
    const stream: unknown = await resolve(args.rootValue, fieldArguments, args.contextValue, info);
    if (stream instanceof Error) throw stream;
    if (NON_STREAM_IS_FIELD_ERROR && !isAsyncIterable(stream)) {
      throw new GraphQLError(`Subscription field must return Async Iterable. Received: ${inspect(stream)}.`);
    }
    return stream;
  } catch (error) {
    throw locatedError(error, fieldNodes, pathToArray(path));
  }
}

