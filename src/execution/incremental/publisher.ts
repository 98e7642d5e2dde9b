/**
 * The payloads of incremental delivery in the current format (graphql 17's
 * `experimentalExecuteIncrementally`, `incrementalSpec=v0.2` over HTTP):
 *
 *   initial:    { data, errors?, pending: [{ id, path, label? }], hasNext: true }
 *   subsequent: { pending?, incremental?: [{ id, data | items, subPath?, errors? }],
 *                 completed?: [{ id, errors? }], hasNext }
 *
 * Each deferred fragment and each stream is announced once in `pending`, with an id (a string)
 * and the path where its data goes; later entries name it only by id. A deferred fragment's data
 * comes in `incremental` entries (one per execution group: workQueue.ts), each naming the
 * pending fragment with the longest path it belongs to, plus the `subPath` from there. A stream's
 * items come in `incremental` entries with `items`. `completed` says a fragment or stream is done,
 * with `errors` when it failed (an error rose to its top: its data is never sent). The last
 * payload has `hasNext: false`.
 *
 * One payload is everything the work queue reported since the client last asked (queue.ts).
 */
import { GraphQLError } from 'graphql';
import { ensureGraphQLError } from '../../language/graphqlCompat.ts';
import { pathToArray } from '../path.ts';
import type { ResponsePath } from '../path.ts';
import { closeAbruptly, mapClosing } from './abruptClose.ts';
import type { DeliveryReport } from './deliveryReport.ts';
import { createWorkQueue } from './workQueue.ts';
import type { DeliveryGroup, ExecutionGroupValue, IncrementalWork, ItemStream, WorkQueueEvent } from './workQueue.ts';

export interface PendingResult {
  id: string;
  path: ReadonlyArray<string | number>;
  label?: string;
}

export interface CompletedResult {
  id: string;
  errors?: ReadonlyArray<GraphQLError>;
}

export interface IncrementalDeferResult<TData = Record<string, unknown>, TExtensions = Record<string, unknown>> {
  id: string;
  subPath?: ReadonlyArray<string | number>;
  errors?: ReadonlyArray<GraphQLError>;
  data: TData;
  extensions?: TExtensions;
}

export interface IncrementalStreamResult<TItem = unknown, TExtensions = Record<string, unknown>> {
  id: string;
  subPath?: ReadonlyArray<string | number>;
  errors?: ReadonlyArray<GraphQLError>;
  items: ReadonlyArray<TItem>;
  extensions?: TExtensions;
}

export type IncrementalResult<TData = Record<string, unknown>, TItem = unknown, TExtensions = Record<string, unknown>> =
  | IncrementalDeferResult<TData, TExtensions>
  | IncrementalStreamResult<TItem, TExtensions>;

export interface InitialIncrementalExecutionResult<TData = Record<string, unknown>, TExtensions = Record<string, unknown>> {
  errors?: ReadonlyArray<GraphQLError>;
  data: TData;
  pending: ReadonlyArray<PendingResult>;
  hasNext: true;
  extensions?: TExtensions;
}

export interface SubsequentIncrementalExecutionResult<TData = Record<string, unknown>, TItem = unknown, TExtensions = Record<string, unknown>> {
  pending?: ReadonlyArray<PendingResult>;
  incremental?: ReadonlyArray<IncrementalResult<TData, TItem, TExtensions>>;
  completed?: ReadonlyArray<CompletedResult>;
  hasNext: boolean;
  extensions?: TExtensions;
}

/** What experimentalExecuteIncrementally gives when there is more to come. */
export interface ExperimentalIncrementalExecutionResults<
  TInitial = Record<string, unknown>,
  TData = Record<string, unknown>,
  TItem = unknown,
  TExtensions = Record<string, unknown>,
> {
  initialResult: InitialIncrementalExecutionResult<TInitial, TExtensions>;
  subsequentResults: AsyncGenerator<SubsequentIncrementalExecutionResult<TData, TItem, TExtensions>, void, void>;
}

/** The two formats' publishers build their response from the same inputs (see executeIncrementally.ts). */
export interface ResponseInputs {
  readonly data: Record<string, unknown>;
  readonly errors: ReadonlyArray<GraphQLError>;
  readonly work: IncrementalWork;
  /** The caller's abortSignal: aborting it ends subsequentResults with its reason. */
  readonly abortSignal: AbortSignal | undefined;
  /** Called once, when the last payload has gone or the client left. */
  readonly onFinished: () => void;
  /** The actual cost and the trace, for the last payload's `extensions`; null when neither was asked for. */
  readonly report: DeliveryReport | null;
}

/** The subsequent results of a work queue through `toPayload`; closing it early closes the queue, and an abort throws into it. */
export function publish<P extends { readonly hasNext: boolean; extensions?: Record<string, unknown> }>(
  inputs: ResponseInputs,
  events: AsyncGenerator<ReadonlyArray<WorkQueueEvent>, void, void>,
  toPayload: (batch: ReadonlyArray<WorkQueueEvent>, finished: () => void) => P,
): AsyncGenerator<P, void, void> {
  const { abortSignal, onFinished, report } = inputs;
  const abort = () => {
    subsequentResults.throw(abortSignal?.reason).catch(() => undefined);
  };
  abortSignal?.addEventListener('abort', abort);
  let done = false;
  const finished = () => {
    if (done) return;
    done = true;
    onFinished();
    abortSignal?.removeEventListener('abort', abort);
  };
  const subsequentResults: AsyncGenerator<P, void, void> = closeAbruptly(
    mapClosing(events, report === null ? (batch) => toPayload(batch, finished) : (batch) => report.payload(batch, toPayload(batch, finished))),
    () => finished(),
  );
  return subsequentResults;
}

/** Builds the current format's payloads for one response. */
export class IncrementalPublisher {
  private readonly ids = new Map<DeliveryGroup | ItemStream, string>();
  private nextId = 0;
  private readonly paths = new WeakMap<ResponsePath, ReadonlyArray<string | number>>();

  buildResponse(inputs: ResponseInputs): ExperimentalIncrementalExecutionResults {
    const { initialGroups, initialStreams, events } = createWorkQueue(inputs.work);
    const pending = this.toPending(initialGroups, initialStreams);
    inputs.report?.first(initialGroups, initialStreams);
    const initialResult: InitialIncrementalExecutionResult =
      inputs.errors.length > 0 ? { errors: inputs.errors, data: inputs.data, pending, hasNext: true } : { data: inputs.data, pending, hasNext: true };
    const subsequentResults = publish(inputs, events, (batch, finished) => this.payload(batch, finished));
    return { initialResult, subsequentResults };
  }

  private pathOf(path: ResponsePath | undefined): ReadonlyArray<string | number> {
    if (path === undefined) return [];
    let keys = this.paths.get(path);
    if (keys === undefined) {
      keys = pathToArray(path);
      this.paths.set(path, keys);
    }
    return keys;
  }

  /** A part's `completed` entry; its id is not used again. */
  private completed(record: DeliveryGroup | ItemStream): CompletedResult {
    const id = this.idOf(record);
    this.ids.delete(record);
    return { id };
  }

  /** A failed part's `completed` entry, with the error that ended it. */
  private failed(record: DeliveryGroup | ItemStream, error: unknown): CompletedResult {
    return { ...this.completed(record), errors: [ensureGraphQLError(error)] };
  }

  private idOf(record: DeliveryGroup | ItemStream): string {
    let id = this.ids.get(record);
    if (id === undefined) {
      id = String(this.nextId++);
      this.ids.set(record, id);
    }
    return id;
  }

  private toPending(groups: ReadonlyArray<DeliveryGroup>, streams: ReadonlyArray<ItemStream>): PendingResult[] {
    const pending: PendingResult[] = [];
    for (const record of [...groups, ...streams]) {
      const entry: PendingResult = { id: this.idOf(record), path: this.pathOf(record.path) };
      if (record.label !== undefined) entry.label = record.label;
      pending.push(entry);
    }
    return pending;
  }

  private payload(batch: ReadonlyArray<WorkQueueEvent>, finished: () => void): SubsequentIncrementalExecutionResult {
    const pending: PendingResult[] = [];
    const incremental: IncrementalResult[] = [];
    const completed: CompletedResult[] = [];
    let hasNext = true;
    for (const event of batch) {
      switch (event.kind) {
        case 'GROUP_VALUES':
          for (const value of event.values) incremental.push(this.deferResult(event.group, value));
          break;
        case 'GROUP_SUCCESS':
          completed.push(this.completed(event.group));
          if (event.newGroups.length > 0 || event.newStreams.length > 0) pending.push(...this.toPending(event.newGroups, event.newStreams));
          break;
        case 'GROUP_FAILURE':
          completed.push(this.failed(event.group, event.error));
          break;
        case 'STREAM_VALUES':
          incremental.push(this.streamResult(event.stream, event.values));
          if (event.newGroups.length > 0 || event.newStreams.length > 0) pending.push(...this.toPending(event.newGroups, event.newStreams));
          break;
        case 'STREAM_SUCCESS':
          completed.push(this.completed(event.stream));
          break;
        case 'STREAM_FAILURE':
          completed.push(this.failed(event.stream, event.error));
          break;
        case 'WORK_QUEUE_TERMINATION':
          finished();
          hasNext = false;
          break;
      }
    }
    const result: SubsequentIncrementalExecutionResult = { hasNext };
    if (pending.length > 0) result.pending = pending;
    if (incremental.length > 0) result.incremental = incremental;
    if (completed.length > 0) result.completed = completed;
    return result;
  }

  private streamResult(stream: ItemStream, values: ReadonlyArray<{ item: unknown; errors?: ReadonlyArray<GraphQLError> }>): IncrementalStreamResult {
    const items: unknown[] = [];
    const errors: GraphQLError[] = [];
    for (const value of values) {
      items.push(value.item);
      if (value.errors !== undefined) errors.push(...value.errors);
    }
    const id = this.idOf(stream);
    return errors.length > 0 ? { id, items, errors } : { id, items };
  }

  /** An execution group's data, under the deepest pending fragment it belongs to, with the rest of its path as `subPath`. */
  private deferResult(group: DeliveryGroup, value: ExecutionGroupValue): IncrementalDeferResult {
    let id = this.idOf(group);
    let depth = this.pathOf(group.path).length;
    for (const other of value.deliveryGroups) {
      if (other === group) continue;
      const otherId = this.ids.get(other);
      if (otherId === undefined) continue;
      const otherDepth = this.pathOf(other.path).length;
      if (otherDepth > depth) {
        depth = otherDepth;
        id = otherId;
      }
    }
    const entry: IncrementalDeferResult = { id, data: value.data };
    if (value.errors !== undefined) entry.errors = value.errors;
    const subPath = value.path.slice(depth);
    if (subPath.length > 0) entry.subPath = subPath;
    return entry;
  }
}
