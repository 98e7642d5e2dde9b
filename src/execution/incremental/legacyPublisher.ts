/**
 * The payloads of incremental delivery in the 2022 format (graphql 17's
 * `legacyExecuteIncrementally`; `deferSpec=20220824` over HTTP, which Apollo Client's
 * `Defer20220824Handler` reads):
 *
 *   initial:    { data, errors?, hasNext: true }
 *   subsequent: { incremental?: [{ data, path, label?, errors? } | { items, path, label?, errors? }], hasNext }
 *
 * No ids: each entry carries the full path where it goes. A deferred fragment's entry is its data
 * at the fragment's own path; a failed fragment is an entry with `data: null` and the error. A
 * stream's entry is its items at the path of the first of them (the list's path and the index);
 * a failed stream is an entry with `items: null` at the list's path.
 *
 * In this format a field asked by several deferred fragments is sent with each of them (the
 * executions branch per fragment: incrementalExecution.ts `branching`), since each entry must
 * be complete on its own.
 */
import type { GraphQLError } from 'graphql';
import { ensureGraphQLError } from '../../language/graphqlCompat.ts';
import { newPath, pathToArray } from '../path.ts';
import { publish } from './publisher.ts';
import type { ResponseInputs } from './publisher.ts';
import { createWorkQueue } from './workQueue.ts';
import type { ItemStream, WorkQueueEvent } from './workQueue.ts';

export interface LegacyInitialIncrementalExecutionResult<TData = Record<string, unknown>, TExtensions = Record<string, unknown>> {
  errors?: ReadonlyArray<GraphQLError>;
  data: TData;
  hasNext: true;
  extensions?: TExtensions;
}

export interface LegacyIncrementalDeferResult<TData = Record<string, unknown>, TExtensions = Record<string, unknown>> {
  data: TData | null;
  path: ReadonlyArray<string | number>;
  label?: string;
  errors?: ReadonlyArray<GraphQLError>;
  extensions?: TExtensions;
}

export interface LegacyIncrementalStreamResult<TItem = unknown, TExtensions = Record<string, unknown>> {
  items: ReadonlyArray<TItem> | null;
  path: ReadonlyArray<string | number>;
  label?: string;
  errors?: ReadonlyArray<GraphQLError>;
  extensions?: TExtensions;
}

export type LegacyIncrementalResult<TData = Record<string, unknown>, TItem = unknown, TExtensions = Record<string, unknown>> =
  | LegacyIncrementalDeferResult<TData, TExtensions>
  | LegacyIncrementalStreamResult<TItem, TExtensions>;

export interface LegacySubsequentIncrementalExecutionResult<TData = Record<string, unknown>, TItem = unknown, TExtensions = Record<string, unknown>> {
  incremental?: ReadonlyArray<LegacyIncrementalResult<TData, TItem, TExtensions>>;
  hasNext: boolean;
  extensions?: TExtensions;
}

/** What legacyExecuteIncrementally gives when there is more to come. */
export interface LegacyExperimentalIncrementalExecutionResults<
  TInitial = Record<string, unknown>,
  TData = Record<string, unknown>,
  TItem = unknown,
  TExtensions = Record<string, unknown>,
> {
  initialResult: LegacyInitialIncrementalExecutionResult<TInitial, TExtensions>;
  subsequentResults: AsyncGenerator<LegacySubsequentIncrementalExecutionResult<TData, TItem, TExtensions>, void, void>;
}

/** Builds the 2022 format's payloads for one response. */
export class LegacyPublisher {
  /** Per stream, the index of its next item. */
  private readonly indices = new Map<ItemStream, number>();

  buildResponse(inputs: ResponseInputs): LegacyExperimentalIncrementalExecutionResults {
    const { initialGroups, initialStreams, events } = createWorkQueue(inputs.work);
    inputs.report?.first(initialGroups, initialStreams);
    for (const stream of initialStreams) this.indices.set(stream, stream.initialCount);
    const initialResult: LegacyInitialIncrementalExecutionResult =
      inputs.errors.length > 0 ? { errors: inputs.errors, data: inputs.data, hasNext: true } : { data: inputs.data, hasNext: true };
    const subsequentResults = publish(inputs, events, (batch, finished) => this.payload(batch, finished));
    return { initialResult, subsequentResults };
  }

  private payload(batch: ReadonlyArray<WorkQueueEvent>, finished: () => void): LegacySubsequentIncrementalExecutionResult {
    const incremental: LegacyIncrementalResult[] = [];
    let hasNext = true;
    for (const event of batch) {
      switch (event.kind) {
        case 'GROUP_VALUES':
          for (const value of event.values) {
            incremental.push(labelled<LegacyIncrementalDeferResult>({ data: value.data, path: pathToArray(event.group.path) }, event.group.label, value.errors));
          }
          break;
        case 'GROUP_FAILURE':
          incremental.push(labelled<LegacyIncrementalDeferResult>({ data: null, path: pathToArray(event.group.path) }, event.group.label, [ensureGraphQLError(event.error)]));
          break;
        case 'STREAM_VALUES':
          incremental.push(this.streamResult(event.stream, event.values));
          break;
        case 'STREAM_SUCCESS':
          this.indices.delete(event.stream);
          break;
        case 'STREAM_FAILURE':
          this.indices.delete(event.stream);
          incremental.push(labelled<LegacyIncrementalStreamResult>({ items: null, path: pathToArray(event.stream.path) }, event.stream.label, [ensureGraphQLError(event.error)]));
          break;
        case 'WORK_QUEUE_TERMINATION':
          finished();
          hasNext = false;
          break;
        case 'GROUP_SUCCESS':
          break;
      }
    }
    const result: LegacySubsequentIncrementalExecutionResult = { hasNext };
    if (incremental.length > 0) result.incremental = incremental;
    return result;
  }

  private streamResult(stream: ItemStream, values: ReadonlyArray<{ item: unknown; errors?: ReadonlyArray<GraphQLError> }>): LegacyIncrementalStreamResult {
    const items: unknown[] = [];
    const errors: GraphQLError[] = [];
    for (const value of values) {
      items.push(value.item);
      if (value.errors !== undefined) errors.push(...value.errors);
    }
    const index = this.indices.get(stream) ?? stream.initialCount;
    this.indices.set(stream, index + items.length);
    const path = pathToArray(newPath(stream.path, index, undefined, true));
    return labelled<LegacyIncrementalStreamResult>({ items, path }, stream.label, errors.length > 0 ? errors : undefined);
  }
}

/** An entry with its errors and label, when it has them (in this order, as graphql 17 writes them). */
function labelled<T extends { errors?: ReadonlyArray<GraphQLError>; label?: string }>(entry: T, label: string | undefined, errors: ReadonlyArray<GraphQLError> | undefined): T {
  if (errors !== undefined) entry.errors = errors;
  if (label !== undefined) entry.label = label;
  return entry;
}
