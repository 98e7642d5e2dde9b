/**
 * execute: runs one operation of a validated document, as the GraphQL spec's section
 * "Execution" describes it. Read from the top: the entry points, then the spec's algorithm in
 * the spec's order, each step a function named after it:
 *
 *   executeOperation        ExecuteOperation: ExecuteQuery / ExecuteMutation (and a
 *                           subscription's events, ExecuteSubscriptionEvent, as queries)
 *   executeSelectionSet     ExecuteSelectionSet (executeFieldsSerially: ExecuteMutation's serial loop)
 *   executeField            ExecuteField: CoerceArgumentValues, ResolveFieldValue, CompleteValue
 *   completeValue           CompleteValue, ResolveAbstractType
 *   handleFieldError        HandleFieldError: null at the nearest nullable position
 *
 * A drop-in for graphql-js `execute`: the same arguments, the same `ExecutionResult`, the same
 * data and errors. How it differs inside:
 *
 *  - It runs a plan (plan.ts) made once per document, so completing an object is a loop over
 *    precomputed fields, not a walk of the AST.
 *  - It stays synchronous while values are synchronous, and returns a Promise only when some
 *    resolver returned one.
 *  - Asynchronous values are awaited in place (`awaitInPlace`): a field whose resolver returns a
 *    promise gets a placeholder in its parent's result object, and the promise's continuation
 *    writes the completed value there. No promise is made per object or per list, and no result
 *    is copied again; the continuations outstanding are counted per request (pendingWork.ts),
 *    and the result is handed back when none is left.
 *  - Fast paths beside this reference path, each in its own module and each proved to agree
 *    with it by a spec-test: plain reads (plainReads.ts), generated readers (compileFields.ts),
 *    generated JSON writers (compileStringify.ts, used by the transports).
 *  - While BatchLoaders exist, each resolver call runs as a task of the request's batch
 *    scheduler (batching/scheduler.ts), which sends loads when every task in flight waits on one.
 *  - A traced execution (ExecuteArgs.trace) reports its resolver calls, and its scheduler its
 *    batches, to trace.ts; an untraced one pays a null check per resolver call and awaited value.
 *  - graphql 17's tracing channels (language/tracingChannels.ts): execute, the variables'
 *    coercion and the root selection set are published when somebody listens; resolver calls, by
 *    an execution that found a graphql:resolve subscriber at its start, on the reference path
 *    (resolverChannel.ts). An execution that finds nobody listening on any of them as it starts
 *    (`isExecutionObserved`) asks nothing more.
 *
 * The state of one execution (its variables, `data`, `errors`, what is pending) is the
 * `Execution` of execution.ts.
 */
import { GraphQLError, assertValidSchema, isObjectType, locatedError } from 'graphql';
import type {
  DocumentNode,
  ExecutionArgs,
  ExecutionResult,
  GraphQLAbstractType,
  GraphQLFieldResolver,
  GraphQLObjectType,
  GraphQLResolveInfo,
  GraphQLSchema,
  GraphQLTypeResolver,
} from 'graphql';
import { inspect } from '../jsutils/inspect.ts';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { isPlainArray } from '../jsutils/isPlainArray.ts';
import { isAsyncIterable } from '../jsutils/isAsyncIterable.ts';
import type { PromiseOrValue } from '../jsutils/promiseOrValue.ts';
import { currentTask, runAsTask } from '../batching/scheduler.ts';
import type { Task } from '../batching/scheduler.ts';
import {
  AWAITED_ERRORS_WAIT_A_MICROTASK,
  ABANDONS_NULLED_WORK,
  CHECKS_EXECUTION_ARGUMENTS,
  COMPLETES_ASYNC_ITERABLE_LISTS,
  IS_TYPE_OF_FIRST,
  NOT_A_TYPE_NAME_SUFFIX,
  OUTPUT_COERCION,
  REFUSES_TYPE_OBJECT_FROM_RESOLVE_TYPE,
  assertUsableSchema,
  EXECUTE_REFUSES_INCREMENTAL,
  coerceVariableValues,
  incrementalSchemaError,
  noVariables,
} from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';
import {
  chosenOperationContext,
  executeChannel,
  isExecutionObserved,
  isTraced,
  knownOperationContext,
  operationContext,
  resolveChannel,
  rootSelectionSetChannel,
  traced,
  variableCoercionChannel,
} from '../language/tracingChannels.ts';
import { generatedReaderFor } from './compileFields.ts';
import type { GeneralPath } from './compileFields.ts';
import { Execution, NOT_HANDLED } from './execution.ts';
import type { AbortState, Container, ResultObject } from './execution.ts';
import { fieldPath, itemPath, pathToArray } from './path.ts';
import type { ResponsePath } from './path.ts';
import type { Continuation } from './pendingWork.ts';
import { OperationPlan, ValueKind, isPlanError, planOperation } from './plan.ts';
import type { AbstractPlan, FieldAccess, FieldPlan, ListPlan, SelectionPlan, StreamPlan, ValuePlan } from './plan.ts';
import { NOT_PLAIN } from './plainReads.ts';
import { FailedRead, NOT_READ, readProperty } from './propertyRead.ts';
import { refuseIncrementalDelivery } from './refuseIncremental.ts';
import { resolveInfo } from './resolveInfo.ts';
import { publishResolverCall, publishTypename } from './resolverChannel.ts';
import { newList } from './newList.ts';

export type { PromiseOrValue } from '../jsutils/promiseOrValue.ts';
export type { AbortState } from './execution.ts';

/** graphql-js's arguments, plus what only our executor offers. */
export interface ExecuteArgs extends ExecutionArgs {
  /**
   * Sum the cost weight (analysis/analyze.ts `fieldWeight`) of every field that runs, and report
   * it as `extensions.cost.actual`: what the query really cost, beside its static estimate.
   * Introspection is not costed (as the server's estimate leaves it out).
   */
  measureCost?: boolean;
  /**
   * Once aborted, no further resolver runs: each field that would have called one fails with
   * the reason instead (a field error), so a timed-out or abandoned request stops working. (Plain
   * property reads of values already in hand still complete.) An AbortSignal will do, or any
   * object with the same two members.
   */
  signal?: AbortState;
  /**
   * The caller's field access (security/access.ts `accessFor(schema, identity)`): fields it
   * denies fail with its error at their path and their resolvers never run. Omitted: every
   * field runs, as in graphql-js.
   */
  access?: FieldAccess | null;
  /**
   * Record what the execution does (its resolver calls, the batches its loaders send, the plan's
   * decisions) and return it as `extensions.trace` (trace.ts `ExecutionTrace`). Off, it costs
   * nothing measurable.
   */
  trace?: boolean;
  /**
   * graphql 17's abort: an aborted signal throws its reason at once; one that aborts during the
   * execution rejects the result with `AbortedGraphQLExecutionError` (its `abortedResult` the
   * result still being made), and values that arrive afterwards fail with "Aborted!". Ignored
   * under graphql 16, as graphql 16's `execute` ignores it (graphqlCompat.ts).
   */
  abortSignal?: AbortSignal | null;
}

/** What executing a planned operation reads of execute()'s arguments: the plan has the schema, document and operation. */
export type PlannedExecuteArgs = Omit<ExecuteArgs, 'schema' | 'document' | 'operationName' | 'access'>;

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

/**
 * Executes an operation; returns the result synchronously when every resolver was synchronous.
 * Never rejects: request and field errors are reported in the result. Misuse of the API (no
 * document, an invalid schema, variables that are not an object) throws at once, as graphql-js does.
 */
export function execute(args: ExecuteArgs): PromiseOrValue<ExecutionResult> {
  if (!isExecutionObserved()) return executeUnpublished(args, false);
  return isTraced(executeChannel) ? executePublished(args) : executeUnpublished(args, true);
}

/**
 * A publication (graphql:execute here, and the same for executePlan, operationVariables and
 * executeWithVariables below) is a function of its own, never a branch of the function nobody
 * listens through: its closure, inline, changed how V8 optimized the whole execution under it
 * (nested-sync under graphql 17 fell to half its speed in about half the benchmark's runs).
 */
function executePublished(args: ExecuteArgs): PromiseOrValue<ExecutionResult> {
  return traced(executeChannel, operationContext(args.schema, args.document, args.variableValues, args.operationName), () => executeUnpublished(args, true));
}

/**
 * execute() within its graphql:execute publication (tracingChannels.ts), or without one when nobody
 * listens. `observed`: whether anybody listened on the execution's channels as it started; when
 * not, its other sites (variables, root selection set, resolvers) are not asked again.
 */
function executeUnpublished(args: ExecuteArgs, observed: boolean): PromiseOrValue<ExecutionResult> {
  const { schema, document, variableValues } = args;
  if (!schemasFreeOfIncrementalDelivery.has(schema)) {
    const refused = incrementalSchemaError(schema);
    if (refused !== null) throw refused;
    schemasFreeOfIncrementalDelivery.add(schema);
  }
  assertValidExecutionArguments(schema, document, variableValues);

  // GetOperation (GraphQL spec, "Executing Requests"), planned once per document (plan.ts).
  const plan = planOperation(schema, document, args.operationName);
  if (isPlanError(plan)) return { errors: plan };
  // An operation that defers or streams: graphql 17's execute refuses it once it would
  // (refuseIncremental.ts); graphql 16's knows no such directives and runs it whole.
  const prepare = EXECUTE_REFUSES_INCREMENTAL && plan.incremental ? refuseIncrementalDelivery : undefined;
  return executePlanUnpublished(plan.forAccess(args.access), args, prepare, observed);
}

/**
 * execute() for an operation already chosen by planOperation, and planned for the caller's
 * access (which the caller holds on to, as the operation pipeline does for the documents it has
 * validated): no argument checks, no plan lookup. Published on graphql:execute as execute() is.
 */
export function executePlan(plan: OperationPlan, args: PlannedExecuteArgs): PromiseOrValue<ExecutionResult> {
  if (!isExecutionObserved()) return executePlanUnpublished(plan, args, undefined, false);
  return isTraced(executeChannel) ? executePlanPublished(plan, args) : executePlanUnpublished(plan, args);
}

function executePlanPublished(plan: OperationPlan, args: PlannedExecuteArgs): PromiseOrValue<ExecutionResult> {
  const context = knownOperationContext(plan.schema, plan.document, plan.operation, args.variableValues);
  return traced(executeChannel, context, () => executePlanUnpublished(plan, args));
}

/** executePlan inside a graphql:execute publication made by its caller (or none). `observed`: as for executeUnpublished. */
export function executePlanUnpublished(
  plan: OperationPlan,
  args: PlannedExecuteArgs,
  prepare?: (exec: Execution) => void,
  observed = true,
): PromiseOrValue<ExecutionResult> {
  const variables = observed ? operationVariables(plan, args) : coerceOperationVariables(plan, args);
  return Array.isArray(variables) ? { errors: variables } : executeWithVariables(plan, args, variables, prepare, observed);
}

/**
 * A subscription's event under graphql 16, which coerces the variables again for every event
 * (graphqlCompat.ts): that coercion is not published, as graphql 17, whose channels these are,
 * coerces once per subscription.
 */
export function executeEventCoercingVariables(plan: OperationPlan, args: PlannedExecuteArgs): PromiseOrValue<ExecutionResult> {
  const variables = coerceOperationVariables(plan, args);
  return Array.isArray(variables) ? { errors: variables } : executeWithVariables(plan, args, variables);
}

/**
 * CoerceVariableValues (GraphQL spec, "Coercing Variable Values") for a planned operation: its
 * variables, or the errors that refuse them (a list: variables never are one). Published on
 * graphql:execute:variableCoercion, whose `result` is `{ variableValues }` or `{ errors }`.
 */
export function operationVariables(plan: OperationPlan, args: PlannedExecuteArgs): VariableValues | GraphQLError[] {
  return isTraced(variableCoercionChannel) ? operationVariablesPublished(plan, args) : coerceOperationVariables(plan, args);
}

function operationVariablesPublished(plan: OperationPlan, args: PlannedExecuteArgs): VariableValues | GraphQLError[] {
  const context = chosenOperationContext(plan.schema, plan.document, plan.operation, args.variableValues);
  const coerced = traced(variableCoercionChannel, context, (): { errors: GraphQLError[] } | { variableValues: VariableValues } => {
    const variables = coerceOperationVariables(plan, args);
    return Array.isArray(variables) ? { errors: variables } : { variableValues: variables };
  });
  return 'errors' in coerced ? coerced.errors : coerced.variableValues;
}

/**
 * operationVariables, unpublished. An operation that declares no variables has none, whatever
 * was sent. (Two functions, so that the common case is small enough for V8 to inline always.)
 */
function coerceOperationVariables(plan: OperationPlan, args: PlannedExecuteArgs): VariableValues | GraphQLError[] {
  return plan.declaresVariables ? coerceDeclaredVariables(plan, args) : noVariables();
}

function coerceDeclaredVariables(plan: OperationPlan, args: PlannedExecuteArgs): VariableValues | GraphQLError[] {
  const coerced = coerceVariableValues(plan.schema, plan.operation.variableDefinitions ?? [], args.variableValues ?? {}, {
    maxErrors: args.options?.maxCoercionErrors,
    hideSuggestions: args.hideSuggestions,
  });
  return coerced.errors !== undefined ? [...coerced.errors] : coerced.variables;
}

/**
 * executePlan with variables already coerced (graphql 17 coerces a subscription's once, for all
 * its events). `prepare` sees the execution before it starts (execute()'s refusal of incremental
 * delivery under graphql 17 installs its hooks there). `observed`: as for executeUnpublished.
 */
export function executeWithVariables(
  plan: OperationPlan,
  args: PlannedExecuteArgs,
  variables: VariableValues,
  prepare?: (exec: Execution) => void,
  observed = true,
): PromiseOrValue<ExecutionResult> {
  const exec = new Execution(plan, args, variables, args.typeResolver ?? defaultTypeResolver, observed && isTraced(resolveChannel));
  if (prepare !== undefined) prepare(exec);
  return observed && isTraced(rootSelectionSetChannel) ? executeOperationPublished(exec, args) : executeOperation(exec);
}

function executeOperationPublished(exec: Execution, args: PlannedExecuteArgs): PromiseOrValue<ExecutionResult> {
  const plan = exec.plan;
  const context = chosenOperationContext(plan.schema, plan.document, plan.operation, args.variableValues);
  return traced(rootSelectionSetChannel, context, () => executeOperation(exec));
}

/**
 * A schema, once checked, stays as it was checked: each of these caches holds the schemas that
 * passed one check, for as long as each schema lives (see SchemaSet).
 */
class SchemaSet {
  /** The schema added or found last: the usual caller passes the same schema every time. */
  private recent: GraphQLSchema | null = null;
  private readonly schemas = new WeakSet<GraphQLSchema>();

  has(schema: GraphQLSchema): boolean {
    if (schema === this.recent) return true;
    if (!this.schemas.has(schema)) return false;
    this.recent = schema;
    return true;
  }

  add(schema: GraphQLSchema): void {
    this.schemas.add(schema);
    this.recent = schema;
  }
}

/** Schemas that passed graphql-js's schema checks (graphql-js keeps the same verdict on the schema). */
const validSchemas = new SchemaSet();
/** Schemas execute() found free of `@defer` and `@stream` (graphql 17 refuses the others). */
const schemasFreeOfIncrementalDelivery = new SchemaSet();

/**
 * The checks graphql-js makes before executing; failing them is a programming error. A schema
 * from another copy of graphql, or an installed graphql this package does not support, gets one
 * error saying so (graphqlCompat.ts) before graphql's own checks would name neither.
 */
export function assertValidExecutionArguments(
  schema: GraphQLSchema,
  document: DocumentNode,
  variableValues: ExecutionArgs['variableValues'],
  entry: 'execute' | 'subscribe' = 'execute',
): void {
  if (CHECKS_EXECUTION_ARGUMENTS && !document) throw new Error('Must provide document.');
  if (!validSchemas.has(schema)) {
    assertUsableSchema(schema, entry);
    assertValidSchema(schema);
    validSchemas.add(schema);
  }
  if (!CHECKS_EXECUTION_ARGUMENTS) {
    // graphql 17 just reads the document, and takes the variables as they come.
    if (document == null) throw new TypeError(`Cannot read properties of ${String(document)} (reading 'definitions')`);
    return;
  }
  if (variableValues != null && typeof variableValues !== 'object') {
    throw new Error(
      'Variables must be provided as an Object where each property is a variable value. Perhaps look to see if an unparsed JSON string was provided.',
    );
  }
}

// ---------------------------------------------------------------------------------------------
// The algorithm, in the spec's order
// ---------------------------------------------------------------------------------------------

/**
 * ExecuteOperation (GraphQL spec, "Executing Operations"): the root selection set on the root
 * value, its fields in parallel for a query (ExecuteQuery) and a subscription's event, one after
 * another for a mutation (ExecuteMutation). Returns the result, or a promise of it when
 * something is still pending once the root fields have started.
 */
/** The result of an operation whose root type the schema lacks (a mutation on a schema without one). */
export function noRootType(exec: Execution): ExecutionResult {
  return { errors: [new GraphQLError(`Schema is not configured to execute ${exec.operation.operation} operation.`, { nodes: exec.operation })], data: null };
}

function executeOperation(exec: Execution): PromiseOrValue<ExecutionResult> {
  const plan = exec.plan;
  if (plan.rootType === undefined) return noRootType(exec);
  if (exec.abortSignal !== undefined) exec.listenForAbort(exec.abortSignal);
  let fields: ReadonlyArray<FieldPlan> | undefined;
  try {
    fields = exec.fieldsOf(plan.root);
  } catch (error) {
    exec.failRoot(error as GraphQLError);
  }
  if (fields !== undefined) {
    exec.data = new plan.root.Result();
    if (exec.scheduler !== null) runAsTask(exec.scheduler, executeRootSelectionSet, exec, fields);
    else executeRootSelectionSet(exec, fields);
  }
  return exec.response();
}

/** The root selection set into `exec.data`: serially for a mutation, else normally. */
function executeRootSelectionSet(exec: Execution, fields: ReadonlyArray<FieldPlan>): void {
  if (exec.operation.operation === 'mutation') {
    executeFieldsSerially(exec, fields, 0);
    return;
  }
  try {
    const data = executeFields(exec, fields, exec.rootValue, exec.data as ResultObject, undefined);
    if (data instanceof Promise) exec.awaitRootFailure(data);
  } catch (error) {
    exec.failRoot(error as GraphQLError);
  }
}

/**
 * ExecuteMutation's serial execution (GraphQL spec, "Normal and Serial Execution"): each root
 * mutation field, with everything below it, is complete before the next one starts. A field that
 * leaves work pending pauses the loop; the loop resumes when that work has settled.
 */
export function executeFieldsSerially(exec: Execution, fields: ReadonlyArray<FieldPlan>, from: number): void {
  for (let i = from; i < fields.length && exec.data !== null; i++) {
    if (exec.aborted !== null) {
      exec.failRoot(new GraphQLError('Aborted!'));
      return;
    }
    try {
      executeField(exec, fields[i] as FieldPlan, exec.rootValue, exec.data, undefined, NOT_READ);
    } catch (error) {
      exec.failRoot(error as GraphQLError);
      return;
    }
    if (exec.work.size > 0) {
      exec.resumeSerial = () => executeFieldsSerially(exec, fields, i + 1);
      return;
    }
  }
}

/**
 * ExecuteSelectionSet (GraphQL spec, "Executing Selection Sets"): a new result object for
 * `source`, with every field of the selection plan executed into it. Once the plan has completed
 * enough objects, the code compileFields.ts generated for it does the same (the generated-reader
 * fast path); otherwise the loop of `executeFields`.
 */
function executeSelectionSet(
  exec: Execution,
  field: FieldPlan,
  selections: SelectionPlan,
  fields: ReadonlyArray<FieldPlan>,
  source: unknown,
  path: ResponsePath | undefined,
): PromiseOrValue<ResultObject> {
  if (fields === selections.fields && exec.plainReads && typeof source === 'object' && source !== null) {
    const generated = generatedReaderFor(selections, executeField as GeneralPath);
    if (generated) {
      const since = exec.work.mark();
      try {
        return generated(exec as never, source, path);
      } catch (error) {
        return failObject(exec, path, since, error);
      }
    }
  }
  // Incremental delivery: an object whose fields may be deferred (never a plain-reads execution,
  // so the generated readers above never meet one).
  if (exec.incremental !== null) {
    const handled = exec.incremental.executeSelectionSet(exec, field, selections, source, path);
    if (handled !== NOT_HANDLED) return handled;
  }
  return executeFields(exec, fields, source, new selections.Result(), path);
}

/**
 * ExecuteSelectionSet's loop: one field after another, into one result object. A Non-Null
 * failure abandons the object; if fields that ran before it are still pending, the failure
 * waits for them (as graphql-js's does) and comes back as a promise that rejects.
 */
export function executeFields(
  exec: Execution,
  fields: ReadonlyArray<FieldPlan>,
  source: unknown,
  result: ResultObject,
  path: ResponsePath | undefined,
): PromiseOrValue<ResultObject> {
  const since = exec.work.mark();
  // The plain-read fast path (plainReads.ts) needs an object to read from and our default
  // resolver. (An abort stops resolvers, not property reads.)
  const plain = exec.plainReads && typeof source === 'object' && source !== null;
  try {
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i] as FieldPlan;
      const plainRead = field.plainRead;
      if (plain && plainRead !== null) {
        const value = readProperty(source, field.fieldName);
        const completed = plainRead.completed(value);
        if (completed !== NOT_PLAIN) {
          result[field.responseName] = completed;
          if (exec.actualCost !== null) exec.actualCost += field.plainReadWeight;
        } else {
          // Not in shape: the reference path, with the value already read (a getter runs once).
          executeField(exec, field, source, result, path, value);
        }
        continue;
      }
      executeField(exec, field, source, result, path, NOT_READ);
    }
  } catch (error) {
    return failObject(exec, path, since, error);
  }
  return result;
}

/**
 * ExecuteField (GraphQL spec, "Executing Fields"): CoerceArgumentValues, ResolveFieldValue,
 * then CompleteValue, stored under the response name. A field the caller is denied, or any field
 * with a resolver once the request is aborted, fails instead without its resolver running. While
 * loaders exist, a field with a resolver runs as its own task of the batch scheduler, so that
 * the loads it awaits are known (batching/scheduler.ts).
 *
 * `alreadyRead`: the value a plain read took off `source` (plainReads.ts), or NOT_READ.
 */
function executeField(
  exec: Execution,
  field: FieldPlan,
  source: unknown,
  result: ResultObject,
  parentPath: ResponsePath | undefined,
  alreadyRead: unknown,
): void {
  if (field.denial !== null) {
    handleFieldError(exec, field.denial, field, fieldPath(field, parentPath), result, field.responseName, false);
    return;
  }
  if (exec.signal !== undefined && exec.signal.aborted && !publishedPlainRead(exec, field, source)) {
    const reason = exec.signal.reason;
    const error = reason instanceof Error ? reason : new Error('The request was aborted.');
    handleFieldError(exec, error, field, fieldPath(field, parentPath), result, field.responseName, false);
    return;
  }
  if (exec.actualCost !== null) exec.actualCost += exec.weightOf(field);
  if (exec.scheduler !== null && (field.resolve !== undefined || exec.fieldResolver !== undefined)) {
    runAsTask(exec.scheduler, resolveAndComplete, exec, field, source, result, parentPath, NOT_READ);
  } else {
    resolveAndComplete(exec, field, source, result, parentPath, alreadyRead);
  }
}

/**
 * Whether an aborted execution still completes this field because, unpublished, it would have
 * been a plain read of a value in shape (which an abort does not stop): an execution publishing
 * its resolvers reads no field plainly, but must not fail more fields than one that does not.
 */
function publishedPlainRead(exec: Execution, field: FieldPlan, source: unknown): boolean {
  const plainRead = field.plainRead;
  if (!exec.publishesResolvers || plainRead === null || typeof source !== 'object' || source === null) return false;
  return plainRead.completed(readProperty(source, field.fieldName)) !== NOT_PLAIN;
}

/**
 * ExecuteField's steps: ResolveFieldValue, CompleteValue, store. A pending value gets null now
 * and is stored in place when it comes (awaitInPlace). A field error goes to handleFieldError.
 */
function resolveAndComplete(
  exec: Execution,
  field: FieldPlan,
  source: unknown,
  result: ResultObject,
  parentPath: ResponsePath | undefined,
  alreadyRead: unknown,
): void {
  const name = field.responseName;
  if (field.isTypename) {
    result[name] = exec.publishesResolvers ? publishTypename(field, fieldPath(field, parentPath)) : field.parentType.name;
    return;
  }
  const plan = field.value;
  const resolve = field.resolve ?? exec.fallbackResolver;
  // A position is made when something needs it: a resolver's `info`, or a composite value's
  // children. A leaf read by the default resolver gets one only if it fails or is pending.
  const path = resolve !== undefined || plan.needsPath ? fieldPath(field, parentPath) : undefined;
  try {
    let value = resolveFieldValue(exec, field, resolve, source, alreadyRead, path, parentPath);
    let completion: ValuePlan | null = plan;
    if (!isPromiseLike(value)) {
      value = completeValue(exec, field, plan, value, path);
      if (!(value instanceof Promise)) {
        result[name] = value;
        return;
      }
      completion = null;
    }
    result[name] = null;
    awaitInPlace(exec, value, field, completion, result, name, path ?? fieldPath(field, parentPath));
  } catch (raw) {
    handleFieldError(exec, raw, field, path ?? fieldPath(field, parentPath), result, name, false);
  }
}

/**
 * ResolveFieldValue (GraphQL spec, "Value Resolution"): the field's resolver (or the caller's
 * `fieldResolver`) with the coerced arguments, or the default resolver. `path` is set whenever
 * there is a resolver (and an execution that publishes its resolvers has one for every field:
 * Execution.fallbackResolver).
 */
function resolveFieldValue(
  exec: Execution,
  field: FieldPlan,
  resolve: GraphQLFieldResolver<unknown, unknown> | undefined,
  source: unknown,
  alreadyRead: unknown,
  path: ResponsePath | undefined,
  parentPath: ResponsePath | undefined,
): unknown {
  if (resolve === undefined) return resolveByDefault(exec, field, source, alreadyRead, path, parentPath);
  if (exec.observesResolvers) return resolveObserved(exec, field, resolve, source, path as ResponsePath);
  return resolve(source, exec.argumentsOf(field), exec.contextValue, resolveInfo(exec, field, path as ResponsePath));
}

/**
 * The default resolver: the property of `source` named like the field, or, when that property
 * is a function, what calling it as a method with `(args, contextValue, info)` returns. Arguments
 * are coerced even if unused, so that their errors surface. (The plain-read fast paths do its
 * property read only: propertyRead.ts.)
 */
function resolveByDefault(
  exec: Execution,
  field: FieldPlan,
  source: unknown,
  alreadyRead: unknown,
  path: ResponsePath | undefined,
  parentPath: ResponsePath | undefined,
): unknown {
  const args = field.hasArguments ? exec.argumentsOf(field) : undefined;
  if ((typeof source !== 'object' || source === null) && typeof source !== 'function') return undefined;
  const value = alreadyRead !== NOT_READ ? alreadyRead : (source as Record<string, unknown>)[field.fieldName];
  if (value instanceof FailedRead) throw value.error;
  if (typeof value !== 'function') return value;
  const info = resolveInfo(exec, field, path ?? fieldPath(field, parentPath));
  return (source as Record<string, (...a: unknown[]) => unknown>)[field.fieldName]!(args ?? Object.create(null), exec.contextValue, info);
}

/**
 * A resolver call of an observed execution: published on graphql:resolve (resolverChannel.ts),
 * and, in a traced execution, recorded from just before the call (arguments and `info` made)
 * until it returns; trace.ts follows a returned promise until it settles. (The default resolver
 * a publishing execution calls is no resolver of the trace's.)
 */
function resolveObserved(
  exec: Execution,
  field: FieldPlan,
  resolve: GraphQLFieldResolver<unknown, unknown>,
  source: unknown,
  path: ResponsePath,
): unknown {
  const args = exec.argumentsOf(field);
  const info = resolveInfo(exec, field, path);
  const trace = exec.trace;
  if (trace === null || (field.resolve === undefined && exec.fieldResolver === undefined)) return callObserved(exec, field, resolve, source, args, info, path);
  const index = trace.resolverCalled(field, path, exec.scheduler !== null ? currentTask() : undefined, exec);
  let value: unknown;
  try {
    value = callObserved(exec, field, resolve, source, args, info, path);
  } catch (error) {
    trace.resolverReturned(index, undefined);
    throw error;
  }
  trace.resolverReturned(index, value);
  return value;
}

/** One resolver call, published on graphql:resolve when the execution publishes its resolvers (a closure only then). */
function callObserved(
  exec: Execution,
  field: FieldPlan,
  resolve: GraphQLFieldResolver<unknown, unknown>,
  source: unknown,
  args: Record<string, unknown>,
  info: GraphQLResolveInfo,
  path: ResponsePath,
): unknown {
  if (!exec.publishesResolvers) return resolve(source, args, exec.contextValue, info);
  return publishResolverCall(field, path, args, () => resolve(source, args, exec.contextValue, info));
}

/**
 * CompleteValue (GraphQL spec, "Value Completion"). Returns the completed value, or a native
 * Promise of it when completing needs to wait (an asynchronous `isTypeOf` or `resolveType`, a
 * pending child); throws a field error.
 */
export function completeValue(exec: Execution, field: FieldPlan, plan: ValuePlan, value: unknown, path: ResponsePath | undefined): unknown {
  if (value instanceof Error) throw value;
  if (value == null) {
    if (plan.nonNull) {
      throw new Error(`Cannot return null for non-nullable field ${field.parentType.name}.${field.fieldName}.`);
    }
    return null;
  }
  switch (plan.kind) {
    case ValueKind.Leaf: {
      const serialized = plan.serialize(value);
      if (serialized == null) {
        throw new Error(
          `Expected \`${inspect(plan.type)}.${OUTPUT_COERCION}(${inspect(value)})\` to return non-nullable value, returned: ${inspect(serialized)}`,
        );
      }
      // graphql-js awaits a serializer's thenable like any other pending completion; made a
      // native Promise here, so that callers can tell pending completions by `instanceof Promise`.
      return isPromiseLike(serialized) ? Promise.resolve(serialized) : serialized;
    }
    case ValueKind.Object:
      return completeObjectValue(exec, field, plan.type, value, path as ResponsePath);
    case ValueKind.List:
      return completeListValue(exec, field, plan, value, path as ResponsePath);
    case ValueKind.Abstract:
      return completeAbstractValue(exec, field, plan, value, path as ResponsePath);
    case ValueKind.Stream:
      // A list field with `@stream`: incremental delivery's to complete (execution/incremental/);
      // run without it, a list like any other.
      if (exec.incremental !== null) {
        const handled = exec.incremental.completeStreamedList(exec, field, plan, value, path as ResponsePath);
        if (handled !== NOT_HANDLED) return handled;
      }
      return completeListValue(exec, field, plan, value, path as ResponsePath);
  }
}

/** CompleteValue of a list: any iterable; each item completed at its own position (its index). */
export function completeListValue(exec: Execution, field: FieldPlan, plan: ListPlan | StreamPlan, value: unknown, path: ResponsePath): unknown[] {
  const item = plan.item;
  const completed = newList();
  // A plain array (the usual list) is read by index; it is iterable, so the check below holds.
  if (isPlainArray(value)) {
    for (let index = 0; index < value.length; index++) {
      completeListItem(exec, field, item, value[index], completed, index, path);
    }
  } else {
    if (COMPLETES_ASYNC_ITERABLE_LISTS && isAsyncIterable(value)) return completeAsyncIterableList(exec, field, item, value, path);
    if (typeof value !== 'object' || typeof (value as Iterable<unknown>)[Symbol.iterator] !== 'function') {
      throw new GraphQLError(`Expected Iterable, but did not find one for field "${field.parentType.name}.${field.fieldName}".`);
    }
    let index = 0;
    for (const entry of value as Iterable<unknown>) {
      completeListItem(exec, field, item, entry, completed, index++, path);
    }
  }
  return completed;
}

/**
 * CompleteValue of a list given as an AsyncIterable (graphql 17; graphqlCompat.ts): the list is
 * in place at once, and its items are awaited one after another, each completed at its index as
 * it comes (a continuation, as for any pending value, so errors inside items find their list).
 * An iterator that fails fails the list; one left unfinished (a failure, or the execution
 * stopped) is closed. `streamFrom` (incremental delivery's `@stream`) may take the iterator over
 * at an index: it returns true when it has, and the list ends there.
 */
export function completeAsyncIterableList(
  exec: Execution,
  field: FieldPlan,
  item: ValuePlan,
  items: AsyncIterable<unknown>,
  path: ResponsePath,
  streamFrom?: (index: number, iterator: AsyncIterator<unknown>) => boolean,
): unknown[] {
  const iterator = items[Symbol.asyncIterator]();
  const completed = newList();
  const continuation = exec.work.add(path);
  const task = exec.scheduler !== null ? currentTask() : undefined;
  task?.scheduler.valuePending(task, 1);
  const settle = () => {
    task?.scheduler.valuePending(task, -1);
    exec.settle(continuation);
  };
  readItems(exec, field, item, iterator, completed, path, streamFrom).then(settle, (error: unknown) => {
    Promise.resolve()
      .then(() => iterator.return?.())
      .catch(ignore);
    const list = { value: completed as unknown };
    handleFieldError(exec, error, field, path, list, 'value', true);
    if (list.value === null) exec.nullAt(path);
    settle();
  });
  return completed;
}

async function readItems(
  exec: Execution,
  field: FieldPlan,
  item: ValuePlan,
  iterator: AsyncIterator<unknown>,
  completed: unknown[],
  path: ResponsePath,
  streamFrom: ((index: number, iterator: AsyncIterator<unknown>) => boolean) | undefined,
): Promise<void> {
  for (let index = 0; ; index++) {
    if (streamFrom !== undefined && streamFrom(index, iterator)) return;
    let iteration: IteratorResult<unknown>;
    try {
      iteration = await iterator.next();
    } catch (raw) {
      throw locatedError(raw, field.fieldNodes, pathToArray(path));
    }
    if (iteration.done) return;
    if (exec.stopped) throw new Error('Aborted!');
    completeListItem(exec, field, item, iteration.value, completed, index, path);
  }
}

export function completeListItem(
  exec: Execution,
  field: FieldPlan,
  item: ValuePlan,
  value: unknown,
  completed: unknown[],
  index: number,
  listPath: ResponsePath,
): void {
  const path = item.needsPath ? itemPath(listPath, index, item) : undefined;
  try {
    let itemValue = value;
    let completion: ValuePlan | null = item;
    if (!isPromiseLike(itemValue)) {
      itemValue = completeValue(exec, field, item, itemValue, path);
      if (!(itemValue instanceof Promise)) {
        completed.push(itemValue);
        return;
      }
      completion = null;
    }
    completed.push(null);
    awaitInPlace(exec, itemValue, field, completion, completed, index, path ?? itemPath(listPath, index, item));
  } catch (raw) {
    handleFieldError(exec, raw, field, path ?? itemPath(listPath, index, item), completed, index, false);
  }
}

/**
 * CompleteValue of an object: check `isTypeOf` if the type has one (it may be asynchronous),
 * then ExecuteSelectionSet on the value. graphql 16 chooses the field list before asking
 * `isTypeOf`, so the errors of choosing it (a `@skip` whose variable is null) come first;
 * graphql 17 asks `isTypeOf` first (graphqlCompat.ts).
 */
function completeObjectValue(
  exec: Execution,
  field: FieldPlan,
  type: GraphQLObjectType,
  value: unknown,
  path: ResponsePath,
): PromiseOrValue<ResultObject> {
  const selections = field.selectionsFor(type);
  let fields = IS_TYPE_OF_FIRST ? undefined : exec.fieldsOf(selections);
  if (type.isTypeOf != null) {
    const isTypeOf = type.isTypeOf(value, exec.contextValue, infoAt(exec, field, path));
    if (isPromiseLike(isTypeOf)) {
      return Promise.resolve(isTypeOf).then((matches) => {
        if (exec.stopped) throw new Error('Aborted!');
        if (!matches) throw invalidReturnTypeError(type, value, field);
        return executeSelectionSet(exec, field, selections, fields ?? exec.fieldsOf(selections), value, path);
      });
    }
    if (!isTypeOf) throw invalidReturnTypeError(type, value, field);
  }
  fields ??= exec.fieldsOf(selections);
  return executeSelectionSet(exec, field, selections, fields, value, path);
}

function invalidReturnTypeError(type: GraphQLObjectType, value: unknown, field: FieldPlan): GraphQLError {
  return new GraphQLError(`Expected value of type "${type.name}" but got: ${inspect(value)}.`, { nodes: field.fieldNodes });
}

/**
 * CompleteValue of an interface or union: ResolveAbstractType (GraphQL spec, "Value
 * Completion") finds the runtime object type, then the value is completed as an object of it.
 */
function completeAbstractValue(
  exec: Execution,
  field: FieldPlan,
  plan: AbstractPlan,
  value: unknown,
  path: ResponsePath,
): PromiseOrValue<ResultObject> {
  const abstractType = plan.type;
  const resolveType = abstractType.resolveType ?? exec.typeResolver;
  const runtimeType = resolveType(value, exec.contextValue, infoAt(exec, field, path), abstractType);
  if (isPromiseLike(runtimeType)) {
    return Promise.resolve(runtimeType).then((resolved) => {
      if (exec.stopped) throw new Error('Aborted!');
      return completeObjectValue(exec, field, ensureValidRuntimeType(exec, resolved, abstractType, field, value), value, path);
    });
  }
  return completeObjectValue(exec, field, ensureValidRuntimeType(exec, runtimeType, abstractType, field, value), value, path);
}

function ensureValidRuntimeType(
  exec: Execution,
  runtimeTypeName: unknown,
  abstractType: GraphQLAbstractType,
  field: FieldPlan,
  value: unknown,
): GraphQLObjectType {
  const nodes = field.fieldNodes;
  const where = `for field "${field.parentType.name}.${field.fieldName}"`;
  if (runtimeTypeName == null) {
    throw new GraphQLError(
      `Abstract type "${abstractType.name}" must resolve to an Object type at runtime ${where}. Either the "${abstractType.name}" type should provide a "resolveType" function or each possible type should provide an "isTypeOf" function.`,
      { nodes },
    );
  }
  if (REFUSES_TYPE_OBJECT_FROM_RESOLVE_TYPE && isObjectType(runtimeTypeName)) {
    throw new GraphQLError(
      'Support for returning GraphQLObjectType from resolveType was removed in graphql-js@16.0.0 please return type name instead.',
      { nodes },
    );
  }
  if (typeof runtimeTypeName !== 'string') {
    throw new GraphQLError(
      `Abstract type "${abstractType.name}" must resolve to an Object type at runtime ${where} with value ${inspect(value)}, received "${inspect(runtimeTypeName)}"${NOT_A_TYPE_NAME_SUFFIX}.`,
      { nodes },
    );
  }
  const runtimeType = exec.schema.getType(runtimeTypeName);
  if (runtimeType == null) {
    throw new GraphQLError(
      `Abstract type "${abstractType.name}" was resolved to a type "${runtimeTypeName}" that does not exist inside the schema.`,
      { nodes },
    );
  }
  if (!isObjectType(runtimeType)) {
    throw new GraphQLError(`Abstract type "${abstractType.name}" was resolved to a non-object type "${runtimeTypeName}".`, {
      nodes,
    });
  }
  if (!exec.schema.isSubType(abstractType, runtimeType)) {
    throw new GraphQLError(`Runtime Object type "${runtimeType.name}" is not a possible type for "${abstractType.name}".`, {
      nodes,
    });
  }
  return runtimeType;
}

/**
 * The `info` given to `isTypeOf` and `resolveType`: the field's own (graphql-js passes the
 * field's info, even for an item of a list). A field position is the nearest one with a typename.
 */
function infoAt(exec: Execution, field: FieldPlan, path: ResponsePath): GraphQLResolveInfo {
  let fieldPosition: ResponsePath = path;
  while (fieldPosition.typename === undefined && fieldPosition.prev !== undefined) fieldPosition = fieldPosition.prev;
  return resolveInfo(exec, field, fieldPosition);
}

/**
 * HandleFieldError (GraphQL spec, "Handling Execution Errors"): a field error at `path` (a
 * field's position, or a list item's) makes that position null if it may be null, and records
 * the error. If it may not, the null moves to the nearest nullable ancestor: while the frames
 * that built the ancestors are still running, by throwing to the nearest one that catches at a
 * nullable position; in a continuation (`inContinuation`), whose stack is gone, by walking the
 * path up. One error is reported per position, and none from inside a position already nulled
 * (the rule graphql-js 16.15 follows).
 */
export function handleFieldError(
  exec: Execution,
  raw: unknown,
  field: FieldPlan,
  path: ResponsePath,
  container: Container,
  key: string | number,
  inContinuation: boolean,
): void {
  const error = locatedError(raw, field.fieldNodes, pathToArray(path));
  if (path.nullable) {
    exec.nullField(error, path);
    (container as Record<string | number, unknown>)[key] = null;
    return;
  }
  if (!inContinuation) throw error;
  // Rise through Non-Null positions. An object on the way whose own failure is waiting
  // (see pendingWork.ts) takes the error as its first rejection, and the rise ends there.
  let position: ResponsePath = path;
  for (;;) {
    const parent = position.prev;
    if (exec.work.stopsAt(parent)) return;
    // The top of this execution's part of the response: the root (or, for a deferred fragment's
    // or a streamed item's execution, where that part stands: the part fails).
    if (parent === exec.rootPath || parent === undefined) {
      exec.failRoot(error);
      return;
    }
    if (parent.nullable) {
      if (exec.recordError(error, parent)) exec.nullAt(parent);
      exec.cutOff(parent);
      return;
    }
    position = parent;
  }
}

// ---------------------------------------------------------------------------------------------
// Asynchronous values, awaited in place
// ---------------------------------------------------------------------------------------------

/**
 * Awaits a promised value for one response position, then completes it (unless `plan` is null:
 * the promise already yields a completed value) and stores it in place; a failure goes to
 * handleFieldError from the continuation.
 */
export function awaitInPlace(
  exec: Execution,
  promise: PromiseLike<unknown>,
  field: FieldPlan,
  plan: ValuePlan | null,
  container: Container,
  key: string | number,
  path: ResponsePath,
): void {
  // Registered before `then` is called: a thenable may call back at once, synchronously.
  const continuation: Continuation = exec.work.add(path);
  const task = exec.scheduler !== null ? currentTask() : undefined;
  task?.scheduler.valuePending(task, 1);
  // A hand-made thenable may call back more than once, or both ways: only the first counts.
  // (The callbacks are written inline rather than as named closures, which cost more to make.)
  let settled = false;
  try {
    promise.then(
      (resolved) => {
        if (settled) return;
        settled = true;
        if (exec.trace !== null) exec.trace.settled(promise);
        if (exec.stopped) {
          // Not completed, so the promises among a list's items are never awaited: their
          // rejections must not go unhandled.
          if (isPlainArray(resolved)) for (const item of resolved) if (isPromiseLike(item)) item.then(undefined, ignore);
          failAwaited(exec, new Error('Aborted!'), field, container, key, path, task, continuation);
          return;
        }
        try {
          if (plan === null) {
            exec.store(container, key, path, resolved);
          } else {
            const completed = completeValue(exec, field, plan, resolved, path);
            if (completed instanceof Promise) awaitInPlace(exec, completed, field, null, container, key, path);
            else exec.store(container, key, path, completed);
          }
        } catch (error) {
          failAwaited(exec, error, field, container, key, path, task, continuation);
          return;
        }
        task?.scheduler.valuePending(task, -1);
        exec.settle(continuation);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        if (exec.trace !== null) exec.trace.settled(promise);
        failAwaited(exec, error, field, container, key, path, task, continuation);
      },
    );
  } catch (error) {
    // `then` itself threw: a field error for the caller to handle, as in graphql-js, and
    // nothing is pending any more (unless it called back first: then that answer stands).
    if (settled) return;
    settled = true;
    if (exec.trace !== null) exec.trace.settled(promise);
    task?.scheduler.valuePending(task, -1);
    exec.work.done(continuation);
    throw error;
  }
}

/**
 * A value awaited in place failed (rejected, or could not be completed). graphql 16 handles the
 * error one microtask later: there a field's promise goes through two `then`s (complete the
 * value, then handle its error), so such errors come after the synchronous errors of objects
 * that resolved in the same turn. graphql 17 awaits the value and handles the error in the same
 * step, so it handles it at once (graphqlCompat.ts). Drop-in users diff error lists.
 */
function failAwaited(
  exec: Execution,
  error: unknown,
  field: FieldPlan,
  container: Container,
  key: string | number,
  path: ResponsePath,
  task: Task | undefined,
  continuation: Continuation,
): void {
  const fail = () => {
    handleFieldError(exec, error, field, path, container, key, true);
    task?.scheduler.valuePending(task, -1);
    exec.settle(continuation);
  };
  if (AWAITED_ERRORS_WAIT_A_MICROTASK) queueMicrotask(fail);
  else fail();
}

/**
 * An object failed (a Non-Null field of it threw): if fields that ran since `since` are still
 * pending, the failure waits for them (as graphql-js's does) and comes back as a promise that
 * rejects; otherwise the error goes on up at once.
 */
function failObject(exec: Execution, path: ResponsePath | undefined, since: number, error: unknown): Promise<never> {
  if (ABANDONS_NULLED_WORK) throw error;
  const deferred = exec.work.defer(path, since, error);
  if (deferred === null) throw error;
  return deferred;
}

const ignore = () => undefined;

/**
 * The default `resolveType`: a `__typename` on the value, else the first possible type whose
 * `isTypeOf` accepts it (asynchronous answers are awaited together, in declaration order).
 */
export const defaultTypeResolver: GraphQLTypeResolver<unknown, unknown> = (value, contextValue, info, abstractType) => {
  if (typeof value === 'object' && value !== null && typeof (value as { __typename?: unknown }).__typename === 'string') {
    return (value as { __typename: string }).__typename;
  }
  const possibleTypes = info.schema.getPossibleTypes(abstractType);
  const pending: Array<PromiseLike<unknown> | undefined> = [];
  let anyPending = false;
  try {
    for (let i = 0; i < possibleTypes.length; i++) {
      const type = possibleTypes[i] as GraphQLObjectType;
      if (type.isTypeOf == null) continue;
      const matches = type.isTypeOf(value, contextValue, info);
      if (isPromiseLike(matches)) {
        pending[i] = matches;
        anyPending = true;
      } else if (matches) {
        // Answers still pending no longer matter, but their rejections must not go unhandled.
        if (anyPending) Promise.allSettled(pending).catch(() => undefined);
        return type.name;
      }
    }
  } catch (error) {
    if (anyPending) return Promise.allSettled(pending).then(() => Promise.reject(error));
    throw error;
  }
  if (!anyPending) return undefined;
  return Promise.all(pending).then((answers) => {
    for (let i = 0; i < answers.length; i++) {
      if (answers[i]) return (possibleTypes[i] as GraphQLObjectType).name;
    }
    return undefined;
  });
};
