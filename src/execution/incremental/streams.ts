/**
 * `@stream`: CompleteValue of a list field written with `@stream(initialCount: n)` (the
 * Incremental Delivery RFC's stream records, in graphql 17's shape).
 *
 * The first `n` items are completed now, in the list, as for any list. Then the list stops
 * there, and the rest of its items become a *stream* (workQueue.ts): a loop reads them from the
 * list's iterator one by one, completes each by an execution of its own (incrementalExecution.ts)
 * at its index, and queues it (queue.ts); each payload carries the items completed since the
 * one before. By default the loop starts when the client reads the payload before; with early
 * execution, at once.
 *
 * The list may be an array (or any iterable), whose items may be promises, or an async iterable
 * (an async generator, a pubsub...), whose items are awaited in order, the first `n` before the
 * field completes. A failure of the iterator ends the stream with its error (`completed` with
 * `errors`); an item that fails where null is not allowed does too; a nullable one is null with
 * its error. A client that stops reading (`return()` on `subsequentResults`), or an error
 * that nulls the list's position, closes the iterator (`return()` on an async one).
 */
import { GraphQLError, locatedError } from 'graphql';
import type { FieldNode } from 'graphql';
import { isPromiseLike } from '../../jsutils/isPromiseLike.ts';
import { isAsyncIterable } from '../../jsutils/isAsyncIterable.ts';
import { STREAM_DIRECTIVE, directiveValues } from '../../language/graphqlCompat.ts';
import { runAsTask } from '../../batching/scheduler.ts';
import { awaitInPlace, completeAsyncIterableList, completeListItem, completeValue, handleFieldError } from '../execute.ts';
import type { ResultObject } from '../execution.ts';
import { NOT_HANDLED } from '../execution.ts';
import { newPath, pathToArray } from '../path.ts';
import type { ResponsePath } from '../path.ts';
import type { FieldPlan, StreamPlan, ValuePlan } from '../plan.ts';
import { remainingPromises, returnQuietly } from './abruptClose.ts';
import { settlePart } from './deferredFragments.ts';
import { IncrementalExecution, NO_DEFER } from './incrementalExecution.ts';
import { Queue } from './queue.ts';
import type { ItemStream, StreamItemResult } from './workQueue.ts';

/** What `@stream` asks of one field, for this request: undefined when it is off (`if: false`). */
interface StreamUsage {
  readonly initialCount: number;
  readonly label: string | undefined;
}

const SUBSCRIPTION_STREAM = '`@stream` directive not supported on subscription operations. Disable `@stream` by setting the `if` argument to `false`.';

function streamUsage(exec: IncrementalExecution, field: FieldPlan): StreamUsage | undefined {
  const stream = directiveValues(STREAM_DIRECTIVE, field.fieldNodes[0] as FieldNode, exec.variableValues);
  if (stream === undefined || stream['if'] === false) return undefined;
  const initialCount = stream['initialCount'];
  // graphql 17's own checks, made as the field completes (so a field error, not a request error).
  if (typeof initialCount !== 'number') throw new Error('initialCount must be a number');
  if (!(initialCount >= 0)) throw new Error('initialCount must be a positive integer');
  if (exec.operation.operation === 'subscription') throw new Error(SUBSCRIPTION_STREAM);
  const label = stream['label'];
  return { initialCount, label: typeof label === 'string' ? label : undefined };
}

/** The hook of execute.ts's completeValue for a `@stream` field. */
export function completeStreamedList(exec: IncrementalExecution, field: FieldPlan, plan: StreamPlan, value: unknown, path: ResponsePath): unknown {
  const usage = streamUsage(exec, field);
  // Switched off: a list like any other (execute.ts completeListValue).
  if (usage === undefined) return NOT_HANDLED;
  if (isAsyncIterable(value)) return completeAsyncIterable(exec, field, plan, value, path, usage);
  if (typeof value !== 'object' || value === null || typeof (value as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    throw new GraphQLError(`Expected Iterable, but did not find one for field "${field.parentType.name}.${field.fieldName}".`);
  }
  const iterator = (value as Iterable<unknown>)[Symbol.iterator]();
  const completed: unknown[] = [];
  try {
    for (let index = 0; ; index++) {
      if (index === usage.initialCount) {
        startStream(exec, field, path, { iterator, isAsync: false }, index, usage);
        break;
      }
      const iteration = iterator.next();
      if (iteration.done) break;
      completeListItem(exec, field, plan.item, iteration.value, completed, index, path);
    }
  } catch (error) {
    for (const promise of remainingPromises(iterator)) promise.then(undefined, () => undefined);
    throw error;
  }
  return completed;
}

/** A list given as an async iterable: its first items awaited in order, in place (execute.ts), the rest streamed. */
function completeAsyncIterable(exec: IncrementalExecution, field: FieldPlan, plan: StreamPlan, items: AsyncIterable<unknown>, path: ResponsePath, usage: StreamUsage): unknown[] {
  return completeAsyncIterableList(exec, field, plan.item, items, path, (index, iterator) => {
    if (index !== usage.initialCount) return false;
    startStream(exec, field, path, { iterator, isAsync: true }, index, usage);
    return true;
  });
}

interface ListIterator {
  readonly iterator: Iterator<unknown> | AsyncIterator<unknown>;
  readonly isAsync: boolean;
}

/** The rest of the list as a stream of the executing part. */
function startStream(exec: IncrementalExecution, field: FieldPlan, path: ResponsePath, list: ListIterator, index: number, usage: StreamUsage): void {
  // The streamed items' field: the same nodes, under no `@defer` (deferSplit.ts streamedItems).
  const itemsField = exec.request.collections.streamedItems(field);
  const queue = streamQueue(exec, itemsField, (itemsField.value as StreamPlan).item, path, list, index);
  const stream: ItemStream = { label: usage.label, path, queue, initialCount: index };
  exec.streams.push(stream);
}

/** The queue of a stream's items: a loop that reads, completes and queues them (see the module comment). */
function streamQueue(exec: IncrementalExecution, field: FieldPlan, item: ValuePlan, path: ResponsePath, list: ListIterator, first: number): Queue<StreamItemResult> {
  const request = exec.request;
  return new Queue<StreamItemResult>(async ({ push, stop, onStop, started }) => {
    const running = new Set<IncrementalExecution>();
    let finishedNormally = false;
    let stopRequested = false;
    onStop((reason) => {
      stopRequested = true;
      if (finishedNormally) return;
      for (const part of running) part.abort(reason);
      if (list.isAsync) void returnQuietly(list.iterator as AsyncIterator<unknown>);
      else for (const promise of remainingPromises(list.iterator as Iterator<unknown>)) promise.then(undefined, () => undefined);
    });
    await (request.earlyExecution ? Promise.resolve() : started);
    if (stopRequested) return;
    for (let index = first; ; index++) {
      let iteration: IteratorResult<unknown>;
      try {
        iteration = list.isAsync ? await (list.iterator as AsyncIterator<unknown>).next() : (list.iterator as Iterator<unknown>).next();
      } catch (raw) {
        throw locatedError(raw, field.fieldNodes, pathToArray(path));
      }
      if (list.isAsync && stopRequested) return;
      if (iteration.done) {
        finishedNormally = true;
        stop()?.catch(() => undefined);
        return;
      }
      const part = new IncrementalExecution(request, 'item', NO_DEFER, path);
      let result = completeStreamItem(part, field, item, path, index, iteration.value);
      if (result instanceof Promise) {
        if (request.earlyExecution) {
          running.add(part);
          result = result.finally(() => running.delete(part));
        } else {
          result = await result;
          if (stopRequested) return;
        }
      }
      const wait = push(result);
      if (wait !== undefined) {
        await wait;
        if (stopRequested) return;
      }
    }
  }, 100);
}

/** Completes one streamed item at its index, by an execution of its own; throws (or rejects) when it fails where null is not allowed. */
function completeStreamItem(part: IncrementalExecution, field: FieldPlan, item: ValuePlan, listPath: ResponsePath, index: number, value: unknown): StreamItemResult | Promise<StreamItemResult> {
  const box: ResultObject = {};
  part.data = box;
  part.rootItemKey = index;
  const itemPath = newPath(listPath, index, undefined, item.nullable);
  const run = () => {
    box[index] = null;
    try {
      if (isPromiseLike(value)) {
        awaitInPlace(part, value, field, item, box, index, itemPath);
        return;
      }
      const completed = completeValue(part, field, item, value, itemPath);
      if (completed instanceof Promise) awaitInPlace(part, completed, field, null, box, index, itemPath);
      else box[index] = completed;
    } catch (raw) {
      try {
        handleFieldError(part, raw, field, itemPath, box, index, false);
      } catch (error) {
        part.failRoot(error as GraphQLError);
      }
    }
  };
  if (part.scheduler !== null) runAsTask(part.scheduler, run);
  else run();
  const outcome = settlePart(part.response() as unknown) as StreamItemResult | Promise<StreamItemResult>;
  // graphql 17 settles a pending item one step later (a second `then`, which stops the item's
  // execution on failure); the same step here keeps items in the same payloads as there.
  return outcome instanceof Promise ? outcome.then(undefined, rethrow) : outcome;
}

const rethrow = (error: unknown): never => {
  throw error;
};
