/**
 * The batch scheduler: when may the loads queued during one execution be sent?
 *
 * THE RULE. Send them when nothing in the execution can make progress without them: when every
 * resolver call still in flight is waiting on a load. Until then, some call is running, or
 * waiting on something else (microtasks, a timer, I/O), and may still ask for keys that belong
 * in the same batch. Once every call in flight waits on a load, no new key can arrive before
 * the loads are answered, so sending now loses nothing and waiting longer only adds latency.
 * That gives one batch per loader per level, however many awaits each resolver makes before
 * calling `load()`.
 *
 * DataLoader instead sends at the end of the current tick. A resolver that reaches `load()`
 * one microtask or one `setImmediate` later than its siblings misses the batch, and the batch
 * splits. The scheduler counts; it does not guess from timing.
 *
 * HOW IT KNOWS. Every call of a user function that the executor makes runs as a `Task`, carried
 * through `await`s by an AsyncLocalStorage. A task is *in flight* while the executor awaits
 * values it produced, and *waiting on a load* while it awaits a load's promise: a load's
 * promise (`LoadPromise`) notes which task calls `then` on it (`await` and `Promise.all` do),
 * and un-notes it when it settles. `running` counts the tasks in flight that wait on no load;
 * when it is zero and loads are queued, they go out. The check runs in a microtask, so a
 * resolver that calls `load()` twice in a row still puts both keys in one batch.
 *
 * THE SAFETY NET. A resolver can wait on a load without calling `then` on its promise, through
 * a promise made in another resolver's async function. Counted as running, it would hold the
 * batch forever. So if loads are queued and no task has changed state for `STALL_MS`, they go
 * out anyway. This only ever fires on such a hidden wait, or on a resolver stuck for that long
 * on slow I/O. It is a guard against a hang, never the way batches are normally formed.
 *
 * COST. Tracking tasks takes AsyncLocalStorage, which makes each resolver call and, on Node 20,
 * every promise dearer. So an execution makes a scheduler (and runs tasks) only when its context
 * value holds a BatchLoader (batchLoader.ts `holdsBatchLoader`, read where each execution starts:
 * execution/execution.ts); other executions pay nothing, and loads of a loader the context does
 * not hold go out after the current tick.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** No task has changed state for this long while loads wait: send them (see THE SAFETY NET). */
export const STALL_MS = 50;

/** Something that holds queued loads: the scheduler only tells it when to send them. */
export interface Dispatchable {
  /** Sends every queued load now; `observer` (a traced execution's) hears of each batch. */
  dispatchObserved(observer: DispatchObserver | null): void;
}

/**
 * Told of every batch a scheduler sends, with the loads in it: an execution's trace
 * (execution/trace.ts). Set on a scheduler only while tracing, so other executions pay nothing.
 */
export interface DispatchObserver {
  /** A batch function is about to be called with these keys: returns the batch's index. */
  batchStarted(loader: string, keys: ReadonlyArray<unknown>): number;
  /** Its answer came (or it threw); its loads, whose waiters are still recorded, settle next. */
  batchSettled(batch: number, loads: ReadonlyArray<LoadPromise<unknown>>): void;
}

/** The task the code running now runs for, carried through its awaits. */
const taskScope = new AsyncLocalStorage<Task>();

/** The task the calling code runs for, if it runs under an execution that tracks tasks. */
export function currentTask(): Task | undefined {
  return taskScope.getStore();
}

/** Runs `fn(...args)` as a new task of `scheduler`: its awaits, and the loads it awaits, count as this task's. */
export function runAsTask<A extends unknown[], R>(scheduler: BatchScheduler, fn: (...args: A) => R, ...args: A): R {
  return taskScope.run(new Task(scheduler), fn, ...args);
}

/** One call of a user function (a resolver, or the root of an execution). */
export class Task {
  readonly scheduler: BatchScheduler;
  /** Values this call produced that the executor still awaits. */
  pendingValues = 0;
  /** Loads this call awaits that have not settled. */
  awaitedLoads = 0;

  constructor(scheduler: BatchScheduler) {
    this.scheduler = scheduler;
  }
}

/** One per execution: counts its running tasks and sends its queued loads when none is left. */
export class BatchScheduler {
  /** Told of each batch this scheduler sends, while its execution is traced. */
  observer: DispatchObserver | null = null;
  /** Tasks in flight that wait on no load. */
  private running = 0;
  private readonly queued = new Set<Dispatchable>();
  private checkScheduled = false;
  private stallTimer: ReturnType<typeof setTimeout> | null = null;
  /** Bumped on every change of a task's state, so the safety net can tell a stall from progress. */
  private changes = 0;

  /** A loader queued a key for this execution. */
  enqueue(loader: Dispatchable): void {
    this.queued.add(loader);
    this.scheduleCheck();
  }

  /** The executor started (+1) or finished (-1) awaiting a value the task produced. */
  valuePending(task: Task, delta: 1 | -1): void {
    this.change(task, delta, 0);
  }

  /** The task started (+1) or stopped (-1) awaiting a load. */
  loadAwaited(task: Task, delta: 1 | -1): void {
    this.change(task, 0, delta);
  }

  private change(task: Task, values: number, loads: number): void {
    const wasRunning = task.pendingValues > 0 && task.awaitedLoads === 0;
    task.pendingValues += values;
    task.awaitedLoads += loads;
    const isRunning = task.pendingValues > 0 && task.awaitedLoads === 0;
    this.changes++;
    if (wasRunning === isRunning) return;
    this.running += isRunning ? 1 : -1;
    if (this.running === 0 && this.queued.size > 0) this.scheduleCheck();
  }

  private scheduleCheck(): void {
    if (this.checkScheduled) return;
    this.checkScheduled = true;
    queueMicrotask(() => {
      this.checkScheduled = false;
      if (this.queued.size === 0) return;
      if (this.running === 0) this.dispatchAll();
      else this.armStallTimer();
    });
  }

  private dispatchAll(): void {
    if (this.stallTimer !== null) {
      clearTimeout(this.stallTimer);
      this.stallTimer = null;
    }
    const loaders = [...this.queued];
    this.queued.clear();
    for (const loader of loaders) loader.dispatchObserved(this.observer);
  }

  private armStallTimer(): void {
    if (this.stallTimer !== null) return;
    const seen = this.changes;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null;
      if (this.queued.size === 0) return;
      if (this.running === 0 || this.changes === seen) this.dispatchAll();
      else this.armStallTimer();
    }, STALL_MS);
  }
}

/**
 * The promise `load()` returns: a native promise that also tells the scheduler which task
 * awaits it. Promises derived from it (`.then(...)`) are plain promises.
 */
export class LoadPromise<T> extends Promise<T> {
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  private settled = false;
  private waiters: Task[] | null = null;

  override then<R1 = T, R2 = never>(
    onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    if (!this.settled) {
      const task = currentTask();
      if (task !== undefined) {
        (this.waiters ??= []).push(task);
        task.scheduler.loadAwaited(task, 1);
      }
    }
    return super.then(onFulfilled, onRejected);
  }

  /** The tasks awaiting it now: a trace reads them just before it settles (see DispatchObserver). */
  awaitingTasks(): ReadonlyArray<Task> {
    return this.waiters ?? [];
  }

  /** Called by the loader just before it resolves or rejects this promise. */
  markSettled(): void {
    this.settled = true;
    const waiters = this.waiters;
    if (waiters === null) return;
    this.waiters = null;
    for (const task of waiters) task.scheduler.loadAwaited(task, -1);
  }
}
