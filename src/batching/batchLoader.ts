/**
 * BatchLoader: many `load(key)` calls made while one request executes become one call of
 * `batchFn(keys)` per loader and level, and each caller gets its own key's result.
 *
 * The contract (the spec's batching rules, and DataLoader's where the spec is silent):
 *  - `batchFn` receives the unique keys, in the order they were first asked for, at most
 *    `maxBatchSize` at a time, and returns (or resolves to) an array aligned with the keys or a
 *    `Map` from key to value.
 *  - A key with no result resolves to null. An `Error` value fails only its key.
 *  - A batch that throws, rejects or returns the wrong shape fails every key in it, and none
 *    of them stays cached, so asking again calls `batchFn` again.
 *  - Results are cached per loader, and a loader lives for one request: create loaders in the
 *    per-request context, never share them.
 *
 * When a batch is sent is not decided here: under `execute()` with the loader in the context
 * (`holdsBatchLoader` below), the request's scheduler (scheduler.ts) sends it once no resolver can
 * progress without it; elsewhere, it goes after the current tick, as DataLoader does.
 */
import { LoadPromise, currentTask } from './scheduler.ts';
import type { DispatchObserver, Dispatchable } from './scheduler.ts';
import { batchHook } from './batchHook.ts';
import { describe } from '../jsutils/describe.ts';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { fastClass } from '../jsutils/fastClass.ts';

export type BatchResult<K, V> = ReadonlyArray<V | Error | null | undefined> | ReadonlyMap<K, V | Error | null | undefined>;

export type BatchFunction<K, V> = (keys: ReadonlyArray<K>) => BatchResult<K, V> | PromiseLike<BatchResult<K, V>>;

export interface BatchLoaderOptions<K, C> {
  /** At most this many keys per call of `batchFn` (a positive integer; default Infinity). */
  maxBatchSize?: number;
  /** Maps a key to the value it is cached and deduplicated under (for object keys). */
  cacheKeyFn?: (key: K) => C;
  /** Cache results for the loader's lifetime (default true). */
  cache?: boolean;
  /** Names the loader in error messages. */
  name?: string;
}

/** A key waiting to be sent, with the promise its callers hold. */
interface QueuedKey<K, V, C> {
  readonly key: K;
  readonly cacheKey: C;
  readonly promise: LoadPromise<V | null>;
  readonly resolve: (value: V | null) => void;
  readonly reject: (error: unknown) => void;
}

const OPTION_NAMES = ['maxBatchSize', 'cacheKeyFn', 'cache', 'name'];

/**
 * Whether any BatchLoader has been constructed in this process. Until one has, no context can
 * hold one, and `holdsBatchLoader` answers false without looking: the answer is the scan's, only
 * cheaper (its keyed reads cost about as much as a trivial execution). It never changes what an
 * execution does: that is decided by its context alone.
 */
let anyConstructed = false;

/**
 * How many properties of one object `holdsBatchLoader` looks at: a context is a handful of
 * values, and a context that is itself a large table must not cost a scan per request.
 */
const PROPERTIES_LOOKED_AT = 32;

/**
 * Whether an execution's context value holds a BatchLoader: as one of its own properties
 * (`context.authors`), or as a property of one of them (`context.loaders.authorById`), looking at
 * the first PROPERTIES_LOOKED_AT of each. An execution whose context holds one runs its resolvers
 * as tasks of a batch scheduler (execution/execution.ts, scheduler.ts), so that its loads go out
 * once per level; any other pays nothing for it: task tracking needs AsyncLocalStorage, which makes
 * resolver calls and promises dearer. A loader the context does not hold (made inside a resolver,
 * or shared by every request) still batches: its loads go out after the current tick.
 */
export function holdsBatchLoader(context: unknown): boolean {
  // The test every execution makes, small enough for V8 to inline anywhere (in the Execution
  // constructor, which stays small enough to be inlined in turn); the search in its own function.
  return anyConstructed && typeof context === 'object' && context !== null && searchForBatchLoader(context);
}

function searchForBatchLoader(context: object): boolean {
  let looked = 0;
  for (const key in context) {
    if (!Object.hasOwn(context, key)) continue;
    const value = (context as Record<string, unknown>)[key];
    if (value instanceof BatchLoader || (typeof value === 'object' && value !== null && !Array.isArray(value) && holdsDirectly(value))) return true;
    if (++looked === PROPERTIES_LOOKED_AT) return false;
  }
  return false;
}

/** Whether one of the first PROPERTIES_LOOKED_AT own properties of `holder` is a BatchLoader. */
function holdsDirectly(holder: object): boolean {
  let looked = 0;
  for (const key in holder) {
    if (!Object.hasOwn(holder, key)) continue;
    if ((holder as Record<string, unknown>)[key] instanceof BatchLoader) return true;
    if (++looked === PROPERTIES_LOOKED_AT) return false;
  }
  return false;
}

export class BatchLoader<K, V, C = K> implements Dispatchable {
  private readonly batchFn: BatchFunction<K, V>;
  private readonly maxBatchSize: number;
  private readonly cacheKeyFn: ((key: K) => C) | undefined;
  private readonly cache: Map<C, LoadPromise<V | null>> | null;
  readonly name: string;
  /** Keys asked for and not yet sent, in first-asked order, deduplicated by cache key. */
  private queue = new Map<C, QueuedKey<K, V, C>>();
  private tickScheduled = false;

  constructor(batchFn: BatchFunction<K, V>, options: BatchLoaderOptions<K, C> = {}) {
    if (typeof batchFn !== 'function') {
      throw new TypeError(`BatchLoader: batchFn must be a function that takes an array of keys, got ${describe(batchFn)}.`);
    }
    const name = 'name' in options ? options.name : 'unnamed';
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(`BatchLoader: name must be a non-empty string, got ${name === '' ? 'an empty string' : describe(name)}.`);
    }
    const prefix = `BatchLoader "${name}":`;
    for (const key of Object.keys(options)) {
      if (!OPTION_NAMES.includes(key)) {
        throw new TypeError(`${prefix} unknown option "${key}"; expected maxBatchSize, cacheKeyFn, cache or name.`);
      }
    }
    const maxBatchSize = 'maxBatchSize' in options ? options.maxBatchSize : Infinity;
    if (typeof maxBatchSize !== 'number' || (maxBatchSize !== Infinity && !(Number.isInteger(maxBatchSize) && maxBatchSize > 0))) {
      throw new TypeError(`${prefix} maxBatchSize must be a positive integer or Infinity, got ${String(maxBatchSize)}.`);
    }
    if (options.cacheKeyFn !== undefined && typeof options.cacheKeyFn !== 'function') {
      throw new TypeError(`${prefix} cacheKeyFn must be a function, got ${describe(options.cacheKeyFn)}.`);
    }
    const cache = 'cache' in options ? options.cache : true;
    if (typeof cache !== 'boolean') {
      throw new TypeError(`${prefix} cache must be true or false, got ${describe(cache)}.`);
    }
    this.batchFn = batchFn;
    this.maxBatchSize = maxBatchSize;
    this.cacheKeyFn = options.cacheKeyFn;
    this.cache = cache ? new Map() : null;
    this.name = name;
    anyConstructed = true;
  }

  /** The value for `key`: null when the batch had no result for it. */
  load(key: K): Promise<V | null> {
    if (key === null || key === undefined) {
      throw new TypeError(`BatchLoader "${this.name}": load() needs a key, got ${String(key)}.`);
    }
    const cacheKey = this.cacheKeyFn === undefined ? (key as unknown as C) : this.cacheKeyFn(key);
    const cached = this.cache?.get(cacheKey);
    if (cached !== undefined) return cached;
    const queued = this.queue.get(cacheKey);
    if (queued !== undefined) {
      // Cleared while queued and asked for again: the pending answer is the cached one again.
      this.cache?.set(cacheKey, queued.promise);
      return queued.promise;
    }

    let resolve!: (value: V | null) => void;
    let reject!: (error: unknown) => void;
    const promise = new LoadPromise<V | null>((resolvePromise, rejectPromise) => {
      resolve = resolvePromise;
      reject = rejectPromise;
    });
    const wasEmpty = this.queue.size === 0;
    this.queue.set(cacheKey, { key, cacheKey, promise, resolve, reject });
    this.cache?.set(cacheKey, promise);
    this.scheduleDispatch(wasEmpty);
    return promise;
  }

  /** Every key's value, or the Error that failed it; never rejects. */
  loadMany(keys: ReadonlyArray<K>): Promise<Array<V | null | Error>> {
    if (!Array.isArray(keys)) {
      throw new TypeError(`BatchLoader "${this.name}": loadMany() needs an array of keys, got ${describe(keys)}.`);
    }
    return Promise.all(keys.map((key) => this.load(key).then(undefined, (error: unknown) => toError(error))));
  }

  /** Caches a value (or, given an Error, a failure) for a key that is not cached yet. */
  prime(key: K, value: V | Error): this {
    if (this.cache === null) return this;
    const cacheKey = this.cacheKeyFn === undefined ? (key as unknown as C) : this.cacheKeyFn(key);
    if (this.cache.has(cacheKey)) return this;
    const promise = new LoadPromise<V | null>((resolve, reject) => (value instanceof Error ? reject(value) : resolve(value)));
    promise.markSettled();
    // A primed failure nobody asks for must not count as an unhandled rejection.
    if (value instanceof Error) promise.then(undefined, () => undefined);
    this.cache.set(cacheKey, promise);
    return this;
  }

  clear(key: K): this {
    const cacheKey = this.cacheKeyFn === undefined ? (key as unknown as C) : this.cacheKeyFn(key);
    this.cache?.delete(cacheKey);
    return this;
  }

  clearAll(): this {
    this.cache?.clear();
    return this;
  }

  /** Sends every queued key now, in chunks of at most `maxBatchSize`. */
  dispatch(): void {
    this.dispatchObserved(null);
  }

  /** dispatch(), telling `observer` (a traced execution's, from its scheduler) of each batch. */
  dispatchObserved(observer: DispatchObserver | null): void {
    if (this.queue.size === 0) return;
    const queued = [...this.queue.values()];
    this.queue = new Map();
    for (let start = 0; start < queued.length; start += this.maxBatchSize) {
      this.runBatch(queued.slice(start, start + this.maxBatchSize), observer);
    }
  }

  /** Under an execution, its scheduler decides; elsewhere, after the current tick (as DataLoader). */
  private scheduleDispatch(firstInQueue: boolean): void {
    const task = currentTask();
    if (task !== undefined) {
      task.scheduler.enqueue(this);
      return;
    }
    if (!firstInQueue || this.tickScheduled) return;
    this.tickScheduled = true;
    // After the promise jobs already queued in this turn, so loads made in them join the batch.
    Promise.resolve().then(() =>
      process.nextTick(() => {
        this.tickScheduled = false;
        this.dispatch();
      }),
    );
  }

  private runBatch(batch: ReadonlyArray<QueuedKey<K, V, C>>, observer: DispatchObserver | null): void {
    const keys = batch.map((entry) => entry.key);
    // A traced execution's scheduler sends this batch: its trace hears when it starts and when
    // its answer comes (before its loads settle, while their waiters are still known).
    const traced = observer === null ? -1 : observer.batchStarted(this.name, keys);
    // The process's hook (OpenTelemetry's batch spans), when one is set.
    const hook = batchHook();
    const hooked = hook === null ? undefined : hook.started(this.name, keys.length);
    let result: BatchResult<K, V> | PromiseLike<BatchResult<K, V>>;
    try {
      result = this.batchFn(keys);
    } catch (error) {
      hook?.settled(hooked, error);
      observer?.batchSettled(traced, loadsOf(batch));
      this.failBatch(batch, error);
      return;
    }
    if (isPromiseLike(result)) {
      result.then(
        (values) => {
          hook?.settled(hooked, undefined);
          observer?.batchSettled(traced, loadsOf(batch));
          this.settleBatch(batch, values);
        },
        (error: unknown) => {
          hook?.settled(hooked, error);
          observer?.batchSettled(traced, loadsOf(batch));
          this.failBatch(batch, error);
        },
      );
    } else {
      hook?.settled(hooked, undefined);
      observer?.batchSettled(traced, loadsOf(batch));
      this.settleBatch(batch, result);
    }
  }

  private settleBatch(batch: ReadonlyArray<QueuedKey<K, V, C>>, values: BatchResult<K, V>): void {
    if (values instanceof Map) {
      for (const entry of batch) {
        const value = values.has(entry.key) ? values.get(entry.key) : values.get(entry.cacheKey as unknown as K);
        settleKey(entry, value);
      }
      return;
    }
    if (!Array.isArray(values)) {
      this.failBatch(
        batch,
        new TypeError(`BatchLoader "${this.name}": batchFn must return an array or a Map (or a promise of one), got ${describe(values)}.`),
      );
      return;
    }
    if (values.length !== batch.length) {
      this.failBatch(
        batch,
        new Error(
          `BatchLoader "${this.name}": batchFn returned ${values.length} values for ${batch.length} keys; it must return one value per key, in key order, or a Map.`,
        ),
      );
      return;
    }
    for (let i = 0; i < batch.length; i++) settleKey(batch[i] as QueuedKey<K, V, C>, values[i]);
  }

  /** Every key of the batch fails, and none stays cached: asking again retries. */
  private failBatch(batch: ReadonlyArray<QueuedKey<K, V, C>>, error: unknown): void {
    for (const entry of batch) {
      if (this.cache?.get(entry.cacheKey) === entry.promise) this.cache.delete(entry.cacheKey);
      entry.promise.markSettled();
      entry.reject(error);
    }
  }
}
fastClass(BatchLoader);

function loadsOf<K, V, C>(batch: ReadonlyArray<QueuedKey<K, V, C>>): Array<LoadPromise<unknown>> {
  return batch.map((entry) => entry.promise as LoadPromise<unknown>);
}

function settleKey<K, V, C>(entry: QueuedKey<K, V, C>, value: V | Error | null | undefined): void {
  entry.promise.markSettled();
  if (value instanceof Error) entry.reject(value);
  else entry.resolve(value ?? null);
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
