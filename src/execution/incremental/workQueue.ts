/**
 * The work of an incremental response after its first payload, and the order it may be
 * delivered in (the Incremental Delivery RFC's "incremental graph").
 *
 * Three kinds of records, made by the executions (incrementalExecution.ts):
 *
 *  - a *delivery group* is one deferred fragment at one position of the response (a `@defer` on
 *    the items of a list makes one per item). It is delivered as a whole, never in part, and
 *    only after the group it is nested in (its `parent`), since its data is placed inside that
 *    group's. It is *completed* in the payload that carries the last of its data.
 *  - an *execution group* (a task) is the fields that one set of delivery groups asks for at one
 *    position: `{ ... @defer { a b } ... @defer { b c } }` makes three, `a` for the first group
 *    alone, `b` for both, `c` for the second alone, so that `b` runs once. A delivery group is
 *    ready when all its execution groups have run; an execution group that fails (an error that
 *    reaches its top) fails every delivery group it belongs to.
 *  - a *stream* is a list field's items after its `initialCount`: a Queue (queue.ts) of items,
 *    read in batches.
 *
 * Delivery groups at the top (no parent pending) and streams are *roots*: their work runs (unless
 * it already has: early execution) and their results are reported. Finishing a root promotes its
 * children. Work found while running a task (deeper defers, streams inside a deferred fragment)
 * joins the graph beneath it. The queue's events (GROUP_VALUES, GROUP_SUCCESS, GROUP_FAILURE,
 * STREAM_VALUES, STREAM_SUCCESS, STREAM_FAILURE, and last WORK_QUEUE_TERMINATION) go out in
 * batches (queue.ts): everything that happened since the reader last asked, which the publishers
 * (publisher.ts, legacyPublisher.ts) turn into one payload.
 *
 * This follows graphql 17.1.0's WorkQueue, so that the same operations give the same payloads.
 */
import type { Computation } from './computation.ts';
import { Queue } from './queue.ts';
import type { ResponsePath } from '../path.ts';
import type { GraphQLError } from 'graphql';

/** One deferred fragment at one position. */
export interface DeliveryGroup {
  readonly path: ResponsePath | undefined;
  readonly label: string | undefined;
  readonly parent: DeliveryGroup | undefined;
}

/** The fields one set of delivery groups asks for at one position, run once for all of them. */
export interface ExecutionGroup {
  readonly groups: ReadonlyArray<DeliveryGroup>;
  readonly path: ResponsePath | undefined;
  readonly computation: Computation<ExecutionGroupResult>;
}

/** A list field's items after the first `initialCount`. */
export interface ItemStream {
  readonly path: ResponsePath;
  readonly label: string | undefined;
  readonly initialCount: number;
  readonly queue: Queue<StreamItemResult>;
}

/** The records an execution made: new delivery groups, execution groups and streams. */
export interface IncrementalWork {
  readonly groups?: ReadonlyArray<DeliveryGroup> | undefined;
  readonly tasks?: ReadonlyArray<ExecutionGroup> | undefined;
  readonly streams?: ReadonlyArray<ItemStream> | undefined;
}

/** An execution group's data, where it goes, and the delivery groups it belongs to. */
export interface ExecutionGroupValue {
  readonly deliveryGroups: ReadonlyArray<DeliveryGroup>;
  readonly path: ReadonlyArray<string | number>;
  readonly errors?: ReadonlyArray<GraphQLError>;
  readonly data: Record<string, unknown>;
}

export interface ExecutionGroupResult {
  readonly value: ExecutionGroupValue;
  readonly work?: IncrementalWork | undefined;
}

export interface StreamItemValue {
  readonly item: unknown;
  readonly errors?: ReadonlyArray<GraphQLError>;
}

export interface StreamItemResult {
  readonly value: StreamItemValue;
  readonly work?: IncrementalWork | undefined;
}

/** What happened, for the publishers. */
export type WorkQueueEvent =
  | { readonly kind: 'GROUP_VALUES'; readonly group: DeliveryGroup; readonly values: ReadonlyArray<ExecutionGroupValue> }
  | { readonly kind: 'GROUP_SUCCESS'; readonly group: DeliveryGroup; readonly newGroups: ReadonlyArray<DeliveryGroup>; readonly newStreams: ReadonlyArray<ItemStream> }
  | { readonly kind: 'GROUP_FAILURE'; readonly group: DeliveryGroup; readonly error: unknown }
  | {
      readonly kind: 'STREAM_VALUES';
      readonly stream: ItemStream;
      readonly values: ReadonlyArray<StreamItemValue>;
      readonly newGroups: ReadonlyArray<DeliveryGroup>;
      readonly newStreams: ReadonlyArray<ItemStream>;
    }
  | { readonly kind: 'STREAM_SUCCESS'; readonly stream: ItemStream }
  | { readonly kind: 'STREAM_FAILURE'; readonly stream: ItemStream; readonly error: unknown }
  | { readonly kind: 'WORK_QUEUE_TERMINATION' };

/** What happened inside the graph, before it is turned into events. */
type GraphEvent =
  | { readonly kind: 'TASK_SUCCESS'; readonly task: ExecutionGroup; readonly result: ExecutionGroupResult }
  | { readonly kind: 'TASK_FAILURE'; readonly task: ExecutionGroup; readonly error: unknown }
  | { readonly kind: 'STREAM_ITEMS'; readonly stream: ItemStream; readonly items: Generator<StreamItemResult, void, void> }
  | { readonly kind: 'STREAM_SUCCESS'; readonly stream: ItemStream }
  | { readonly kind: 'STREAM_FAILURE'; readonly stream: ItemStream; readonly error: unknown };

interface GroupNode {
  readonly childGroups: DeliveryGroup[];
  readonly tasks: Set<ExecutionGroup>;
  pending: number;
}

interface TaskNode {
  value: ExecutionGroupValue | undefined;
  readonly childStreams: ItemStream[];
}

/** The work queue of one incremental response. */
export interface WorkQueue {
  /** The delivery groups and streams pending when the first payload goes (its `pending`). */
  readonly initialGroups: ReadonlyArray<DeliveryGroup>;
  readonly initialStreams: ReadonlyArray<ItemStream>;
  /** The events, in batches. */
  readonly events: AsyncGenerator<ReadonlyArray<WorkQueueEvent>, void, void>;
}

export function createWorkQueue(initialWork: IncrementalWork): WorkQueue {
  return new IncrementalGraph(initialWork).workQueue();
}

/** The graph itself: which groups and streams are roots now, and what waits beneath them. */
class IncrementalGraph {
  private readonly rootGroups = new Set<DeliveryGroup>();
  private readonly rootStreams = new Set<ItemStream>();
  private readonly groupNodes = new Map<DeliveryGroup, GroupNode>();
  private readonly taskNodes = new Map<ExecutionGroup, TaskNode>();
  private pushEvent: (event: GraphEvent) => Promise<void> | undefined = () => undefined;
  private stopEvents: () => unknown = () => undefined;
  private readonly initialGroups: ReadonlyArray<DeliveryGroup>;
  private readonly initialStreams: ReadonlyArray<ItemStream>;

  constructor(initialWork: IncrementalWork) {
    const { newGroups, newStreams } = this.integrate(initialWork, undefined);
    this.initialGroups = this.prune(newGroups);
    for (const group of this.initialGroups) this.rootGroups.add(group);
    for (const stream of newStreams) this.rootStreams.add(stream);
    this.initialStreams = newStreams;
  }

  workQueue(): WorkQueue {
    const events = new Queue<GraphEvent>((producer) => {
      this.pushEvent = producer.push;
      this.stopEvents = producer.stop;
      // Nothing runs before the client asks for the second payload (unless early execution did).
      producer.started.then(() => {
        for (const group of this.rootGroups) this.startGroup(group);
        for (const stream of this.rootStreams) void this.startStream(stream);
      });
      producer.onStop((reason) => this.cancel(reason));
    }, 1).subscribe((batch) => this.handle(batch));
    return { initialGroups: this.initialGroups, initialStreams: this.initialStreams, events };
  }

  /** The client left: every task and stream still pending is aborted. */
  private cancel(reason: unknown): Promise<void> | undefined {
    const pending: Array<Promise<unknown>> = [];
    const cancelStream = (stream: ItemStream) => {
      const aborted = stream.queue.abort(reason);
      if (aborted !== undefined) pending.push(aborted);
    };
    const cancelGroup = (group: DeliveryGroup): void => {
      const node = this.groupNodes.get(group);
      if (node === undefined) return;
      for (const task of node.tasks) {
        task.computation.abort(reason);
        for (const stream of this.taskNodes.get(task)?.childStreams ?? []) cancelStream(stream);
      }
      for (const child of node.childGroups) cancelGroup(child);
    };
    for (const group of this.rootGroups) cancelGroup(group);
    for (const stream of this.rootStreams) cancelStream(stream);
    return pending.length > 0 ? Promise.allSettled(pending).then(() => undefined) : undefined;
  }

  /** Adds what an execution found; returns the new root groups and streams (with no parent task, they are roots). */
  private integrate(work: IncrementalWork | undefined, parentTask: ExecutionGroup | undefined): { newGroups: DeliveryGroup[]; newStreams: ItemStream[] } {
    if (work === undefined) return { newGroups: [], newStreams: [] };
    const newGroups = work.groups ? this.addGroups(work.groups, parentTask) : [];
    for (const task of work.tasks ?? []) this.addTask(task);
    let newStreams: ItemStream[] = [];
    if (work.streams !== undefined) {
      if (parentTask === undefined) newStreams = [...work.streams];
      else this.taskNodes.get(parentTask)?.childStreams.push(...work.streams);
    }
    return { newGroups, newStreams };
  }

  private addGroups(groups: ReadonlyArray<DeliveryGroup>, parentTask: ExecutionGroup | undefined): DeliveryGroup[] {
    const added = new Set(groups);
    const visited = new Set<DeliveryGroup>();
    const newRoots: DeliveryGroup[] = [];
    const add = (group: DeliveryGroup): void => {
      if (visited.has(group)) return;
      visited.add(group);
      const parent = group.parent;
      if (parent !== undefined) {
        if (added.has(parent)) add(parent);
        // A group whose parent is gone (delivered, or failed) is dropped with it.
        if (!this.groupNodes.has(parent)) return;
      }
      this.groupNodes.set(group, { childGroups: [], tasks: new Set(), pending: 0 });
      if (parent !== undefined) this.groupNodes.get(parent)?.childGroups.push(group);
      else if (parentTask === undefined) newRoots.push(group);
    };
    for (const group of groups) add(group);
    return newRoots;
  }

  private addTask(task: ExecutionGroup): void {
    for (const group of task.groups) {
      const node = this.groupNodes.get(group);
      if (node === undefined) continue;
      node.tasks.add(task);
      node.pending++;
      if (this.rootGroups.has(group)) this.startTask(task);
    }
  }

  /** Groups without tasks of their own are skipped over: their children take their place. */
  private prune(groups: ReadonlyArray<DeliveryGroup>, kept: DeliveryGroup[] = []): DeliveryGroup[] {
    for (const group of groups) {
      const node = this.groupNodes.get(group);
      if (node === undefined) continue;
      if (node.tasks.size === 0) {
        this.groupNodes.delete(group);
        this.prune(node.childGroups, kept);
      } else {
        kept.push(group);
      }
    }
    return kept;
  }

  private startGroup(group: DeliveryGroup): void {
    for (const task of this.groupNodes.get(group)?.tasks ?? []) this.startTask(task);
  }

  /** Runs a task (or takes its result, when early execution ran it) and reports how it ended. */
  private startTask(task: ExecutionGroup): void {
    const started = this.taskNodes.has(task);
    if (!started) this.taskNodes.set(task, { value: undefined, childStreams: [] });
    try {
      const result = task.computation.result();
      if (started) return;
      if (result instanceof Promise) {
        result.then(
          (resolved) => this.pushEvent({ kind: 'TASK_SUCCESS', task, result: resolved }),
          (error: unknown) => this.pushEvent({ kind: 'TASK_FAILURE', task, error }),
        );
      } else {
        this.pushEvent({ kind: 'TASK_SUCCESS', task, result });
      }
    } catch (error) {
      this.pushEvent({ kind: 'TASK_FAILURE', task, error });
    }
  }

  /** Reads a stream's batches of items into events, then its end. */
  private async startStream(stream: ItemStream): Promise<void> {
    try {
      await stream.queue.forEachBatch(async (items) => {
        const pushed = this.pushEvent({ kind: 'STREAM_ITEMS', stream, items });
        if (pushed !== undefined) await pushed;
      });
      this.pushEvent({ kind: 'STREAM_SUCCESS', stream });
    } catch (error) {
      this.pushEvent({ kind: 'STREAM_FAILURE', stream, error });
    }
  }

  /** One batch of graph events into the events of one payload (undefined: nothing to send). */
  private handle(batch: Generator<GraphEvent, void, void>): WorkQueueEvent[] | undefined {
    const events: WorkQueueEvent[] = [];
    for (const event of batch) {
      switch (event.kind) {
        case 'TASK_SUCCESS':
          events.push(...this.taskSucceeded(event.task, event.result));
          break;
        case 'TASK_FAILURE':
          events.push(...this.taskFailed(event.task, event.error));
          break;
        case 'STREAM_ITEMS':
          events.push(...this.streamItems(event.stream, event.items));
          break;
        case 'STREAM_SUCCESS':
          if (this.rootStreams.delete(event.stream)) events.push(event);
          break;
        case 'STREAM_FAILURE':
          this.rootStreams.delete(event.stream);
          events.push(event);
          break;
      }
    }
    if (this.rootGroups.size === 0 && this.rootStreams.size === 0) {
      this.stopEvents();
      events.push({ kind: 'WORK_QUEUE_TERMINATION' });
    }
    return events.length > 0 ? events : undefined;
  }

  private taskSucceeded(task: ExecutionGroup, result: ExecutionGroupResult): WorkQueueEvent[] {
    const node = this.taskNodes.get(task);
    if (node === undefined) return [];
    node.value = result.value;
    this.integrate(result.work, task);
    const events: WorkQueueEvent[] = [];
    const newGroups: DeliveryGroup[] = [];
    const newStreams: ItemStream[] = [];
    for (const group of task.groups) {
      const groupNode = this.groupNodes.get(group);
      if (groupNode === undefined) continue;
      groupNode.pending--;
      this.maybeFinishGroup(group, groupNode, events, newGroups, newStreams);
    }
    return [...events, ...this.startNewWork(newGroups, newStreams)];
  }

  private taskFailed(task: ExecutionGroup, error: unknown): WorkQueueEvent[] {
    if (!this.taskNodes.has(task)) return [];
    const events: WorkQueueEvent[] = [];
    for (const group of task.groups) {
      const node = this.groupNodes.get(group);
      if (node === undefined || !this.rootGroups.has(group)) continue;
      this.removeGroup(group, node);
      events.push({ kind: 'GROUP_FAILURE', group, error });
    }
    return events;
  }

  private streamItems(stream: ItemStream, items: Generator<StreamItemResult, void, void>): WorkQueueEvent[] {
    const values: StreamItemValue[] = [];
    const newGroups: DeliveryGroup[] = [];
    const newStreams: ItemStream[] = [];
    for (const { value, work } of items) {
      const found = this.integrate(work, undefined);
      const groups = this.prune(found.newGroups);
      this.startNewWork(groups, found.newStreams);
      values.push(value);
      newGroups.push(...groups);
      newStreams.push(...found.newStreams);
    }
    const event: WorkQueueEvent = { kind: 'STREAM_VALUES', stream, values, newGroups, newStreams };
    if (!stream.queue.isStopped()) return [event];
    this.rootStreams.delete(stream);
    return [event, { kind: 'STREAM_SUCCESS', stream }];
  }

  /** New roots start; a new root group whose tasks all ran already finishes at once. */
  private startNewWork(newGroups: ReadonlyArray<DeliveryGroup>, newStreams: ReadonlyArray<ItemStream>): WorkQueueEvent[] {
    const events: WorkQueueEvent[] = [];
    const groups = [...newGroups];
    const streams = [...newStreams];
    for (const group of groups) {
      this.rootGroups.add(group);
      this.startGroup(group);
      const node = this.groupNodes.get(group);
      if (node !== undefined) this.maybeFinishGroup(group, node, events, groups, streams);
    }
    for (const stream of streams) {
      this.rootStreams.add(stream);
      void this.startStream(stream);
    }
    return events;
  }

  private maybeFinishGroup(group: DeliveryGroup, node: GroupNode, events: WorkQueueEvent[], newGroups: DeliveryGroup[], newStreams: ItemStream[]): void {
    if (!this.rootGroups.has(group) || node.pending !== 0) return;
    this.groupNodes.delete(group);
    const values: ExecutionGroupValue[] = [];
    const streams: ItemStream[] = [];
    for (const task of node.tasks) {
      const taskNode = this.taskNodes.get(task);
      if (taskNode === undefined) continue;
      if (taskNode.value !== undefined) values.push(taskNode.value);
      streams.push(...taskNode.childStreams);
      this.removeTask(task);
    }
    const children = this.prune(node.childGroups);
    this.rootGroups.delete(group);
    if (values.length > 0) events.push({ kind: 'GROUP_VALUES', group, values });
    events.push({ kind: 'GROUP_SUCCESS', group, newGroups: children, newStreams: streams });
    newGroups.push(...children);
    newStreams.push(...streams);
  }

  private removeGroup(group: DeliveryGroup, node: GroupNode): void {
    this.rootGroups.delete(group);
    this.groupNodes.delete(group);
    for (const task of node.tasks) {
      if (task.groups.every((other) => !this.groupNodes.has(other))) this.removeTask(task);
    }
    for (const child of node.childGroups) {
      const childNode = this.groupNodes.get(child);
      if (childNode !== undefined) this.removeGroup(child, childNode);
    }
  }

  private removeTask(task: ExecutionGroup): void {
    for (const group of task.groups) this.groupNodes.get(group)?.tasks.delete(task);
    this.taskNodes.delete(task);
  }
}
