/**
 * A queue that hands its values out in batches: everything that has arrived by the time the
 * reader asks is read at once, as one batch.
 *
 * Incremental delivery (the Incremental Delivery RFC) leaves open what goes into one payload;
 * graphql 17 sends together whatever is ready when the client asks for the next payload. This
 * queue is how: a producer `push`es values (or promises of them) in order, and a reader waits
 * for the next batch, which is every value at the head of the queue that has settled, up to the
 * first one still pending. A value that failed ends the queue with its error, once the values
 * before it have been read.
 *
 * Two queues of this kind drive incremental delivery (workQueue.ts): one per streamed list, fed
 * by the loop that reads the list's items (capacity 100: the loop waits while that many items
 * are unread), and one for the events of the whole operation, which the publisher turns into
 * payloads (capacity 1).
 *
 * Stopping: the producer calls `stop()` when it has no more values (or `stop(error)` when it
 * failed); the reader may `cancel()` (the client stopped reading) or `abort(reason)`. Cleanups
 * registered with `onStop` run once, on whichever stop comes first.
 */
import { isPromiseLike } from '../../jsutils/isPromiseLike.ts';
import { closeAbruptly } from './abruptClose.ts';

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: unknown };
type Entry<T> = { kind: 'item'; settled: Settled<T> | undefined } | { kind: 'stop' };

interface BatchRequest<T> {
  resolve(batch: Generator<T, void, void> | undefined): void;
  reject(reason: unknown): void;
}

/** What the producer gets. */
export interface QueueProducer<T> {
  /** Adds a value; returns a promise while the queue is at capacity (wait for it before pushing more). */
  push(value: T | Promise<T>): Promise<void> | undefined;
  /** No more values (or, with a reason, the producer failed). */
  stop(reason?: unknown): Promise<void> | undefined;
  /** Runs `cleanup` when the queue stops, whichever way. */
  onStop(cleanup: (reason?: unknown) => unknown): void;
  /** Resolves when a reader starts reading. */
  started: Promise<void>;
}

export class Queue<T> {
  private capacity: number;
  private backlog = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly entries: Array<Entry<T>> = [];
  private stopped = false;
  private stopRequested = false;
  private stopCompletion: Promise<void> | undefined;
  private readonly cleanups: Array<(reason?: unknown) => unknown> = [];
  private requests = new Set<BatchRequest<T>>();
  private readonly resolveStarted: () => void;

  constructor(produce: (producer: QueueProducer<T>) => unknown, capacity = 1) {
    this.capacity = Math.max(1, Math.floor(capacity));
    let resolveStarted!: () => void;
    const started = new Promise<void>((resolve) => (resolveStarted = resolve));
    this.resolveStarted = resolveStarted;
    try {
      const running = produce({
        push: (value) => this.push(value),
        stop: (reason) => this.stop(reason),
        onStop: (cleanup) => this.onStop(cleanup),
        started,
      });
      if (running instanceof Promise) running.catch((error: unknown) => this.stop(error));
    } catch (error) {
      this.stop(error)?.catch(() => undefined);
    }
  }

  /** The batches, each reduced by `reduce` (undefined results are skipped), as an async iterator. */
  subscribe<R>(reduce: (batch: Generator<T, void, void>) => R | Promise<R> | undefined): AsyncGenerator<R, void, void> {
    return closeAbruptly(this.batches(reduce), () => this.cancel(), (reason) => this.abort(reason));
  }

  /** Calls `reduce` with each batch until the queue ends; rejects with the error that ended it. */
  async forEachBatch(reduce: (batch: Generator<T, void, void>) => Promise<void>): Promise<void> {
    const batches = this.subscribe(async (batch) => {
      let drained!: () => void;
      const done = new Promise<void>((resolve) => (drained = resolve));
      const whole = (function* () {
        yield* batch;
        drained();
      })();
      await Promise.all([reduce(whole), done]);
    });
    for await (const _ of batches);
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** The reader stops reading: no more batches. */
  cancel(): Promise<void> | undefined {
    if (this.stopRequested) return this.stopCompletion;
    return this.terminate(undefined, () => {
      this.stopped = true;
      for (const request of this.requests) request.resolve(undefined);
      this.requests.clear();
    });
  }

  /** The reader aborts: the next batch fails with `reason`. */
  abort(reason: unknown): Promise<void> | undefined {
    if (this.stopRequested) return this.stopCompletion;
    return this.terminate(reason, () => {
      this.stopped = true;
      if (this.requests.size > 0) {
        for (const request of this.requests) request.reject(reason);
        this.requests.clear();
        return;
      }
      this.entries.push({ kind: 'item', settled: { ok: false, reason } });
    });
  }

  private async *batches<R>(reduce: (batch: Generator<T, void, void>) => R | Promise<R> | undefined): AsyncGenerator<R, void, void> {
    this.resolveStarted();
    let batch: Generator<T, void, void> | undefined;
    while ((batch = await this.nextBatch())) {
      let reduced = reduce(batch);
      if (isPromiseLike(reduced)) reduced = await reduced;
      if (reduced !== undefined) yield reduced as R;
    }
  }

  private nextBatch(): Promise<Generator<T, void, void> | undefined> {
    return new Promise((resolve, reject) => {
      this.requests.add({ resolve, reject });
      this.deliverIfReady();
    });
  }

  private push(value: T | Promise<T>): Promise<void> | undefined {
    if (this.stopRequested) return undefined;
    const wait = this.reserve();
    if (value instanceof Promise) {
      const entry: Entry<T> = { kind: 'item', settled: undefined };
      this.entries.push(entry);
      value.then(
        (resolved) => {
          entry.settled = { ok: true, value: resolved };
          this.deliverIfReady();
        },
        (reason: unknown) => {
          entry.settled = { ok: false, reason };
          this.deliverIfReady();
        },
      );
    } else {
      this.entries.push({ kind: 'item', settled: { ok: true, value } });
      this.deliverIfReady();
    }
    return wait;
  }

  private stop(reason?: unknown): Promise<void> | undefined {
    if (this.stopRequested) return this.stopCompletion;
    const completion = this.runCleanups(reason, () => {
      if (reason !== undefined) this.entries.push({ kind: 'item', settled: { ok: false, reason } });
      else if (this.entries.length === 0) {
        this.stopped = true;
        this.deliverIfReady();
        return;
      }
      this.entries.push({ kind: 'stop' });
      this.deliverIfReady();
    });
    completion?.catch(() => undefined);
    return completion;
  }

  private onStop(cleanup: (reason?: unknown) => unknown): void {
    if (this.stopRequested) throw new Error('Cannot register onStop cleanup after stop has been requested.');
    this.cleanups.push(cleanup);
  }

  /** A value was pushed: a promise to wait on when the backlog has reached capacity. */
  private reserve(): Promise<void> | undefined {
    this.backlog += 1;
    if (this.backlog < this.capacity) return undefined;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(): void {
    if (this.backlog > 0) this.backlog -= 1;
    while (this.waiters.length > 0 && this.backlog < this.capacity) this.waiters.shift()?.();
  }

  private terminate(reason: unknown, after: () => void): Promise<void> | undefined {
    for (const entry of this.entries) if (entry.kind === 'item') this.release();
    this.entries.length = 0;
    return this.runCleanups(reason, after);
  }

  private runCleanups(reason: unknown, after: () => void): Promise<void> | undefined {
    this.stopRequested = true;
    const pending: Array<Promise<unknown>> = [];
    for (const cleanup of this.cleanups) {
      try {
        const result = cleanup(reason);
        if (result instanceof Promise) pending.push(result);
      } catch {
        // A cleanup's failure stops nothing else.
      }
    }
    if (pending.length === 0) {
      after();
      return undefined;
    }
    this.stopCompletion = Promise.allSettled(pending).then(after, after).then(() => undefined);
    return this.stopCompletion;
  }

  /** Answers the waiting readers when the head of the queue has settled (or the queue ended). */
  private deliverIfReady(): void {
    if (this.requests.size === 0) return;
    const head = this.entries[0];
    const requests = this.requests;
    if (head === undefined) {
      if (!this.stopped) return;
      this.requests = new Set();
      for (const request of requests) request.resolve(undefined);
      return;
    }
    if (head.kind === 'stop' || head.settled === undefined) return;
    this.requests = new Set();
    if (head.settled.ok) {
      for (const request of requests) request.resolve(this.drain());
      return;
    }
    const { reason } = head.settled;
    this.entries.shift();
    this.release();
    this.stopped = true;
    for (const request of requests) request.reject(reason);
  }

  /** The settled values at the head of the queue, read as the batch is read. */
  private *drain(): Generator<T, void, void> {
    for (;;) {
      const entry = this.entries[0];
      if (entry === undefined) return;
      if (entry.kind === 'stop') {
        this.stopped = true;
        this.entries.shift();
        return;
      }
      if (entry.settled === undefined || !entry.settled.ok) return;
      this.entries.shift();
      this.release();
      yield entry.settled.value;
    }
  }
}
