/**
 * The continuations of one request that have not settled yet, and the object failures that
 * wait for some of them.
 *
 * Why failures wait: when a Non-Null field of an object fails synchronously while earlier
 * fields of the same object are still pending, graphql-js does not null the object at once. It
 * waits until those pending fields have settled (`Promise.all` over them: all fulfilled, or the
 * first rejection), and only then propagates the error. Until then, errors raised inside the
 * pending fields are still reported. The spec leaves this timing open; we follow graphql-js so
 * that the two report the same errors.
 *
 * graphql-js gets this behaviour from a promise per object and per list. We get it without any
 * of those promises: each pending continuation is a record in a list, and a *deferred failure*
 * counts the records beneath its object that it waits for. It fires when the count reaches zero,
 * or at once when a Non-Null error rises into its object from below (the first rejection).
 * A part of the response that has been nulled no longer holds anyone up, exactly as a field's
 * promise in graphql-js settles once its error is handled.
 *
 * On the happy path this costs one record per continuation and nothing else: counting only
 * happens while a deferred failure exists.
 *
 * graphql 17 does neither (graphqlCompat.ts ABANDONS_NULLED_WORK): a failing object fails at once,
 * and the response is built without waiting for what is still pending inside a part an error has
 * nulled. Such continuations are *abandoned*: no longer counted, they settle unseen.
 */
import type { ResponsePath } from './path.ts';

/** Where errors have nulled the response so far (undefined: the root); null while nowhere. */
export interface NulledPositions {
  readonly nulled: ReadonlySet<ResponsePath | undefined> | null;
}

/** One pending continuation at one response position. */
export interface Continuation {
  /** Undefined for the root (a deferred failure of the root selection set). */
  readonly path: ResponsePath | undefined;
  readonly seq: number;
  /** The deferred failures that wait for this continuation. */
  waitedOnBy: DeferredFailure[] | null;
  /** No longer waited for (abandon): it is out of the list, and its settling counts for nothing. */
  abandoned: boolean;
  previous: Continuation | null;
  next: Continuation | null;
}

/** An object whose synchronous failure waits for the continuations beneath it. */
interface DeferredFailure {
  readonly position: ResponsePath | undefined;
  readonly depth: number;
  readonly error: unknown;
  readonly reject: (error: unknown) => void;
  waitingFor: number;
  fired: boolean;
}

export class PendingWork {
  /** How many continuations are pending. */
  size = 0;
  private seq = 0;
  private last: Continuation | null = null;
  private deferred: Map<ResponsePath | undefined, DeferredFailure> | null = null;
  private unfired = 0;
  /** The execution, whose record of nulled positions decides what is cut off. */
  private readonly errors: NulledPositions;

  constructor(errors: NulledPositions) {
    this.errors = errors;
  }

  /** A point in time: continuations added after it have a `seq` at or above it. */
  mark(): number {
    return this.seq;
  }

  add(path: ResponsePath | undefined): Continuation {
    const continuation: Continuation = { path, seq: this.seq++, waitedOnBy: null, abandoned: false, previous: this.last, next: null };
    if (this.last !== null) this.last.next = continuation;
    this.last = continuation;
    this.size++;
    if (this.unfired > 0) this.countForDeferredAbove(continuation);
    return continuation;
  }

  /** A continuation settled: the failures waiting for it may now fire. */
  done(continuation: Continuation): void {
    if (continuation.abandoned) return;
    this.unlink(continuation);
    const waiters = continuation.waitedOnBy;
    if (waiters !== null) {
      continuation.waitedOnBy = null;
      for (const failure of waiters) {
        if (!failure.fired && --failure.waitingFor === 0) this.fire(failure);
      }
    }
  }

  /**
   * The object at `position` failed synchronously with `error`. If continuations added since
   * `since` are pending beneath it (and not inside a part already nulled), the failure waits for
   * them: returns a promise that rejects with `error` when they have settled. Otherwise returns
   * null, and the caller propagates the error at once.
   */
  defer(position: ResponsePath | undefined, since: number, error: unknown): Promise<never> | null {
    const waitedFor: Continuation[] = [];
    for (let continuation = this.last; continuation !== null && continuation.seq >= since; continuation = continuation.previous) {
      if (!this.isCutOffBelow(continuation.path, position)) waitedFor.push(continuation);
    }
    if (waitedFor.length === 0) return null;
    let reject!: (error: unknown) => void;
    const promise = new Promise<never>((_, rejectPromise) => {
      reject = rejectPromise;
    });
    const failure: DeferredFailure = { position, depth: depthOf(position), error, reject, waitingFor: waitedFor.length, fired: false };
    for (const continuation of waitedFor) (continuation.waitedOnBy ??= []).push(failure);
    (this.deferred ??= new Map()).set(position, failure);
    this.unfired++;
    return promise;
  }

  /**
   * A Non-Null error rose out of a child of the object at `position`. If that object's failure is
   * deferred, this is the first rejection it waits for: it fires now (with its own error, the
   * one graphql-js reports) and the rising error goes no further. Returns whether it stopped here.
   */
  stopsAt(position: ResponsePath | undefined): boolean {
    const failure = this.deferred?.get(position);
    if (failure === undefined) return false;
    if (!failure.fired) this.fire(failure);
    return true;
  }

  /**
   * The response at `position` was nulled: what is still pending beneath it no longer holds up
   * any failure above it.
   */
  detach(position: ResponsePath | undefined): void {
    if (this.unfired === 0) return;
    const depth = depthOf(position);
    // Failures are fired after the walk, not during it: firing one detaches again, which edits
    // the very waiter lists this loop is reading.
    const ready: DeferredFailure[] = [];
    for (let continuation = this.last; continuation !== null; continuation = continuation.previous) {
      const waiters = continuation.waitedOnBy;
      if (waiters === null || !isStrictlyBelow(continuation.path, position)) continue;
      for (let i = waiters.length - 1; i >= 0; i--) {
        const failure = waiters[i] as DeferredFailure;
        if (failure.depth < depth && !failure.fired) {
          waiters.splice(i, 1);
          if (--failure.waitingFor === 0) ready.push(failure);
        }
      }
    }
    for (const failure of ready) {
      if (!failure.fired) this.fire(failure);
    }
  }

  /**
   * The response at `position` (undefined: the root) was nulled, and nothing pending beneath it is
   * waited for any more (graphql 17): those continuations are abandoned.
   */
  abandon(position: ResponsePath | undefined): void {
    for (let continuation = this.last; continuation !== null; ) {
      const previous = continuation.previous;
      if (isAtOrBelow(continuation.path, position)) {
        this.unlink(continuation);
        continuation.abandoned = true;
      }
      continuation = previous;
    }
  }

  private unlink(continuation: Continuation): void {
    const { previous, next } = continuation;
    if (previous !== null) previous.next = next;
    if (next !== null) next.previous = previous;
    else this.last = previous;
    this.size--;
  }

  private fire(failure: DeferredFailure): void {
    failure.fired = true;
    this.unfired--;
    this.detach(failure.position);
    failure.reject(failure.error);
  }

  /** A new continuation beneath a deferred failure is waited for too, unless cut off by a null. */
  private countForDeferredAbove(continuation: Continuation): void {
    const nulled = this.errors.nulled;
    const deferred = this.deferred as Map<ResponsePath | undefined, DeferredFailure>;
    let node: ResponsePath | undefined = continuation.path;
    while (node !== undefined) {
      if (nulled !== null && nulled.has(node)) return;
      node = node.prev;
      const failure = deferred.get(node);
      if (failure !== undefined) {
        if (failure.fired) return;
        (continuation.waitedOnBy ??= []).push(failure);
        failure.waitingFor++;
      }
    }
  }

  /** Whether something between `path` (inclusive) and `ancestor` (exclusive) was nulled or failed. */
  private isCutOffBelow(path: ResponsePath | undefined, ancestor: ResponsePath | undefined): boolean {
    const nulled = this.errors.nulled;
    for (let node: ResponsePath | undefined = path; node !== ancestor && node !== undefined; node = node.prev) {
      if (nulled !== null && nulled.has(node)) return true;
      if (this.deferred?.get(node)?.fired) return true;
    }
    return false;
  }
}

function depthOf(position: ResponsePath | undefined): number {
  let depth = 0;
  for (let node = position; node !== undefined; node = node.prev) depth++;
  return depth;
}

function isAtOrBelow(path: ResponsePath | undefined, ancestor: ResponsePath | undefined): boolean {
  return path === ancestor || isStrictlyBelow(path, ancestor);
}

function isStrictlyBelow(path: ResponsePath | undefined, ancestor: ResponsePath | undefined): boolean {
  if (path === undefined) return false;
  if (ancestor === undefined) return true;
  for (let node = path.prev; node !== undefined; node = node.prev) {
    if (node === ancestor) return true;
  }
  return false;
}
