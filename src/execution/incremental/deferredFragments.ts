/**
 * `@defer`: ExecuteSelectionSet when some of an object's fields may be deferred (the Incremental
 * Delivery RFC's ExecuteDeferredGroupedFieldSets, in graphql 17's shape).
 *
 * At an object whose selection set meets a `@defer` (its `if` not false), each such `@defer`
 * becomes a *delivery group* at this position, nested in the delivery group of the `@defer` it
 * was found in. The fields are split (deferSplit.ts): those of the executing part run now, into
 * the object as usual; the others form one *execution group* per set of defer usages, run later
 * by an execution of their own (incrementalExecution.ts) on the same source value, at the same
 * position, and delivered with their delivery groups (workQueue.ts).
 *
 * When an execution group runs: by default when its delivery groups may be delivered, that is
 * once the client has read the payload before (so nothing deferred competes with the initial
 * payload); with early execution (`enableEarlyExecution`), at once, or a microtask later when
 * it serves a `@defer` other than the executing one.
 */
import { runAsTask } from '../../batching/scheduler.ts';
import { executeFields } from '../execute.ts';
import type { ResultObject } from '../execution.ts';
import type { ResponsePath } from '../path.ts';
import type { FieldPlan, SelectionPlan } from '../plan.ts';
import type { PromiseOrValue } from '../../jsutils/promiseOrValue.ts';
import { NOT_HANDLED } from '../execution.ts';
import { Computation } from './computation.ts';
import type { DeferUsageSet, Split } from './deferSplit.ts';
import { IncrementalExecution } from './incrementalExecution.ts';
import type { PartFailure } from './incrementalExecution.ts';
import type { DeliveryGroup, ExecutionGroup, ExecutionGroupResult } from './workQueue.ts';

const SUBSCRIPTION_DEFER = '`@defer` directive not supported on subscription operations. Disable `@defer` by setting the `if` argument to `false`.';

/** An object's fields split, and the delivery groups of the `@defer`s met there (reported once its now-fields have run). */
export interface SplitAt {
  readonly split: Split;
  readonly groups: ReadonlyArray<DeliveryGroup>;
}

/**
 * The fields of an object (the value of `field`; undefined: the root) split into now and later,
 * the delivery groups of the `@defer`s met here made; NOT_HANDLED when nothing in the request is
 * deferred so far (then the object runs as in any execution).
 */
export function splitAt(exec: IncrementalExecution, field: FieldPlan | undefined, selections: SelectionPlan, path: ResponsePath | undefined): SplitAt | typeof NOT_HANDLED {
  const request = exec.request;
  const collection = request.collections.collect(exec, field, selections);
  const newUsages = collection.newDeferUsages;
  if (newUsages.length === 0 && request.groupsAt.size === 0) return NOT_HANDLED;
  if (newUsages.length > 0 && exec.operation.operation === 'subscription') throw new Error(SUBSCRIPTION_DEFER);
  const groups: DeliveryGroup[] = [];
  if (newUsages.length > 0) {
    let here = request.groupsAt.get(path);
    if (here === undefined) request.groupsAt.set(path, (here = new Map()));
    for (const usage of newUsages) {
      const parent = usage.parent === undefined ? undefined : request.deliveryGroup(usage.parent, path);
      const group: DeliveryGroup = { path, label: usage.label, parent };
      here.set(usage, group);
      groups.push(group);
    }
  }
  const collections = request.collections;
  const split = request.branching ? collections.branchingSplit(collection, exec.deferUsages) : collections.split(collection, exec.deferUsages);
  return { split, groups };
}

/** The hook of execute.ts's executeSelectionSet: the now-fields into a new object, the rest as execution groups. */
export function executeSelectionSetIncrementally(
  exec: IncrementalExecution,
  field: FieldPlan,
  selections: SelectionPlan,
  source: unknown,
  path: ResponsePath | undefined,
): PromiseOrValue<ResultObject> | typeof NOT_HANDLED {
  const found = splitAt(exec, field, selections, path);
  if (found === NOT_HANDLED) return NOT_HANDLED;
  const result: ResultObject = selections.nullPrototype ? Object.create(null) : {};
  const data = executeFields(exec, found.split.now, source, result, path);
  exec.groups.push(...found.groups);
  collectExecutionGroups(exec, found.split, source, path);
  return data;
}

/** Makes an execution group of each set of later fields (see the module comment for when it runs). */
export function collectExecutionGroups(exec: IncrementalExecution, split: Split, source: unknown, path: ResponsePath | undefined): void {
  const request = exec.request;
  for (const { set, fields } of split.later) {
    const groups = set.usages.map((usage) => request.deliveryGroup(usage, path) as DeliveryGroup);
    let part: IncrementalExecution | undefined;
    const computation = new Computation<ExecutionGroupResult>(
      () => {
        part = new IncrementalExecution(request, 'group', set, path);
        part.groupsServed = groups;
        return runExecutionGroup(part, fields, source, path);
      },
      (reason) => part?.abort(reason),
    );
    const task: ExecutionGroup = { groups, path, computation };
    if (request.earlyExecution) {
      if (servesOthers(exec.deferUsages, set)) void Promise.resolve().then(() => computation.prime());
      else computation.prime();
    }
    exec.tasks.push(task);
  }
}

/** Whether an execution group serves a `@defer` that the executing part does not. */
function servesOthers(executing: DeferUsageSet, set: DeferUsageSet): boolean {
  return executing.usages.length === 0 || !set.usages.every((usage) => executing.usages.includes(usage));
}

/** Runs an execution group's fields into its own object; rejects (or throws) when an error reaches its top. */
function runExecutionGroup(part: IncrementalExecution, fields: ReadonlyArray<FieldPlan>, source: unknown, path: ResponsePath | undefined): PromiseOrValue<ExecutionGroupResult> {
  part.data = {};
  const run = () => {
    try {
      const data = executeFields(part, fields, source, part.data as ResultObject, path);
      if (data instanceof Promise) part.awaitRootFailure(data);
    } catch (error) {
      part.failRoot(error as never);
    }
  };
  if (part.scheduler !== null) runAsTask(part.scheduler, run);
  else run();
  const outcome = settlePart(part.response() as PromiseOrValue<unknown>) as PromiseOrValue<ExecutionGroupResult>;
  // graphql 17 finishes a pending group through a Promise.all over its fields and a `then` that
  // builds the object from them: two steps after its last field settles. The same two steps here
  // keep each group in the same payload as there (what is ready is what is sent together).
  return outcome instanceof Promise ? outcome.then(same).then(same) : outcome;
}

const same = <T>(value: T): T => value;

/** A part's outcome as a value, or (when an error reached its top) as a failure: thrown, or a rejection. */
export function settlePart(outcome: PromiseOrValue<unknown>): PromiseOrValue<unknown> {
  if (outcome instanceof Promise) return outcome.then(unlessFailed);
  return unlessFailed(outcome);
}

function unlessFailed(outcome: unknown): unknown {
  if (typeof outcome === 'object' && outcome !== null && 'failed' in outcome) throw (outcome as PartFailure).failed;
  return outcome;
}
