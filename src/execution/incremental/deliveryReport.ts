/**
 * What an incremental delivery reports about itself once its last payload is made: the actual
 * cost of every part (ExecuteArgs.measureCost) and the trace of the whole delivery
 * (ExecuteArgs.trace), both in that payload's `extensions`, since neither is known before:
 *
 *   last payload: { ..., hasNext: false, extensions: { cost: { actual }, trace } }
 *
 * Why the last payload: the cost counts the fields of every part, as if they were inline, and the
 * trace says in which payload each resolver call's value went; both are complete only once the
 * last part is done. graphql 17's payload shapes carry `extensions` on every payload.
 *
 * The trace's incremental members are read off the same work-queue events the publishers turn
 * into payloads (workQueue.ts), so they are the same in both formats: the parts (deferred
 * fragments and streams) with the ids the current format gives them in `pending` (announced in
 * the same order, numbered the same way), and per payload what it announced, delivered and
 * completed. A resolver call's payload is the one that delivered the value of the execution it
 * ran in (incrementalExecution.ts): the first payload for the initial execution, else the
 * payload carrying its execution group's data or its streamed item.
 *
 * Made only for a request that measures or traces (executeIncrementally.ts): others pay nothing.
 */
import { pathToArray } from '../path.ts';
import type { ResponsePath } from '../path.ts';
import type { PartTrace, PayloadTrace } from '../trace.ts';
import type { IncrementalExecution } from './incrementalExecution.ts';
import type { DeliveryGroup, ItemStream, WorkQueueEvent } from './workQueue.ts';

type Part = DeliveryGroup | ItemStream;

export class DeliveryReport {
  private readonly initial: IncrementalExecution;
  private readonly parts = new Map<Part, PartTrace>();
  /** Streams by their list's position: a streamed item's execution stands there (its rootPath). */
  private readonly streamsAt = new Map<ResponsePath, PartTrace>();
  /** Per stream, the index of its next item. */
  private readonly nextItem = new Map<ItemStream, number>();
  private readonly payloads: PayloadTrace[] = [];
  /** Per execution whose value a payload carried: that payload, and the parts it ran for. */
  private readonly deliveredIn = new Map<object, { payload: number; parts: string[] }>();
  private nextId = 0;

  constructor(initial: IncrementalExecution) {
    this.initial = initial;
  }

  /** The first payload: the root's data, and the parts it announces (in `pending`'s order). */
  first(groups: ReadonlyArray<DeliveryGroup>, streams: ReadonlyArray<ItemStream>): void {
    if (this.initial.trace === null) return;
    const payload = this.open();
    payload.delivered.push('');
    this.announce(groups, streams, payload);
  }

  /** A later payload, made of `batch`: noted, and on the last, what the delivery reports put in its `extensions`. */
  payload<P extends { readonly hasNext: boolean; extensions?: Record<string, unknown> }>(batch: ReadonlyArray<WorkQueueEvent>, made: P): P {
    if (this.initial.trace !== null) this.note(batch, made.hasNext);
    if (made.hasNext) return made;
    const extensions: Record<string, unknown> = {};
    const request = this.initial.request;
    if (this.initial.actualCost !== null) extensions['cost'] = { actual: request.actualCost };
    const tracer = request.tracer;
    if (tracer !== null) {
      const attribution = (owner: object) => this.attribution(owner);
      extensions['trace'] = tracer.finish(request.plan, this.initial, { parts: [...this.parts.values()], payloads: this.payloads, attribution });
    }
    made.extensions = made.extensions === undefined ? extensions : { ...made.extensions, ...extensions };
    return made;
  }

  private open(): PayloadTrace {
    const payload: PayloadTrace = { atNs: (this.initial.trace as NonNullable<typeof this.initial.trace>).elapsedNs(), hasNext: true, pending: [], delivered: [], completed: [] };
    this.payloads.push(payload);
    return payload;
  }

  private note(batch: ReadonlyArray<WorkQueueEvent>, hasNext: boolean): void {
    const payload = this.open();
    payload.hasNext = hasNext;
    const index = this.payloads.length - 1;
    for (const event of batch) {
      switch (event.kind) {
        case 'GROUP_VALUES':
          for (const value of event.values) this.delivered(value, value.path.join('.'), index, payload);
          break;
        case 'STREAM_VALUES':
          for (const value of event.values) this.streamed(event.stream, value, index, payload);
          this.announce(event.newGroups, event.newStreams, payload);
          break;
        case 'GROUP_SUCCESS':
          this.completed(event.group, index, false, payload);
          this.announce(event.newGroups, event.newStreams, payload);
          break;
        case 'STREAM_SUCCESS':
          this.completed(event.stream, index, false, payload);
          break;
        case 'GROUP_FAILURE':
          this.completed(event.group, index, true, payload);
          break;
        case 'STREAM_FAILURE':
          this.completed(event.stream, index, true, payload);
          break;
        case 'WORK_QUEUE_TERMINATION':
          break;
      }
    }
  }

  /** Ids as the current format's publisher gives them: groups, then streams, in the order met. */
  private announce(groups: ReadonlyArray<DeliveryGroup>, streams: ReadonlyArray<ItemStream>, payload: PayloadTrace): void {
    const announcedIn = this.payloads.length - 1;
    for (const record of [...groups, ...streams]) {
      const kind = 'queue' in record ? 'stream' : 'defer';
      const part: PartTrace = { id: String(this.nextId++), kind, label: record.label ?? null, path: pathToArray(record.path).join('.'), announcedIn, completedIn: null, failed: false };
      this.parts.set(record, part);
      if (kind === 'stream') {
        this.streamsAt.set(record.path as ResponsePath, part);
        this.nextItem.set(record as ItemStream, (record as ItemStream).initialCount);
      }
      payload.pending.push(part.id);
    }
  }

  private streamed(stream: ItemStream, value: object, index: number, payload: PayloadTrace): void {
    const item = this.nextItem.get(stream) ?? stream.initialCount;
    this.nextItem.set(stream, item + 1);
    const path = pathToArray(stream.path);
    path.push(item);
    this.delivered(value, path.join('.'), index, payload);
  }

  private delivered(value: object, path: string, index: number, payload: PayloadTrace): void {
    payload.delivered.push(path);
    const owner = this.initial.request.valueOwners?.get(value);
    if (owner !== undefined && !this.deliveredIn.has(owner)) this.deliveredIn.set(owner, { payload: index, parts: this.partsOf(owner) });
  }

  private completed(record: Part, index: number, failed: boolean, payload: PayloadTrace): void {
    const part = this.parts.get(record);
    if (part === undefined) return;
    part.completedIn = index;
    part.failed = failed;
    payload.completed.push(part.id);
  }

  /** The parts an execution ran for: its execution group's deferred fragments, or its item's stream. */
  private partsOf(owner: IncrementalExecution): string[] {
    if (owner.kind === 'item') {
      const stream = owner.rootPath === undefined ? undefined : this.streamsAt.get(owner.rootPath);
      return stream === undefined ? [] : [stream.id];
    }
    const ids: string[] = [];
    for (const group of owner.groupsServed) {
      const part = this.parts.get(group);
      if (part !== undefined) ids.push(part.id);
    }
    return ids;
  }

  private attribution(owner: object): { payload: number | null; parts: string[] } {
    if (owner === this.initial) return { payload: 0, parts: [] };
    const delivered = this.deliveredIn.get(owner);
    if (delivered !== undefined) return delivered;
    // Never delivered: its part failed or was cancelled.
    return { payload: null, parts: this.partsOf(owner as IncrementalExecution) };
  }
}
