/**
 * A piece of deferred work that runs at most once, when first needed, and can be cancelled.
 *
 * A deferred fragment's fields (one *execution group*: workQueue.ts) run either when the fragment
 * may be delivered (its parent fragment has been), or sooner with early execution
 * (`enableEarlyExecution`): then the work starts at once and its result waits. Either way the
 * same computation is asked, and it runs only the first time. Cancelling it (the part of the
 * response it would fill was nulled, or the client left) marks it failed and calls `onAbort`
 * when it was running.
 */
import { isPromiseLike } from '../../jsutils/isPromiseLike.ts';

type State<T> =
  | { readonly status: 'pending'; readonly promise: Promise<T> }
  | { readonly status: 'fulfilled'; readonly value: T }
  | { readonly status: 'rejected'; readonly reason: unknown };

export class Computation<T> {
  private state: State<T> | undefined;
  private readonly run: () => T | Promise<T>;
  private readonly onAbort: ((reason: unknown) => void) | undefined;

  constructor(run: () => T | Promise<T>, onAbort?: (reason: unknown) => void) {
    this.run = run;
    this.onAbort = onAbort;
  }

  /** Starts the work if it has not started; its state. */
  prime(): State<T> {
    if (this.state !== undefined) return this.state;
    try {
      const result = this.run();
      if (isPromiseLike(result)) {
        const promise = Promise.resolve(result);
        this.state = { status: 'pending', promise };
        promise.then(
          (value) => (this.state = { status: 'fulfilled', value }),
          (reason: unknown) => (this.state = { status: 'rejected', reason }),
        );
      } else {
        this.state = { status: 'fulfilled', value: result };
      }
    } catch (reason) {
      this.state = { status: 'rejected', reason };
    }
    return this.state;
  }

  /** The result: at once when it is ready (or throws its failure), else a promise of it. */
  result(): T | Promise<T> {
    const state = this.prime();
    if (state.status === 'fulfilled') return state.value;
    if (state.status === 'rejected') throw state.reason;
    return state.promise;
  }

  /** Cancels the work: it counts as failed with `reason`; if it was running, `onAbort` is told. */
  abort(reason: unknown): void {
    const state = this.state;
    if (state === undefined) {
      this.state = { status: 'rejected', reason };
      return;
    }
    if (state.status !== 'pending') return;
    this.state = { status: 'rejected', reason };
    this.onAbort?.(reason);
  }
}
