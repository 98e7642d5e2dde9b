/**
 * The entry points of incremental delivery, with graphql 17.1.0's signatures and results:
 *
 *   experimentalExecuteIncrementally(args)  the current format (publisher.ts)
 *   legacyExecuteIncrementally(args)        the 2022 format (legacyPublisher.ts)
 *
 * Each answers like `execute` (a result, or a promise of one) when nothing was deferred or
 * streamed after all (no `@defer`/`@stream`, all switched off, or inside a part an error
 * nulled), and otherwise `{ initialResult, subsequentResults }`: the first payload, and an async
 * generator of the others. Tell them apart with `'initialResult' in result`.
 *
 * The steps: the same checks, plan and variable coercion as `execute` (execute.ts); then the
 * initial execution (incrementalExecution.ts) runs the root fields that are not deferred; its
 * result, with the work it found (deferred fragments, streams), goes to the publisher, which
 * starts that work as the client reads.
 *
 * An operation that uses neither directive takes `execute`'s own path, unchanged.
 */
import { GraphQLError } from 'graphql';
import type { ExecutionResult } from 'graphql';
import type { PromiseOrValue } from '../../jsutils/promiseOrValue.ts';
import {
  chosenOperationContext,
  executeChannel,
  isTraced,
  knownOperationContext,
  operationContext,
  rootSelectionSetChannel,
  traced,
} from '../../language/tracingChannels.ts';
import { runAsTask } from '../../batching/scheduler.ts';
import {
  assertValidExecutionArguments,
  defaultTypeResolver,
  executeFields,
  executeFieldsSerially,
  executePlanUnpublished,
  noRootType,
  operationVariables,
} from '../execute.ts';
import type { ExecuteArgs } from '../execute.ts';
import type { IncrementalHooks, ResultObject } from '../execution.ts';
import { NOT_HANDLED } from '../execution.ts';
import { OperationPlan, isPlanError, planOperation } from '../plan.ts';
import { collectExecutionGroups, executeSelectionSetIncrementally, splitAt } from './deferredFragments.ts';
import { IncrementalExecution, IncrementalRequest, NO_DEFER } from './incrementalExecution.ts';
import { IncrementalPublisher } from './publisher.ts';
import type { ExperimentalIncrementalExecutionResults } from './publisher.ts';
import { DeliveryReport } from './deliveryReport.ts';
import { LegacyPublisher } from './legacyPublisher.ts';
import type { LegacyExperimentalIncrementalExecutionResults } from './legacyPublisher.ts';
import { completeStreamedList } from './streams.ts';
import type { IncrementalWork } from './workQueue.ts';

/** execute()'s arguments, and graphql 17's `enableEarlyExecution`. */
export interface IncrementalExecuteArgs extends ExecuteArgs {
  /** Start deferred work at once rather than when it may be delivered (graphql 17's option). */
  enableEarlyExecution?: boolean | null;
}

/** The incremental executions' hooks into execute.ts (execution.ts IncrementalHooks). */
const HOOKS: IncrementalHooks = {
  executeSelectionSet: (exec, field, selections, source, path) =>
    executeSelectionSetIncrementally(exec as IncrementalExecution, field, selections, source, path),
  completeStreamedList: (exec, field, plan, value, path) => completeStreamedList(exec as IncrementalExecution, field, plan, value, path),
};

/** Runs an operation with incremental delivery, its payloads in the current format (graphql 17's function of this name). */
export function experimentalExecuteIncrementally(args: IncrementalExecuteArgs): PromiseOrValue<ExecutionResult | ExperimentalIncrementalExecutionResults> {
  return executeIncrementally(args, false) as PromiseOrValue<ExecutionResult | ExperimentalIncrementalExecutionResults>;
}

/** Runs an operation with incremental delivery, its payloads in the 2022 format (graphql 17's function of this name). */
export function legacyExecuteIncrementally(args: IncrementalExecuteArgs): PromiseOrValue<ExecutionResult | LegacyExperimentalIncrementalExecutionResults> {
  return executeIncrementally(args, true) as PromiseOrValue<ExecutionResult | LegacyExperimentalIncrementalExecutionResults>;
}

/** Published on graphql:execute, as graphql 17's are (language/tracingChannels.ts). */
function executeIncrementally(args: IncrementalExecuteArgs, branching: boolean): PromiseOrValue<unknown> {
  if (!isTraced(executeChannel)) return executeIncrementallyUnpublished(args, branching);
  const context = operationContext(args.schema, args.document, args.variableValues, args.operationName);
  return traced(executeChannel, context, () => executeIncrementallyUnpublished(args, branching));
}

function executeIncrementallyUnpublished(args: IncrementalExecuteArgs, branching: boolean): PromiseOrValue<unknown> {
  const { schema, document, variableValues } = args;
  assertValidExecutionArguments(schema, document, variableValues);
  const choice = planOperation(schema, document, args.operationName);
  if (isPlanError(choice)) return { errors: choice };
  return executePlanIncrementallyUnpublished(choice.forAccess(args.access), args, branching ? 'legacy' : 'current');
}

/** What executing a planned operation incrementally reads of the arguments (the plan has the schema, document and operation). */
export type PlannedIncrementalArgs = Omit<IncrementalExecuteArgs, 'schema' | 'document' | 'operationName' | 'access'>;

/** What the incremental entry points answer: a result, or the first payload and the rest. */
type IncrementalOutcome = ExecutionResult | ExperimentalIncrementalExecutionResults | LegacyExperimentalIncrementalExecutionResults;

/**
 * experimentalExecuteIncrementally (`format: 'current'`) or legacyExecuteIncrementally
 * (`'legacy'`) of an operation already planned for the caller's access, as the operation
 * pipeline holds it (execute.ts executePlan is its counterpart without incremental delivery).
 * Published on graphql:execute.
 */
export function executePlanIncrementally(plan: OperationPlan, args: PlannedIncrementalArgs, format: 'current' | 'legacy'): PromiseOrValue<IncrementalOutcome> {
  if (!isTraced(executeChannel)) return executePlanIncrementallyUnpublished(plan, args, format);
  const context = knownOperationContext(plan.schema, plan.document, plan.operation, args.variableValues);
  return traced(executeChannel, context, () => executePlanIncrementallyUnpublished(plan, args, format));
}

function executePlanIncrementallyUnpublished(plan: OperationPlan, args: PlannedIncrementalArgs, format: 'current' | 'legacy'): PromiseOrValue<IncrementalOutcome> {
  // Nothing to defer or stream anywhere in the document: execute's own path.
  if (!plan.incremental) return executePlanUnpublished(plan, args);
  const variables = operationVariables(plan, args);
  if (Array.isArray(variables)) return { errors: variables };
  const options = { branching: format === 'legacy', earlyExecution: args.enableEarlyExecution === true, hooks: HOOKS };
  const request = new IncrementalRequest(plan, args, variables, args.typeResolver ?? defaultTypeResolver, options);
  const initial = new IncrementalExecution(request, 'initial', NO_DEFER, undefined);
  if (!isTraced(rootSelectionSetChannel)) return executeInitial(initial) as PromiseOrValue<IncrementalOutcome>;
  const context = chosenOperationContext(plan.schema, plan.document, plan.operation, args.variableValues);
  return traced(rootSelectionSetChannel, context, () => executeInitial(initial)) as PromiseOrValue<IncrementalOutcome>;
}

/** ExecuteOperation for the initial payload: the root fields that are not deferred, then the response. */
function executeInitial(exec: IncrementalExecution): PromiseOrValue<unknown> {
  const plan = exec.plan;
  if (plan.rootType === undefined) return noRootType(exec);
  if (exec.abortSignal !== undefined) exec.listenForAbort(exec.abortSignal);
  exec.respond = (data, errors, work) => respond(exec, data, errors, work);
  exec.data = plan.root.nullPrototype ? Object.create(null) : {};
  if (exec.scheduler !== null) runAsTask(exec.scheduler, executeRoot, exec);
  else executeRoot(exec);
  return exec.response();
}

/** The root selection set, split like any other (deferredFragments.ts), serially for a mutation. */
function executeRoot(exec: IncrementalExecution): void {
  try {
    const found = splitAt(exec, undefined, exec.plan.root, undefined);
    const split = found === NOT_HANDLED ? { now: exec.fieldsOf(exec.plan.root), later: [] } : found.split;
    if (exec.operation.operation === 'mutation') {
      executeFieldsSerially(exec, split.now, 0);
    } else {
      const data = executeFields(exec, split.now, exec.rootValue, exec.data as ResultObject, undefined);
      if (data instanceof Promise) exec.awaitRootFailure(data);
    }
    if (found !== NOT_HANDLED) exec.groups.push(...found.groups);
    collectExecutionGroups(exec, split, exec.rootValue, undefined);
  } catch (error) {
    exec.failRoot(error as GraphQLError);
  }
}

/** The initial execution's answer: a plain result when nothing is left to deliver, else the first payload and the rest. */
function respond(exec: IncrementalExecution, data: ResultObject | null, errors: ReadonlyArray<GraphQLError>, work: IncrementalWork): unknown {
  if (data === null || (work.tasks?.length === 0 && work.streams?.length === 0)) return plainResult(exec, data, errors);
  const publisher = exec.request.branching ? new LegacyPublisher() : new IncrementalPublisher();
  // The actual cost and the trace go on the last payload (deliveryReport.ts): only then are they known.
  const report = exec.trace !== null || exec.actualCost !== null ? new DeliveryReport(exec) : null;
  return publisher.buildResponse({ data, errors, work, abortSignal: exec.abortSignal, onFinished: () => undefined, report });
}

/** Nothing left to deliver later: one result, with its cost and trace as execute's (execution.ts Execution.result). */
function plainResult(exec: IncrementalExecution, data: ResultObject | null, errors: ReadonlyArray<GraphQLError>): ExecutionResult {
  const result: ExecutionResult = errors.length > 0 ? { errors, data } : { data };
  if (exec.actualCost !== null) result.extensions = { cost: { actual: exec.request.actualCost } };
  if (exec.trace !== null) (result.extensions ??= {})['trace'] = exec.trace.finish(exec.plan, exec);
  return result;
}
