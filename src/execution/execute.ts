/**
 * execute: runs one operation of a validated document (spec section 6, "Execution").
 *
 * A drop-in for graphql-js `execute`: the same arguments, the same `ExecutionResult`, the same
 * data and errors. What differs is how it gets there:
 *
 *  - It runs a plan (plan.ts) made once per document, so completing an object is a loop over
 *    precomputed fields, not a walk of the AST.
 *  - It stays synchronous while values are synchronous, and returns a Promise only when some
 *    resolver returned one.
 *  - Asynchronous values are awaited *in place*: a field whose resolver returns a promise gets a
 *    placeholder in its parent's result object, and the promise's continuation writes the
 *    completed value there. graphql-js instead builds a promise per object and per list
 *    (`Promise.all`) and copies every result once more; we keep a registry of outstanding
 *    continuations per request (pendingWork.ts) and finish when it is empty.
 *  - A field read straight off its parent, whose value is already in shape (plan.ts
 *    `PlainRead`), is stored as it is: no resolver call, no completion (executeFields). Once a
 *    selection plan has completed enough objects, generated code does those reads and stores
 *    by name (compileFields.ts, called from executeSelection).
 *  - While BatchLoaders exist, each resolver call runs as a task of the request's batch
 *    scheduler (batching/scheduler.ts), which sends loads when every task in flight waits on one.
 *  - A traced execution (ExecuteArgs.trace) reports its resolver calls, and its scheduler its
 *    batches, to trace.ts; an untraced one pays a null check per resolver call and awaited value.
 *
 * Errors (spec 6.4.4): a field error makes its position null; if the position is Non-Null the
 * null moves to the nearest nullable ancestor. Synchronously that is a thrown error caught by
 * the nearest nullable field; asynchronously the continuation walks its `ResponsePath` up to the
 * first nullable position. One error is reported per position, and none from inside a position
 * already nulled (the rule graphql-js 16.15 follows).
 */
import { GraphQLError, assertValidSchema, isObjectType, locatedError } from 'graphql';
import type {
  DocumentNode,
  ExecutionArgs,
  FieldNode,
  ExecutionResult,
  GraphQLAbstractType,
  GraphQLFieldResolver,
  GraphQLObjectType,
  GraphQLResolveInfo,
  GraphQLSchema,
  GraphQLTypeResolver,
  OperationDefinitionNode,
} from 'graphql';
import { inspect } from '../jsutils/inspect.ts';
import { fieldPath, itemPath, pathToArray } from './path.ts';
import type { ResponsePath } from './path.ts';
import { NOT_PLAIN, OperationPlan, ValueKind, planOperation } from './plan.ts';
import type { AbstractPlan, ArgumentValues, FieldAccess, FieldPlan, ListPlan, SelectionPlan, ValuePlan } from './plan.ts';
import { fieldWeight } from '../analysis/analyze.ts';
import { currentTask, newScheduler, runAsTask } from '../batching/scheduler.ts';
import type { BatchScheduler } from '../batching/scheduler.ts';
import { PendingWork } from './pendingWork.ts';
import type { Continuation, NulledPositions } from './pendingWork.ts';
import { resolveInfo } from './resolveInfo.ts';
import type { RequestScope } from './resolveInfo.ts';
import type { Fragments } from '../language/collectFields.ts';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { isPlainArray } from '../jsutils/isPlainArray.ts';
import { COMPILE_AFTER, compileFields } from './compileFields.ts';
import type { CompilerRuntime } from './compileFields.ts';
import { ExecutionTracer } from './trace.ts';
import { ExecutionSignals } from './executionSignals.ts';
import {
  ABANDONS_NULLED_WORK,
  AWAITED_ERRORS_WAIT_A_MICROTASK,
  CHECKS_EXECUTION_ARGUMENTS,
  HONOURS_ABORT_SIGNAL,
  IS_TYPE_OF_FIRST,
  NOT_A_TYPE_NAME_SUFFIX,
  OUTPUT_COERCION,
  REFUSES_TYPE_OBJECT_FROM_RESOLVE_TYPE,
  abortedExecutionError,
  argumentValues,
  assertUsableSchema,
  incrementalSchemaError,
  coerceVariableValues,
  noVariables,
  valuesOf,
} from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';

export type PromiseOrValue<T> = Promise<T> | T;

/** What the executor reads of an AbortSignal. */
export interface AbortState {
  readonly aborted: boolean;
  readonly reason?: unknown;
}

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

type ResultObject = Record<string, unknown>;
type Container = ResultObject | unknown[];

/**
 * Executes an operation; returns the result synchronously when every resolver was synchronous.
 * Never rejects: request and field errors are reported in the result. Misuse of the API (no
 * document, an invalid schema, variables that are not an object) throws at once, as graphql-js does.
 */
export function execute(args: ExecuteArgs): PromiseOrValue<ExecutionResult> {
  const { schema, document, variableValues } = args;
  if (schema !== lastIncrementalCheck) {
    const refused = incrementalSchemaError(schema);
    if (refused !== null) throw refused;
    lastIncrementalCheck = schema;
  }
  assertValidExecutionArguments(schema, document, variableValues);

  const plan = planOperation(schema, document, args.operationName);
  if (!(plan instanceof OperationPlan)) return { errors: plan };
  return executePlan(plan.forAccess(args.access), args);
}

/** What executing a planned operation reads of execute()'s arguments: the plan has the schema, document and operation. */
export type PlannedExecuteArgs = Omit<ExecuteArgs, 'schema' | 'document' | 'operationName' | 'access'>;

/**
 * execute() for an operation already chosen by planOperation, and planned for the caller's
 * access (which the caller holds on to, as the operation pipeline does for the documents it has
 * validated): no argument checks, no plan lookup.
 */
export function executePlan(plan: OperationPlan, args: PlannedExecuteArgs): PromiseOrValue<ExecutionResult> {
  // CoerceVariableValues (spec 6.1.2); an operation that declares no variables has none, whatever was sent.
  let variables: VariableValues;
  if (plan.declaresVariables) {
    const coerced = coerceVariableValues(plan.schema, plan.operation.variableDefinitions ?? [], args.variableValues ?? {}, {
      maxErrors: args.options?.maxCoercionErrors,
      hideSuggestions: args.hideSuggestions,
    });
    if (coerced.errors !== undefined) return { errors: [...coerced.errors] };
    variables = coerced.variables;
  } else {
    variables = noVariables();
  }
  return new Execution(plan, args, variables).run();
}

/** executePlan with variables already coerced (graphql 17 coerces a subscription's once, for all its events). */
export function executeWithVariables(plan: OperationPlan, args: PlannedExecuteArgs, variables: VariableValues): PromiseOrValue<ExecutionResult> {
  return new Execution(plan, args, variables).run();
}

let lastValidSchema: GraphQLSchema | null = null;
/** The last schema execute() found free of `@defer` and `@stream` (graphql 17 refuses the others). */
let lastIncrementalCheck: GraphQLSchema | null = null;

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
  // A schema, once valid, stays valid (graphql-js keeps the verdict on it): the usual caller
  // passes the same schema every time, so the check is skipped for the last one that passed.
  if (schema !== lastValidSchema) {
    assertUsableSchema(schema, entry);
    assertValidSchema(schema);
    lastValidSchema = schema;
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

/** The state of one request's execution. */
class Execution implements RequestScope, NulledPositions {
  readonly schema: GraphQLSchema;
  readonly fragments: Fragments;
  readonly rootValue: unknown;
  readonly contextValue: unknown;
  readonly operation: OperationDefinitionNode;
  /** The coerced variables, as the installed graphql holds them (`info.variableValues`). */
  readonly variableValues: VariableValues;
  /** The coerced variables by name (what `@skip`/`@include` and cost weights read). */
  readonly variables: Readonly<Record<string, unknown>>;
  private readonly hideSuggestions: boolean;
  /** A user-supplied default resolver; undefined means ours (property, or method call). */
  readonly fieldResolver: GraphQLFieldResolver<unknown, unknown> | undefined;
  readonly typeResolver: GraphQLTypeResolver<unknown, unknown>;
  private readonly plan: OperationPlan;

  /** The response's `data`; becomes null when an error reaches the root. */
  data: ResultObject | null = null;
  readonly errors: GraphQLError[] = [];
  /** Positions already nulled by an error (undefined: the root). Null while there are none. */
  nulled: Set<ResponsePath | undefined> | null = null;
  /** Continuations (awaited promises) not yet settled, and failures waiting for them. */
  readonly work: PendingWork = new PendingWork(this);
  /** Sends this request's queued loads when no resolver can progress without them; null while no loader exists. */
  readonly scheduler: BatchScheduler | null = newScheduler();
  /** The next serial mutation, waiting for the work of the previous one to settle. */
  private resumeSerial: (() => void) | null = null;
  /** Resolves the response promise once nothing is pending. */
  private finish: (() => void) | null = null;
  /** Per request: arguments that read variables, and selections whose directives read them. */
  private argumentsCache: Map<FieldPlan, ArgumentValues | ArgumentsError> | null = null;
  private selectionsCache: Map<SelectionPlan, ReadonlyArray<FieldPlan>> | null = null;

  /** The summed weight of the fields that ran, when measuring (see ExecuteArgs.measureCost). */
  actualCost: number | null;
  readonly signal: AbortState | undefined;
  /** Whether plain leaf fields may take the shortcut in executeFields (no custom default resolver). */
  readonly plainReads: boolean;
  /** The recorder of a traced execution (ExecuteArgs.trace); null, and never touched, otherwise. */
  readonly trace: ExecutionTracer | null;
  private weights: Map<FieldPlan, number> | null = null;
  /** graphql 17's signals for resolvers (`info.getAbortSignal()`), made when first asked for. */
  private signals: ExecutionSignals | null = null;
  /** The caller's abortSignal, when graphql 17 honours it (ExecuteArgs.abortSignal). */
  private readonly abortSignal: AbortSignal | undefined;
  /** Set when the caller's abortSignal aborted this execution. */
  aborted: { readonly reason: unknown } | null = null;
  /** Set once the result is built. */
  private finished = false;
  /** Rejects the response promise when the execution aborts. */
  private reject: ((error: unknown) => void) | null = null;
  private stopListening: (() => void) | undefined = undefined;

  constructor(plan: OperationPlan, args: PlannedExecuteArgs, variableValues: VariableValues) {
    this.plan = plan;
    this.schema = plan.schema;
    this.fragments = plan.fragments;
    this.operation = plan.operation;
    this.rootValue = args.rootValue;
    this.contextValue = args.contextValue;
    this.variableValues = variableValues;
    this.variables = valuesOf(variableValues);
    this.hideSuggestions = args.hideSuggestions ?? false;
    this.fieldResolver = args.fieldResolver ?? undefined;
    this.typeResolver = args.typeResolver ?? defaultTypeResolver;
    this.actualCost = args.measureCost === true ? 0 : null;
    this.signal = args.signal ?? undefined;
    this.plainReads = this.fieldResolver === undefined;
    // Kept to one load and one test here: this constructor is on every execution's path, inlined.
    this.trace = args.trace === true ? startTrace(this.scheduler) : null;
    this.abortSignal = HONOURS_ABORT_SIGNAL ? (args.abortSignal ?? undefined) : undefined;
  }

  /**
   * Whether a value arriving now fails with "Aborted!" instead of being completed: the caller
   * aborted (graphql 17's abortSignal), or, under graphql 17, the result was built without it
   * (it was pending inside a nulled part; graphqlCompat.ts ABANDONS_NULLED_WORK).
   */
  get stopped(): boolean {
    return this.aborted !== null || (ABANDONS_NULLED_WORK && this.finished);
  }

  executionSignals(): ExecutionSignals {
    return (this.signals ??= new ExecutionSignals());
  }

  /** A field's cost weight, worked out once per request. */
  weightOf(field: FieldPlan): number {
    this.weights ??= new Map();
    let weight = this.weights.get(field);
    if (weight === undefined) {
      weight = field.introspects ? 0 : fieldWeight(field.definition, field.fieldNodes[0] as FieldNode, this.variables);
      this.weights.set(field, weight);
    }
    return weight;
  }

  /** ExecuteOperation (spec 6.2): queries in parallel, mutations serially, subscriptions as queries. */
  run(): PromiseOrValue<ExecutionResult> {
    const rootType = this.plan.rootType;
    if (rootType === undefined) {
      const error = new GraphQLError(`Schema is not configured to execute ${this.operation.operation} operation.`, {
        nodes: this.operation,
      });
      return { errors: [error], data: null };
    }
    if (this.abortSignal !== undefined) this.listenForAbort(this.abortSignal);
    let fields: ReadonlyArray<FieldPlan> | undefined;
    try {
      fields = this.fieldsOf(this.plan.root);
    } catch (error) {
      this.failRoot(error as GraphQLError);
    }
    if (fields !== undefined) {
      this.data = newResultObject(this.plan.root);
      if (this.scheduler !== null) runAsTask(this.scheduler, (root) => this.executeRoot(root), fields);
      else this.executeRoot(fields);
    }
    if (this.work.size === 0 && this.resumeSerial === null) {
      const result = this.completed();
      if (this.aborted !== null) throw abortedExecutionError(this.aborted.reason, result);
      return result;
    }
    return new Promise((resolve, reject) => {
      this.finish = () => resolve(this.completed());
      if (this.abortSignal !== undefined) {
        this.reject = reject;
        if (this.aborted !== null) this.rejectAborted(this.aborted.reason);
      }
    });
  }

  /** graphql 17's abortSignal: aborted already, its reason is thrown at once; aborting later rejects the response. */
  private listenForAbort(signal: AbortSignal): void {
    signal.throwIfAborted();
    const onAbort = () => {
      if (this.aborted !== null) return;
      this.aborted = { reason: signal.reason };
      this.signals?.abort(signal.reason);
      this.rejectAborted(signal.reason);
    };
    signal.addEventListener('abort', onAbort);
    this.stopListening = () => signal.removeEventListener('abort', onAbort);
  }

  /**
   * The response promise rejects now with AbortedGraphQLExecutionError, whose `abortedResult` is
   * the result as it will stand once what is pending has settled (each value arriving from now
   * on fails with "Aborted!").
   */
  private rejectAborted(reason: unknown): void {
    const reject = this.reject;
    if (reject === null) return;
    this.reject = null;
    const abortedResult = new Promise<ExecutionResult>((resolve) => {
      this.finish = () => resolve(this.completed());
    });
    reject(abortedExecutionError(reason, abortedResult));
  }

  /** The result, once nothing is pending: the abort listener goes, and the resolvers' signal aborts (graphql 17). */
  private completed(): ExecutionResult {
    this.stopListening?.();
    this.finished = true;
    const result = this.result();
    this.signals?.finish();
    return result;
  }

  private executeRoot(fields: ReadonlyArray<FieldPlan>): void {
    if (this.operation.operation === 'mutation') {
      this.executeSerially(fields, 0);
    } else {
      try {
        const data = executeFields(this, fields, this.rootValue, this.data as ResultObject, undefined);
        if (data instanceof Promise) this.awaitRootFailure(data);
      } catch (error) {
        this.failRoot(error as GraphQLError);
      }
    }
  }

  /**
   * ExecuteFieldsSerially (spec 6.2.2): each root mutation field, with everything below it, is
   * complete before the next one starts. A field that leaves work pending pauses the loop; the
   * loop resumes when that work has settled.
   */
  private executeSerially(fields: ReadonlyArray<FieldPlan>, from: number): void {
    for (let i = from; i < fields.length && this.data !== null; i++) {
      if (this.aborted !== null) {
        this.failRoot(new GraphQLError('Aborted!'));
        return;
      }
      try {
        executeField(this, fields[i] as FieldPlan, this.rootValue, this.data, undefined, NOT_READ);
      } catch (error) {
        this.failRoot(error as GraphQLError);
        return;
      }
      if (this.work.size > 0) {
        this.resumeSerial = () => this.executeSerially(fields, i + 1);
        return;
      }
    }
  }

  private result(): ExecutionResult {
    const result: ExecutionResult = this.errors.length === 0 ? { data: this.data } : { errors: this.errors, data: this.data };
    if (this.actualCost !== null) result.extensions = { cost: { actual: this.actualCost } };
    if (this.trace !== null) this.addTrace(result);
    return result;
  }

  private addTrace(result: ExecutionResult): void {
    (result.extensions ??= {})['trace'] = (this.trace as ExecutionTracer).finish(this.plan, this);
  }

  /** Every continuation has settled: resume the serial mutations, or finish. */
  private idle(): void {
    const resume = this.resumeSerial;
    if (resume !== null) {
      this.resumeSerial = null;
      resume();
      if (this.work.size > 0 || this.resumeSerial !== null) return;
    }
    const finish = this.finish;
    if (finish !== null) {
      this.finish = null;
      finish();
    }
  }

  /** The field list of a selection plan for this request's variables. */
  fieldsOf(selections: SelectionPlan): ReadonlyArray<FieldPlan> {
    if (selections.fields !== undefined) return selections.fields;
    this.selectionsCache ??= new Map();
    let fields = this.selectionsCache.get(selections);
    if (fields === undefined) {
      fields = selections.fieldsForVariables(this.variableValues);
      this.selectionsCache.set(selections, fields);
    }
    return fields;
  }

  /**
   * CoerceArgumentValues (spec 6.4.1): once per field plan and request, and a fresh object per
   * call; or on every call, when literals build values of their own (FieldPlan.argumentsPerCall).
   */
  argumentsOf(field: FieldPlan): ArgumentValues {
    if (field.argumentsPerCall) return this.coerceArguments(field);
    let values: ArgumentValues | undefined = field.staticArguments;
    if (values === undefined) {
      if (!field.argumentsReadVariables) {
        if (field.argumentsError !== undefined) throw field.argumentsError;
        return new NoArguments();
      }
      this.argumentsCache ??= new Map();
      let cached = this.argumentsCache.get(field);
      if (cached === undefined) {
        try {
          cached = this.coerceArguments(field);
        } catch (error) {
          cached = new ArgumentsError(error);
        }
        this.argumentsCache.set(field, cached);
      }
      if (cached instanceof ArgumentsError) throw cached.error;
      values = cached;
    }
    const copy: ArgumentValues = new NoArguments();
    for (const name in values) copy[name] = values[name];
    return copy;
  }

  private coerceArguments(field: FieldPlan): ArgumentValues {
    return argumentValues(field.definition, field.fieldNodes[0] as FieldNode, this.variableValues, this.hideSuggestions);
  }

  /**
   * Adds a field error, unless its position or an ancestor was already nulled by an earlier
   * error (then the error belongs to a part of the response that no longer exists). Returns
   * whether it was added; the position counts as nulled from now on.
   */
  recordError(error: GraphQLError, position: ResponsePath | undefined): boolean {
    let inNulledPart = false;
    if (this.nulled === null) {
      this.nulled = new Set();
    } else {
      for (let node = position; node !== undefined && !inNulledPart; node = node.prev) {
        inNulledPart = this.nulled.has(node);
      }
      inNulledPart ||= this.nulled.has(undefined);
    }
    this.nulled.add(position);
    if (!inNulledPart) this.errors.push(error);
    return !inNulledPart;
  }

  /** A field error was handled at a nullable position: store null there; nothing beneath it is waited for. */
  nullField(error: GraphQLError, position: ResponsePath): void {
    this.recordError(error, position);
    this.cutOff(position);
  }

  /** An error reached the root: `data` is null. */
  failRoot(error: GraphQLError): void {
    if (this.recordError(error, undefined)) this.data = null;
    if (ABANDONS_NULLED_WORK) this.work.abandon(undefined);
  }

  /**
   * What is pending beneath a nulled position holds up no failure above it (graphql 16), or is
   * not waited for at all (graphql 17; graphqlCompat.ts).
   */
  private cutOff(position: ResponsePath): void {
    if (ABANDONS_NULLED_WORK) this.work.abandon(position);
    else this.work.detach(position);
  }

  /**
   * Awaits a promised value for one response position, then completes it (unless `plan` is
   * null: the promise already yields a completed value) and stores it in place.
   */
  await(
    promise: PromiseLike<unknown>,
    field: FieldPlan,
    plan: ValuePlan | null,
    container: Container,
    key: string | number,
    path: ResponsePath,
  ): void {
    // Registered before `then` is called: a thenable may call back at once, synchronously.
    const continuation: Continuation = this.work.add(path);
    const task = this.scheduler !== null ? currentTask() : undefined;
    task?.scheduler.valuePending(task, 1);
    // A hand-made thenable may call back more than once, or both ways: only the first counts.
    // (The callbacks are written inline: named closures made per call cost more under tsx,
    // which wraps each one to keep its name.)
    let settled = false;
    try {
      promise.then(
        (resolved) => {
          if (settled) return;
          settled = true;
          if (this.trace !== null) this.trace.settled(promise);
          if (this.stopped) {
            // Not completed, so the promises among a list's items are never awaited: their
            // rejections must not go unhandled.
            if (isPlainArray(resolved)) for (const item of resolved) if (isPromiseLike(item)) item.then(undefined, ignore);
            this.failAwaited(new Error('Aborted!'), field, container, key, path, task, continuation);
            return;
          }
          try {
            if (plan === null) {
              this.store(container, key, path, resolved);
            } else {
              const completed = completeValue(this, field, plan, resolved, path);
              if (completed instanceof Promise) this.await(completed, field, null, container, key, path);
              else this.store(container, key, path, completed);
            }
          } catch (error) {
            this.failAwaited(error, field, container, key, path, task, continuation);
            return;
          }
          task?.scheduler.valuePending(task, -1);
          this.settle(continuation);
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          if (this.trace !== null) this.trace.settled(promise);
          this.failAwaited(error, field, container, key, path, task, continuation);
        },
      );
    } catch (error) {
      // `then` itself threw: a field error for the caller to handle, as in graphql-js, and
      // nothing is pending any more (unless it called back first: then that answer stands).
      if (settled) return;
      settled = true;
      if (this.trace !== null) this.trace.settled(promise);
      task?.scheduler.valuePending(task, -1);
      this.work.done(continuation);
      throw error;
    }
  }

  /**
   * A value awaited in place failed (rejected, or could not be completed). graphql 16 records it
   * one microtask later: there a field's promise goes through two `then`s (complete the value,
   * then handle its error), so such errors come after the synchronous errors of objects that
   * resolved in the same turn. graphql 17 awaits the value and handles the error in the same
   * step, so it records it at once (graphqlCompat.ts). Drop-in users diff error lists.
   */
  private failAwaited(
    error: unknown,
    field: FieldPlan,
    container: Container,
    key: string | number,
    path: ResponsePath,
    task: ReturnType<typeof currentTask> | undefined,
    continuation: Continuation,
  ): void {
    const fail = () => {
      this.failAsync(error, field, container, key, path);
      task?.scheduler.valuePending(task, -1);
      this.settle(continuation);
    };
    if (AWAITED_ERRORS_WAIT_A_MICROTASK) queueMicrotask(fail);
    else fail();
  }

  /** The root selection set failed, but only once what is pending beneath it has settled. */
  private awaitRootFailure(promise: PromiseLike<unknown>): void {
    let continuation: Continuation;
    promise.then(undefined, (error: unknown) => {
      this.failRoot(error as GraphQLError);
      this.settle(continuation);
    });
    continuation = this.work.add(undefined);
  }

  private settle(continuation: Continuation): void {
    this.work.done(continuation);
    if (this.work.size === 0) this.idle();
  }

  /** Stores an awaited value, unless an error nulled the position while it was pending. */
  private store(container: Container, key: string | number, path: ResponsePath, value: unknown): void {
    if (this.nulled !== null && this.nulled.has(path)) return;
    (container as Record<string | number, unknown>)[key] = value;
  }

  /**
   * A field error surfaced in a continuation: null the position if it is nullable, else the
   * nearest nullable ancestor, found by walking up the path (the stack that built it is gone).
   */
  private failAsync(raw: unknown, field: FieldPlan, container: Container, key: string | number, path: ResponsePath): void {
    const error = locatedError(raw, field.fieldNodes, pathToArray(path));
    if (path.nullable) {
      this.nullField(error, path);
      (container as Record<string | number, unknown>)[key] = null;
      return;
    }
    // Rise through Non-Null positions. An object on the way whose own failure is waiting
    // (see pendingWork.ts) takes the error as its first rejection, and the rise ends there.
    let position: ResponsePath = path;
    for (;;) {
      const parent = position.prev;
      if (this.work.stopsAt(parent)) return;
      if (parent === undefined) {
        this.failRoot(error);
        return;
      }
      if (parent.nullable) {
        if (this.recordError(error, parent)) this.nullAt(parent);
        this.cutOff(parent);
        return;
      }
      position = parent;
    }
  }

  /** Sets the value at an earlier position to null, following its path down from `data`. */
  private nullAt(position: ResponsePath): void {
    const keys = pathToArray(position);
    let container: unknown = this.data;
    for (let i = 0; i < keys.length - 1; i++) {
      if (container === null || typeof container !== 'object') return;
      container = (container as Record<string | number, unknown>)[keys[i] as string | number];
    }
    if (container !== null && typeof container === 'object') {
      (container as Record<string | number, unknown>)[keys[keys.length - 1] as string | number] = null;
    }
  }
}

/**
 * Arguments objects inherit nothing, as graphql-js's do (`'toString' in args` is false), but
 * are made by a constructor: `Object.create(null)` makes slow dictionary-mode objects.
 */
const NoArguments = function NoArguments() {} as unknown as new () => ArgumentValues;
NoArguments.prototype = Object.create(null);

/** A property read that threw, carried to resolveField so that it fails there as a field error. */
class FailedRead {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

const ignore = () => undefined;

/** Marks that resolveField must read the property itself. */
const NOT_READ = Symbol('not read');

/** What generated code (compileFields.ts) calls back into. */
const COMPILER_RUNTIME: CompilerRuntime<Execution> = {
  general: executeField as CompilerRuntime<Execution>['general'],
  notRead: NOT_READ,
  failedRead: (error) => new FailedRead(error),
  notPlain: NOT_PLAIN,
};

/** A coercion failure of arguments that read variables, kept so every call of the field reports it. */
class ArgumentsError {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/**
 * A result object already holding every response name, in order: cloning one fixed shape is
 * cheaper than growing each object property by property, and fixes the key order up front.
 */
function newResultObject(selections: SelectionPlan): ResultObject {
  return selections.nullPrototype ? Object.create(null) : { ...selections.template };
}

/**
 * An object's sub-selection: a new result object with every field executed. Once a selection
 * plan has completed COMPILE_AFTER objects, its generated code runs instead of the loop below
 * (compileFields.ts), for the same result; a Non-Null failure is handled here as it is there.
 */
function executeSelection(
  exec: Execution,
  selections: SelectionPlan,
  fields: ReadonlyArray<FieldPlan>,
  source: unknown,
  path: ResponsePath | undefined,
): PromiseOrValue<ResultObject> {
  if (fields === selections.fields && exec.plainReads && typeof source === 'object' && source !== null) {
    let compiled = selections.compiled;
    if (compiled === undefined && ++selections.uses >= COMPILE_AFTER) {
      compiled = selections.compiled = compileFields(fields, COMPILER_RUNTIME);
    }
    if (compiled) {
      const since = exec.work.mark();
      try {
        return compiled(exec as never, source, path);
      } catch (error) {
        return failObject(exec, path, since, error);
      }
    }
  }
  return executeFields(exec, fields, source, newResultObject(selections), path);
}

/**
 * ExecuteSelectionSet's loop (spec 6.3): one field after another, into one result object.
 * A Non-Null failure abandons the object; if fields that ran before it are still pending, the
 * failure waits for them (as graphql-js's does) and comes back as a promise that rejects.
 */
function executeFields(
  exec: Execution,
  fields: ReadonlyArray<FieldPlan>,
  source: unknown,
  result: ResultObject,
  path: ResponsePath | undefined,
): PromiseOrValue<ResultObject> {
  const since = exec.work.mark();
  // The shortcut below skips what a plain property read of the right type never needs: a
  // resolver call, completion, serialization. (An abort stops resolvers, not property reads.)
  const shortcut = exec.plainReads && typeof source === 'object' && source !== null;
  try {
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i] as FieldPlan;
      const plainRead = field.plainRead;
      if (shortcut && plainRead !== null) {
        let value: unknown;
        try {
          value = (source as Record<string, unknown>)[field.fieldName];
        } catch (error) {
          // A getter threw: a field error, raised where the default resolver would raise it.
          value = new FailedRead(error);
        }
        const completed = plainRead.completed(value);
        if (completed !== NOT_PLAIN) {
          result[field.responseName] = completed;
          if (exec.actualCost !== null) exec.actualCost += field.plainReadWeight;
        } else {
          // The general way, with the value already read: a getter runs once, as in graphql-js.
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

/**
 * ExecuteField (spec 6.4). While loaders exist, a field with a resolver runs as its own task of
 * the batch scheduler, so that the loads it awaits are known (see batching/scheduler.ts).
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
    refuseField(exec, field, result, parentPath, field.denial);
    return;
  }
  if (exec.signal !== undefined && exec.signal.aborted) {
    const reason = exec.signal.reason;
    refuseField(exec, field, result, parentPath, reason instanceof Error ? reason : new Error('The request was aborted.'));
    return;
  }
  if (exec.actualCost !== null) exec.actualCost += exec.weightOf(field);
  if (exec.scheduler !== null && (field.resolve !== undefined || exec.fieldResolver !== undefined)) {
    runAsTask(exec.scheduler, resolveField, exec, field, source, result, parentPath, NOT_READ);
  } else {
    resolveField(exec, field, source, result, parentPath, alreadyRead);
  }
}

/**
 * Resolve, then complete, then store under the response name. A field error at a nullable
 * position is recorded and stored as null; at a Non-Null position it is thrown, which abandons
 * the parent object (its remaining fields do not run, as in graphql-js).
 */
function resolveField(
  exec: Execution,
  field: FieldPlan,
  source: unknown,
  result: ResultObject,
  parentPath: ResponsePath | undefined,
  alreadyRead: unknown,
): void {
  const name = field.responseName;
  if (field.isTypename) {
    result[name] = field.parentType.name;
    return;
  }
  const plan = field.value;
  let path = plan.needsPath ? fieldPath(field, parentPath) : undefined;
  try {
    let value: unknown;
    const resolve = field.resolve ?? exec.fieldResolver;
    if (resolve !== undefined) {
      if (exec.trace === null) {
        value = resolve(source, exec.argumentsOf(field), exec.contextValue, resolveInfo(exec, field, (path ??= fieldPath(field, parentPath))));
      } else {
        value = resolveTraced(exec, exec.trace, field, resolve, source, (path ??= fieldPath(field, parentPath)));
      }
    } else {
      // The default resolver, inlined: a property of the parent, or a method called with
      // (args, context, info). Arguments are coerced even if unused, so their errors surface.
      const args = field.hasArguments ? exec.argumentsOf(field) : undefined;
      if ((typeof source === 'object' && source !== null) || typeof source === 'function') {
        value = alreadyRead !== NOT_READ ? alreadyRead : (source as Record<string, unknown>)[field.fieldName];
        if (value instanceof FailedRead) throw value.error;
        if (typeof value === 'function') {
          value = (source as Record<string, (...a: unknown[]) => unknown>)[field.fieldName]!(
            args ?? Object.create(null),
            exec.contextValue,
            resolveInfo(exec, field, (path ??= fieldPath(field, parentPath))),
          );
        }
      }
    }
    if (isPromiseLike(value)) {
      result[name] = null;
      exec.await(value, field, plan, result, name, (path ??= fieldPath(field, parentPath)));
      return;
    }
    const completed = completeValue(exec, field, plan, value, path);
    if (completed instanceof Promise) {
      result[name] = null;
      exec.await(completed, field, null, result, name, (path ??= fieldPath(field, parentPath)));
      return;
    }
    result[name] = completed;
  } catch (raw) {
    path ??= fieldPath(field, parentPath);
    const error = locatedError(raw, field.fieldNodes, pathToArray(path));
    if (!plan.nullable) throw error;
    exec.nullField(error, path);
    result[name] = null;
  }
}

/** The recorder of a traced execution, told of the batches its scheduler sends too. */
function startTrace(scheduler: BatchScheduler | null): ExecutionTracer {
  const trace = new ExecutionTracer();
  if (scheduler !== null) scheduler.observer = trace;
  return trace;
}

/**
 * A resolver call of a traced execution, recorded from just before the call (arguments and
 * `info` made) until it returns; trace.ts follows a returned promise until it settles.
 */
function resolveTraced(
  exec: Execution,
  trace: ExecutionTracer,
  field: FieldPlan,
  resolve: GraphQLFieldResolver<unknown, unknown>,
  source: unknown,
  path: ResponsePath,
): unknown {
  const args = exec.argumentsOf(field);
  const info = resolveInfo(exec, field, path);
  const index = trace.resolverCalled(field, path, exec.scheduler !== null ? currentTask() : undefined);
  let value: unknown;
  try {
    value = resolve(source, args, exec.contextValue, info);
  } catch (error) {
    trace.resolverReturned(index, undefined);
    throw error;
  }
  trace.resolverReturned(index, value);
  return value;
}

/**
 * The field may not run (the caller is denied it, or the request was aborted): its resolver is
 * not called, and it fails with `reason` as a field error would.
 */
function refuseField(exec: Execution, field: FieldPlan, result: ResultObject, parentPath: ResponsePath | undefined, reason: Error): void {
  const path = fieldPath(field, parentPath);
  const error = locatedError(reason, field.fieldNodes, pathToArray(path));
  if (!field.value.nullable) throw error;
  exec.nullField(error, path);
  result[field.responseName] = null;
}

/**
 * CompleteValue (spec 6.4.3). Returns the completed value, or a native Promise of it when
 * completing needs to wait (an asynchronous `isTypeOf` or `resolveType`, a pending child);
 * throws a field error.
 */
function completeValue(
  exec: Execution,
  field: FieldPlan,
  plan: ValuePlan,
  value: unknown,
  path: ResponsePath | undefined,
): unknown {
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
  }
}

/** Lists: any iterable; each item completed at its own position (its index). */
function completeListValue(exec: Execution, field: FieldPlan, plan: ListPlan, value: unknown, path: ResponsePath): unknown[] {
  const item = plan.item;
  const completed: unknown[] = [];
  // A plain array (the usual list) is read by index; it is iterable, so the check below holds.
  if (isPlainArray(value)) {
    for (let index = 0; index < value.length; index++) {
      completeListItem(exec, field, item, value[index], completed, index, path);
    }
  } else {
    if (typeof value !== 'object' || typeof (value as Iterable<unknown>)[Symbol.iterator] !== 'function') {
      throw new GraphQLError(
        `Expected Iterable, but did not find one for field "${field.parentType.name}.${field.fieldName}".`,
      );
    }
    let index = 0;
    for (const entry of value as Iterable<unknown>) {
      completeListItem(exec, field, item, entry, completed, index++, path);
    }
  }
  return completed;
}

function completeListItem(
  exec: Execution,
  field: FieldPlan,
  item: ValuePlan,
  value: unknown,
  completed: unknown[],
  index: number,
  listPath: ResponsePath,
): void {
  let path = item.needsPath ? itemPath(listPath, index, item) : undefined;
  try {
    if (isPromiseLike(value)) {
      completed.push(null);
      exec.await(value, field, item, completed, index, (path ??= itemPath(listPath, index, item)));
      return;
    }
    const itemValue = completeValue(exec, field, item, value, path);
    if (itemValue instanceof Promise) {
      completed.push(null);
      exec.await(itemValue, field, null, completed, index, (path ??= itemPath(listPath, index, item)));
      return;
    }
    completed.push(itemValue);
  } catch (raw) {
    path ??= itemPath(listPath, index, item);
    const error = locatedError(raw, field.fieldNodes, pathToArray(path));
    if (!item.nullable) throw error;
    exec.nullField(error, path);
    completed[index] = null;
  }
}

/**
 * Objects: check `isTypeOf` if the type has one (it may be asynchronous), then execute the
 * sub-selection. graphql 16 chooses the field list before asking `isTypeOf`, so the errors of
 * choosing it (a `@skip` whose variable is null) come first; graphql 17 asks `isTypeOf` first
 * (graphqlCompat.ts).
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
        return executeSelection(exec, selections, fields ?? exec.fieldsOf(selections), value, path);
      });
    }
    if (!isTypeOf) throw invalidReturnTypeError(type, value, field);
  }
  fields ??= exec.fieldsOf(selections);
  return executeSelection(exec, selections, fields, value, path);
}

function invalidReturnTypeError(type: GraphQLObjectType, value: unknown, field: FieldPlan): GraphQLError {
  return new GraphQLError(`Expected value of type "${type.name}" but got: ${inspect(value)}.`, { nodes: field.fieldNodes });
}

/** Interfaces and unions: find the runtime object type (ResolveAbstractType), then complete as it. */
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
