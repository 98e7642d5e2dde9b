/**
 * What graphql 17's `execute` does with an operation that would defer or stream: it refuses to
 * give more than one payload. The first `@defer` (or `@stream`) whose `if` is not false that the
 * execution reaches aborts it with "Executing this GraphQL operation would unexpectedly produce
 * multiple payloads (due to @defer or @stream directive)": that position fails with this error,
 * values still pending fail with "Aborted!", and `execute` throws (or rejects with)
 * AbortedGraphQLExecutionError carrying the reason and the result as it stood. A `@defer` among
 * the root fields refuses the operation before any resolver runs.
 *
 * A subscription's events are refused otherwise (refuseIncrementalInSubscription): a field whose
 * selection set would defer, or a list field that would stream, fails with graphql 17's message
 * asking for `if: false`, and the event's result holds that field error; nothing is aborted.
 * (Validation already refuses `@defer`/`@stream` in subscriptions unless `if` may be false: these
 * are the ones whose `if` is a variable that came true.)
 *
 * Only under graphql 17 (graphqlCompat.ts EXECUTE_REFUSES_INCREMENTAL): graphql 16's `execute`
 * and `subscribe` know no such directives and run the whole operation into one result, as ours
 * then does.
 * Incremental delivery itself is `experimentalExecuteIncrementally` (execution/incremental/).
 */
import { GraphQLError } from 'graphql';
import type { FieldNode } from 'graphql';
import { collectDeferredFields } from '../language/collectDeferredFields.ts';
import { MULTIPLE_PAYLOADS_MESSAGE, STREAM_DIRECTIVE, abortedExecutionError, directiveValues } from '../language/graphqlCompat.ts';
import { NOT_HANDLED } from './execution.ts';
import type { Execution, IncrementalHooks } from './execution.ts';
import type { SelectionPlan } from './plan.ts';

/** Installs the refusal on an execution of an operation that uses `@defer` or `@stream` (execute.ts `execute`). */
export function refuseIncrementalDelivery(exec: Execution): void {
  exec.incremental = REFUSAL;
  // The generated readers would run a selection set without asking the hooks.
  (exec as { plainReads: boolean }).plainReads = false;
  if (exec.plan.rootType !== undefined && defersHere(exec, exec.plan.root)) {
    const reason = new Error(MULTIPLE_PAYLOADS_MESSAGE);
    throw abortedExecutionError(reason, { errors: [new GraphQLError(reason.message, { originalError: reason })], data: null });
  }
}

const REFUSAL: IncrementalHooks = {
  executeSelectionSet(exec, _field, selections) {
    if (defersHere(exec, selections)) refuse(exec);
    return NOT_HANDLED;
  },
  completeStreamedList(exec, field) {
    const stream = directiveValues(STREAM_DIRECTIVE, field.fieldNodes[0] as FieldNode, exec.variableValues);
    if (stream !== undefined && stream['if'] !== false) refuse(exec);
    return NOT_HANDLED;
  },
};

/** Installs the refusal on the execution of a subscription's event (subscribe.ts). */
export function refuseIncrementalInSubscription(exec: Execution): void {
  exec.incremental = SUBSCRIPTION_REFUSAL;
  (exec as { plainReads: boolean }).plainReads = false;
}

const SUBSCRIPTION_REFUSAL: IncrementalHooks = {
  executeSelectionSet(exec, _field, selections) {
    if (defersHere(exec, selections)) throw new Error('`@defer` directive not supported on subscription operations. Disable `@defer` by setting the `if` argument to `false`.');
    return NOT_HANDLED;
  },
  completeStreamedList(exec, field) {
    const stream = directiveValues(STREAM_DIRECTIVE, field.fieldNodes[0] as FieldNode, exec.variableValues);
    if (stream !== undefined && stream['if'] !== false) throw new Error('`@stream` directive not supported on subscription operations. Disable `@stream` by setting the `if` argument to `false`.');
    return NOT_HANDLED;
  },
};

/** Whether collecting this selection set meets a `@defer` whose `if` is not false. */
function defersHere(exec: Execution, selections: SelectionPlan): boolean {
  const selectionSets = selections.selectionSets.map((selectionSet) => ({ selectionSet, deferUsage: undefined }));
  return collectDeferredFields(exec.schema, exec.fragments, exec.variableValues, selections.type, selectionSets).newDeferUsages.length > 0;
}

/** The refusal: the execution aborts, and this position fails with the reason. */
function refuse(exec: Execution): never {
  const reason = new Error(MULTIPLE_PAYLOADS_MESSAGE);
  exec.abortWith(reason);
  throw reason;
}
