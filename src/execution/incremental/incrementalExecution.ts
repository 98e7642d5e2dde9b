/**
 * The executions of one incremental request.
 *
 * An operation that defers or streams is answered in parts, and each part is executed by an
 * execution of its own (an `IncrementalExecution`, the request's `Execution` of execution.ts
 * with three more things: the defer usages it serves, where its part stands, and the work it
 * finds):
 *
 *  - the initial execution: the root fields, minus what is deferred, and the first items of each
 *    streamed list; its result is the first payload;
 *  - one per execution group (a deferred fragment's fields at one position: deferSplit.ts), whose
 *    data goes into the fragment's payload;
 *  - one per streamed item, whose value goes into its stream's payload.
 *
 * Each has its own `data`, `errors` and pending work, so an error nulls only its own part: an
 * error that rises to the top of a deferred fragment's part fails that fragment (its payload
 * says so in `completed`), one that rises to a streamed item fails the stream. Each reports the
 * deferred fragments and streams it met (`groups`, `tasks`, `streams`: workQueue.ts), to be
 * delivered after its own part. They all share the request: its variables, its plan, one batch
 * scheduler (so the loads of deferred parts join the batches of their level), and the record of
 * which fields were found under which `@defer` (deferSplit.ts).
 *
 * Like graphql 17, a part of the response that an error nulled takes its deferred fragments and
 * streams with it: they are cancelled, and never announced.
 */
import type { ExecutionResult, GraphQLError, GraphQLTypeResolver } from 'graphql';
import type { BatchScheduler } from '../../batching/scheduler.ts';
import { HONOURS_ABORT_SIGNAL } from '../../language/graphqlCompat.ts';
import type { VariableValues } from '../../language/graphqlCompat.ts';
import type { DeferUsage } from '../../language/collectDeferredFields.ts';
import { isTraced, resolveChannel } from '../../language/tracingChannels.ts';
import { Execution } from '../execution.ts';
import type { ExecutionTracer } from '../trace.ts';
import type { IncrementalHooks, ResultObject } from '../execution.ts';
import type { PlannedExecuteArgs } from '../execute.ts';
import { pathToArray } from '../path.ts';
import type { ResponsePath } from '../path.ts';
import type { OperationPlan } from '../plan.ts';
import { RequestCollections, NO_DEFER } from './deferSplit.ts';
import type { DeferUsageSet } from './deferSplit.ts';
import type { DeliveryGroup, ExecutionGroup, IncrementalWork, ItemStream } from './workQueue.ts';

/** What every execution of one incremental request shares. */
export class IncrementalRequest {
  readonly plan: OperationPlan;
  readonly args: PlannedExecuteArgs;
  readonly variables: VariableValues;
  readonly typeResolver: GraphQLTypeResolver<unknown, unknown>;
  /** The 2022 format: fields split node by node (deferSplit.ts branchingSplit). */
  readonly branching: boolean;
  /** graphql 17's `enableEarlyExecution`: deferred work starts at once, not when it may be delivered. */
  readonly earlyExecution: boolean;
  readonly hooks: IncrementalHooks;
  readonly collections: RequestCollections;
  /** The delivery groups made at each position (undefined: the root), by the `@defer` they stand for. */
  readonly groupsAt = new Map<ResponsePath | undefined, Map<DeferUsage, DeliveryGroup>>();
  /** The one scheduler of the request, made by the initial execution. */
  scheduler: BatchScheduler | null = null;
  /** A traced request's one recorder, made by the initial execution and shared by every part: one trace for the whole delivery. */
  tracer: ExecutionTracer | null = null;
  /** The summed cost weight of every part's fields so far, when measuring (ExecuteArgs.measureCost): added as each part finishes. */
  actualCost = 0;
  /** A traced request's part values (an execution group's, a streamed item's), by the execution that made them: which payload delivered which calls. */
  readonly valueOwners: WeakMap<object, IncrementalExecution> | null;

  constructor(
    plan: OperationPlan,
    args: PlannedExecuteArgs,
    variables: VariableValues,
    typeResolver: GraphQLTypeResolver<unknown, unknown>,
    options: { branching: boolean; earlyExecution: boolean; hooks: IncrementalHooks },
  ) {
    this.plan = plan;
    this.args = args;
    this.variables = variables;
    this.typeResolver = typeResolver;
    this.branching = options.branching;
    this.earlyExecution = options.earlyExecution;
    this.hooks = options.hooks;
    this.collections = new RequestCollections(plan);
    this.valueOwners = args.trace === true ? new WeakMap() : null;
  }

  /** The delivery group of `usage` for a position: made there or at the nearest ancestor that made one. */
  deliveryGroup(usage: DeferUsage, path: ResponsePath | undefined): DeliveryGroup | undefined {
    for (let node = path; ; node = node.prev) {
      const group = this.groupsAt.get(node)?.get(usage);
      if (group !== undefined || node === undefined) return group;
    }
  }
}

/** An execution's outcome when an error rose to the top of its part. */
export interface PartFailure {
  readonly failed: unknown;
}

/** The three kinds: what `result()` builds when nothing is pending. */
export type PartKind = 'initial' | 'group' | 'item';

const NO_FAILURE: unique symbol = Symbol('no failure');

/** One execution of an incremental request (see the module comment). */
export class IncrementalExecution extends Execution {
  readonly request: IncrementalRequest;
  readonly kind: PartKind;
  /** The defer usages this execution serves: none for the initial execution and for streamed items. */
  readonly deferUsages: DeferUsageSet;
  /** Delivery groups, execution groups and streams met by this execution. */
  readonly groups: DeliveryGroup[] = [];
  readonly tasks: ExecutionGroup[] = [];
  readonly streams: ItemStream[] = [];
  /** The error that reached the top of this part, if one did. */
  private failure: unknown = NO_FAILURE;
  /** Builds what the initial execution answers once done (executeIncrementally.ts). */
  respond: ((data: ResultObject | null, errors: ReadonlyArray<GraphQLError>, work: IncrementalWork) => unknown) | null = null;

  constructor(request: IncrementalRequest, kind: PartKind, deferUsages: DeferUsageSet, rootPath: ResponsePath | undefined) {
    // Every part measures its own cost (summed into the request's as it finishes) and reports to
    // the initial execution's tracer: one trace and one cost for the whole delivery.
    const args = kind === 'initial' ? request.args : { ...request.args, trace: false, abortSignal: undefined };
    // Each part asks graphql:resolve again, as each of graphql 17's executions of a part does.
    super(request.plan, args, request.variables, request.typeResolver, isTraced(resolveChannel));
    this.request = request;
    this.kind = kind;
    this.deferUsages = deferUsages;
    this.rootPath = rootPath;
    this.incremental = request.hooks;
    // Generated readers run a whole selection set; here each object's fields are split first.
    (this as { plainReads: boolean }).plainReads = false;
    // One scheduler for the whole request: a deferred part's loads join the batches of its level.
    if (kind === 'initial') request.scheduler = this.scheduler;
    else (this as { scheduler: BatchScheduler | null }).scheduler = request.scheduler;
    if (kind === 'initial') {
      request.tracer = this.trace;
      this.trace?.trackOwners();
    } else {
      (this as { trace: ExecutionTracer | null }).trace = request.tracer;
      this.observesResolvers = this.trace !== null || this.publishesResolvers;
    }
  }

  /** An error reached the top of this part: for a deferred fragment or a streamed item, the part fails. */
  override failRoot(error: GraphQLError): void {
    if (this.failure === NO_FAILURE) this.failure = error;
    super.failRoot(error);
  }

  /**
   * Stops this part's work (its part of the response was nulled elsewhere, or the client left):
   * values arriving from now on fail with "Aborted!". Under graphql 17 its resolvers' abort
   * signal aborts too (abortWith); graphql 16 has no such signal, nor its AbortedGraphQLExecutionError.
   */
  abort(reason: unknown): void {
    if (this.aborted !== null) return;
    if (HONOURS_ABORT_SIGNAL) this.abortWith(reason ?? new Error('This operation was aborted'));
    else this.aborted = { reason };
  }

  /** What this part answers once nothing is pending (see PartKind). */
  protected override result(): ExecutionResult {
    if (this.actualCost !== null) this.request.actualCost += this.actualCost;
    if (this.failure !== NO_FAILURE && this.kind !== 'initial') return { failed: this.failure } satisfies PartFailure as never;
    const work = this.incrementalWork();
    if (this.kind === 'group') {
      const value = { deliveryGroups: this.groupsServed, path: pathToArray(this.rootPath), data: this.data as ResultObject };
      return { value: this.owning(this.errors.length > 0 ? { ...value, errors: this.errors } : value), work } as never;
    }
    if (this.kind === 'item') {
      const item = (this.data as ResultObject)[(this.rootItemKey as number)];
      return { value: this.owning(this.errors.length > 0 ? { item, errors: this.errors } : { item }), work } as never;
    }
    return (this.respond as NonNullable<typeof this.respond>)(this.data, this.errors, work) as never;
  }

  /** A traced request notes which execution made a part's value (deliveryReport.ts). */
  private owning<V extends object>(value: V): V {
    this.request.valueOwners?.set(value, this);
    return value;
  }

  /** For an execution group: the delivery groups it serves. */
  groupsServed: ReadonlyArray<DeliveryGroup> = [];
  /** For a streamed item: its index (the key of its value in `data`). */
  rootItemKey: number | undefined = undefined;

  /**
   * The work this execution found, without what lies inside a part an error nulled: such
   * execution groups and streams are cancelled ("Cancelled secondary to null within original result").
   */
  incrementalWork(): IncrementalWork {
    if (this.errors.length === 0 || this.nulled === null) return { groups: this.groups, tasks: this.tasks, streams: this.streams };
    const reason = new Error('Cancelled secondary to null within original result');
    const tasks = this.tasks.filter((task) => {
      if (!this.isNulled(task.path)) return true;
      task.computation.abort(reason);
      return false;
    });
    const streams = this.streams.filter((stream) => {
      if (!this.isNulled(stream.path)) return true;
      stream.queue.abort(reason)?.catch(() => undefined);
      return false;
    });
    return { groups: this.groups, tasks, streams };
  }

  private isNulled(path: ResponsePath | undefined): boolean {
    const nulled = this.nulled as ReadonlySet<ResponsePath | undefined>;
    for (let node = path; node !== undefined; node = node.prev) if (nulled.has(node)) return true;
    return nulled.has(undefined);
  }
}

export { NO_DEFER };
