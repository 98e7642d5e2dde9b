/**
 * The state of one request's execution, and the bookkeeping on it: what execute.ts's algorithm
 * reads (the request's values, its variables, arguments and field lists per request) and writes
 * (the response's `data` and `errors`, the positions errors have nulled, the work still pending),
 * and how the response is handed back once nothing is pending. The algorithm itself (ExecuteOperation,
 * ExecuteSelectionSet, ExecuteField, CompleteValue, HandleFieldError) is in execute.ts; nothing
 * here resolves or completes a value.
 */
import { GraphQLError, defaultFieldResolver } from 'graphql';
import type { ExecutionResult, FieldNode, GraphQLFieldResolver, GraphQLSchema, GraphQLTypeResolver, OperationDefinitionNode } from 'graphql';
import type { PromiseOrValue } from '../jsutils/promiseOrValue.ts';
import { fieldWeight } from '../analysis/analyze.ts';
import { BatchScheduler } from '../batching/scheduler.ts';
import { holdsBatchLoader } from '../batching/batchLoader.ts';
import type { Fragments } from '../language/collectFields.ts';
import { ABANDONS_NULLED_WORK, HONOURS_ABORT_SIGNAL, abortedExecutionError, argumentValues, valuesOf } from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';
import { ExecutionSignals } from './executionSignals.ts';
import { pathToArray } from './path.ts';
import type { ResponsePath } from './path.ts';
import { PendingWork } from './pendingWork.ts';
import type { Continuation, NulledPositions } from './pendingWork.ts';
import type { ArgumentValues, FieldPlan, OperationPlan, SelectionPlan, StreamPlan } from './plan.ts';
import type { RequestScope } from './resolveInfo.ts';
import { ExecutionTracer } from './trace.ts';
import { fastClass } from '../jsutils/fastClass.ts';

/** What the executor reads of an AbortSignal. */
export interface AbortState {
  readonly aborted: boolean;
  readonly reason?: unknown;
}

/** What one execution reads of execute()'s arguments (see ExecuteArgs in execute.ts). */
export interface ExecutionOptions {
  rootValue?: unknown;
  contextValue?: unknown;
  fieldResolver?: GraphQLFieldResolver<unknown, unknown> | null;
  typeResolver?: GraphQLTypeResolver<unknown, unknown> | null;
  hideSuggestions?: boolean | null;
  measureCost?: boolean;
  signal?: AbortState;
  trace?: boolean;
  abortSignal?: AbortSignal | null;
}

export type ResultObject = Record<string, unknown>;
export type Container = ResultObject | unknown[];

/** What an IncrementalHooks method returns when the executor should go on as it would without it. */
export const NOT_HANDLED: unique symbol = Symbol('not handled');

/**
 * Where incremental delivery (`@defer`, `@stream`) takes over from the executor: set only on the
 * executions of operations that use it (execution/incremental/, and execute()'s refusal under
 * graphql 17: refuseIncremental.ts), so every other execution only ever finds null here, and
 * only on paths that run once per object (never per field).
 */
export interface IncrementalHooks {
  /** ExecuteSelectionSet of an object (the value of `field`) whose fields may be deferred. */
  executeSelectionSet(
    exec: Execution,
    field: FieldPlan,
    selections: SelectionPlan,
    source: unknown,
    path: ResponsePath | undefined,
  ): PromiseOrValue<ResultObject> | typeof NOT_HANDLED;
  /** CompleteValue of a list field written with `@stream` (NOT_HANDLED: complete it as a list). */
  completeStreamedList(exec: Execution, field: FieldPlan, plan: StreamPlan, value: unknown, path: ResponsePath): unknown;
}

/** The state of one request's execution. */
export class Execution implements RequestScope, NulledPositions {
  readonly plan: OperationPlan;
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
  /** A user-supplied default resolver; undefined means ours (execute.ts `resolveByDefault`). */
  readonly fieldResolver: GraphQLFieldResolver<unknown, unknown> | undefined;
  readonly typeResolver: GraphQLTypeResolver<unknown, unknown>;

  /** The response's `data`; becomes null when an error reaches the root. */
  data: ResultObject | null = null;
  readonly errors: GraphQLError[] = [];
  /** Positions already nulled by an error (undefined: the root). Null while there are none. */
  nulled: Set<ResponsePath | undefined> | null = null;
  /** Continuations (awaited promises) not yet settled, and failures waiting for them. */
  readonly work: PendingWork = new PendingWork(this);
  /**
   * Sends this request's queued loads when no resolver can progress without them (batching/
   * scheduler.ts). Null when the context value holds no BatchLoader (batchLoader.ts
   * holdsBatchLoader): then there is nothing to schedule, and no resolver call pays for tracking.
   */
  readonly scheduler: BatchScheduler | null;
  /** The next serial mutation, waiting for the work of the previous one to settle. */
  resumeSerial: (() => void) | null = null;
  /**
   * Incremental delivery's hooks; null for every execution of an operation without @defer/@stream.
   * (Null and rootPath's undefined are the prototype's, so that other executions pay no store.)
   */
  declare incremental: IncrementalHooks | null;
  /**
   * The position this execution's `data` stands at: undefined for a request's execution; a
   * deferred fragment's or a streamed item's position for the executions incremental delivery
   * runs beside it (execution/incremental/), where an error rising to it fails that part.
   */
  declare rootPath: ResponsePath | undefined;
  /** Resolves the response promise once nothing is pending. */
  private finish: (() => void) | null = null;
  /** Per request: arguments that read variables, and selections whose directives read them. */
  private argumentsCache: Map<FieldPlan, ArgumentValues | ArgumentsError> | null = null;
  private selectionsCache: Map<SelectionPlan, ReadonlyArray<FieldPlan>> | null = null;

  /** The summed weight of the fields that ran, when measuring (see ExecuteArgs.measureCost). */
  actualCost: number | null;
  readonly signal: AbortState | undefined;
  /** Whether plain reads may be taken (plainReads.ts): no custom default resolver. */
  readonly plainReads: boolean;
  /** The recorder of a traced execution (ExecuteArgs.trace); null, and never touched, otherwise. */
  readonly trace: ExecutionTracer | null;
  /**
   * Whether this execution publishes its resolver calls on graphql:resolve (resolverChannel.ts):
   * decided once, at its start, by whether anybody listened then. Such an execution takes no
   * plain-read fast path, so that every field is one published call.
   */
  readonly publishesResolvers: boolean;
  /** Whether resolver calls are traced or published: the one test a resolver call pays for both (execute.ts resolveObserved). */
  observesResolvers: boolean;
  /**
   * The resolver of fields without their own: the caller's `fieldResolver`; or, in an execution
   * that publishes its resolvers, graphql's default resolver, so that those fields are resolver
   * calls too; undefined: ours (execute.ts `resolveByDefault`).
   */
  readonly fallbackResolver: GraphQLFieldResolver<unknown, unknown> | undefined;
  private weights: Map<FieldPlan, number> | null = null;
  /** graphql 17's signals for resolvers (`info.getAbortSignal()`), made when first asked for. */
  private signals: ExecutionSignals | null = null;
  /** The caller's abortSignal, when graphql 17 honours it (ExecuteArgs.abortSignal). */
  readonly abortSignal: AbortSignal | undefined;
  /** Set when the caller's abortSignal aborted this execution. */
  aborted: { readonly reason: unknown } | null = null;
  /** Set once the result is built. */
  private finished = false;
  /** Rejects the response promise when the execution aborts. */
  private reject: ((error: unknown) => void) | null = null;
  private stopListening: (() => void) | undefined = undefined;

  /**
   * `typeResolver`: the caller's, or the default (execute.ts `defaultTypeResolver`).
   * `publishesResolvers`: whether graphql:resolve had a subscriber as the execution started.
   */
  constructor(
    plan: OperationPlan,
    args: ExecutionOptions,
    variableValues: VariableValues,
    typeResolver: GraphQLTypeResolver<unknown, unknown>,
    publishesResolvers: boolean,
  ) {
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
    this.typeResolver = typeResolver;
    this.actualCost = args.measureCost === true ? 0 : null;
    this.signal = args.signal ?? undefined;
    this.publishesResolvers = publishesResolvers;
    this.plainReads = this.fieldResolver === undefined && !this.publishesResolvers;
    this.fallbackResolver = this.publishesResolvers ? (this.fieldResolver ?? defaultFieldResolver) : this.fieldResolver;
    this.scheduler = holdsBatchLoader(args.contextValue) ? new BatchScheduler() : null;
    // Kept to one load and one test here: this constructor is on every execution's path, inlined.
    this.trace = args.trace === true ? startTrace(this.scheduler) : null;
    this.observesResolvers = this.trace !== null || this.publishesResolvers;
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

  /** The field list of a selection plan for this request's variables. */
  fieldsOf(selections: SelectionPlan): ReadonlyArray<FieldPlan> {
    return selections.fields ?? this.fieldsChosenBy(selections);
  }

  /** The field list of a selection plan whose directives read variables, chosen once per request. */
  private fieldsChosenBy(selections: SelectionPlan): ReadonlyArray<FieldPlan> {
    this.selectionsCache ??= new Map();
    let fields = this.selectionsCache.get(selections);
    if (fields === undefined) {
      fields = selections.fieldsForVariables(this.variableValues);
      this.selectionsCache.set(selections, fields);
    }
    return fields;
  }

  /**
   * CoerceArgumentValues (GraphQL spec, "Coercing Field Arguments"): once per field plan and
   * request, and a fresh object per call; or on every call, when literals build values of their
   * own (FieldPlan.argumentsPerCall).
   */
  argumentsOf(field: FieldPlan): ArgumentValues {
    // The common case in a method small enough that V8 inlines it wherever it is called, however
    // much its caller has inlined already (docs/benchmarks.md, on V8's inlining budget); the
    // others in their own. fieldsOf and completed are split the same way.
    return field.hasArguments ? this.argumentValuesOf(field) : new NoArguments();
  }

  /** argumentsOf a field that has arguments, or is given some. */
  private argumentValuesOf(field: FieldPlan): ArgumentValues {
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

  /** A field error stopped at a nullable position: record it; nothing beneath it is waited for. */
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
  cutOff(position: ResponsePath): void {
    if (ABANDONS_NULLED_WORK) this.work.abandon(position);
    else this.work.detach(position);
  }

  /** Stores an awaited value, unless an error nulled the position while it was pending. */
  store(container: Container, key: string | number, path: ResponsePath, value: unknown): void {
    if (this.nulled !== null && this.nulled.has(path)) return;
    (container as Record<string | number, unknown>)[key] = value;
  }

  /** Sets the value at an earlier position to null, following its path down from `data` (which stands at rootPath). */
  nullAt(position: ResponsePath): void {
    const keys = pathToArray(position);
    let container: unknown = this.data;
    for (let i = pathToArray(this.rootPath).length; i < keys.length - 1; i++) {
      if (container === null || typeof container !== 'object') return;
      container = (container as Record<string | number, unknown>)[keys[i] as string | number];
    }
    if (container !== null && typeof container === 'object') {
      (container as Record<string | number, unknown>)[keys[keys.length - 1] as string | number] = null;
    }
  }

  /** A continuation settled: once none is pending, resume the serial mutations, or finish. */
  settle(continuation: Continuation): void {
    this.work.done(continuation);
    if (this.work.size === 0) this.idle();
  }

  /** The root selection set failed, but only once what is pending beneath it has settled. */
  awaitRootFailure(promise: PromiseLike<unknown>): void {
    let continuation: Continuation;
    promise.then(undefined, (error: unknown) => {
      this.failRoot(error as GraphQLError);
      this.settle(continuation);
    });
    continuation = this.work.add(undefined);
  }

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

  /**
   * The response, once the root fields have started: the result at once when nothing is pending,
   * else a promise of it that resolves when the last continuation settles.
   */
  response(): PromiseOrValue<ExecutionResult> {
    if (this.work.size === 0 && this.resumeSerial === null) {
      const result = this.completed();
      if (this.aborted !== null) throw abortedExecutionError(this.aborted.reason, result);
      return result;
    }
    return new Promise((resolve, reject) => {
      this.finish = () => resolve(this.completed());
      if (this.abortSignal !== undefined || this.incremental !== null) {
        this.reject = reject;
        if (this.aborted !== null) this.rejectAborted(this.aborted.reason);
      }
    });
  }

  /** graphql 17's abortSignal: aborted already, its reason is thrown at once; aborting later rejects the response. */
  listenForAbort(signal: AbortSignal): void {
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
   * Aborts this execution from within (graphql 17's `execute` meeting `@defer`: refuseIncremental.ts),
   * as an abort of its abortSignal would: later values fail with "Aborted!", and the response
   * rejects (or throws) with AbortedGraphQLExecutionError.
   */
  abortWith(reason: unknown): void {
    if (this.aborted !== null) return;
    this.aborted = { reason };
    this.signals?.abort(reason);
    this.rejectAborted(reason);
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
  protected completed(): ExecutionResult {
    this.finished = true;
    return this.stopListening === undefined && this.signals === null ? this.result() : this.completedListened();
  }

  /** completed() of an execution that listens to its caller's abortSignal or made its resolvers' signals. */
  private completedListened(): ExecutionResult {
    this.stopListening?.();
    const result = this.result();
    this.signals?.finish();
    return result;
  }

  /** The response of this execution (incremental delivery's executions make theirs differently). */
  protected result(): ExecutionResult {
    const result: ExecutionResult = this.errors.length === 0 ? { data: this.data } : { errors: this.errors, data: this.data };
    if (this.actualCost !== null) result.extensions = { cost: { actual: this.actualCost } };
    if (this.trace !== null) this.addTrace(result);
    return result;
  }

  private addTrace(result: ExecutionResult): void {
    (result.extensions ??= {})['trace'] = (this.trace as ExecutionTracer).finish(this.plan, this);
  }
}
fastClass(Execution);

(Execution.prototype as { incremental: IncrementalHooks | null }).incremental = null;
(Execution.prototype as { rootPath: ResponsePath | undefined }).rootPath = undefined;

/** The recorder of a traced execution, told of the batches its scheduler sends too. */
function startTrace(scheduler: BatchScheduler | null): ExecutionTracer {
  const trace = new ExecutionTracer();
  if (scheduler !== null) scheduler.observer = trace;
  return trace;
}

/**
 * Arguments objects inherit nothing, as graphql-js's do (`'toString' in args` is false), but
 * are made by a constructor: `Object.create(null)` makes slow dictionary-mode objects.
 */
const NoArguments = function NoArguments() {} as unknown as new () => ArgumentValues;
NoArguments.prototype = Object.create(null);

/** A coercion failure of arguments that read variables, kept so every call of the field reports it. */
class ArgumentsError {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}
fastClass(ArgumentsError);
