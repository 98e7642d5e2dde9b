/**
 * The abort signals of one execution, as graphql 17 gives them (graphqlCompat.ts
 * INFO_HAS_EXECUTION_HELPERS, HONOURS_ABORT_SIGNAL):
 *
 *  - `info.getAbortSignal()`: a signal that resolvers may pass on to their own I/O. It aborts
 *    when the caller's `abortSignal` does (with its reason), and also once the execution has
 *    built its result, so that work a resolver left running (a sibling of a field whose null
 *    ended its parent, say) can be stopped.
 *  - `info.getAsyncHelpers()`: `promiseAll` and `track`, graphql 17's helpers for promises a
 *    resolver starts on the execution's behalf. Nothing here waits on tracked work (this
 *    executor has no `hooks.asyncWorkFinished`), so `track` only keeps a rejection from going
 *    unhandled.
 *
 * The controller is made when a resolver first asks for the signal: most executions never do.
 * What `info` holds is made once per execution (the getter) or once for all (the helpers).
 */
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';

/** graphql 17's `ResolveInfoAsyncHelpers`. */
export interface AsyncHelpers {
  promiseAll<T>(values: ReadonlyArray<T | PromiseLike<T>>): Promise<T[]>;
  track(values: ReadonlyArray<unknown>): void;
}

export class ExecutionSignals {
  /** Set once the execution aborted or finished: the reason the resolvers' signal aborts with (undefined: the default). */
  private ended: { readonly reason: unknown } | null = null;
  private controller: AbortController | null = null;
  /** `info.getAbortSignal`: one function per execution, as `info` may be taken apart. */
  readonly getAbortSignal: () => AbortSignal | undefined;
  /** `info.getAsyncHelpers`: the same for every execution (nothing here is per execution). */
  readonly getAsyncHelpers: () => AsyncHelpers = getAsyncHelpers;

  constructor() {
    this.getAbortSignal = signalOf(this);
  }

  /** The resolvers' signal, made on first request. */
  signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.ended !== null) this.controller.abort(this.ended.reason);
    }
    return this.controller.signal;
  }

  /** The caller aborted the execution: the resolvers' signal aborts with the same reason. */
  abort(reason: unknown): void {
    this.end({ reason });
  }

  /** The execution built its result: the resolvers' signal aborts (with the default reason). */
  finish(): void {
    this.end({ reason: undefined });
  }

  private end(ended: { readonly reason: unknown }): void {
    if (this.ended !== null) return;
    this.ended = ended;
    this.controller?.abort(ended.reason);
  }
}

/** A function, not a method: `info.getAbortSignal` works however it is called. */
function signalOf(signals: ExecutionSignals): () => AbortSignal {
  return () => signals.signal();
}

const ASYNC_HELPERS: AsyncHelpers = { promiseAll, track };

function getAsyncHelpers(): AsyncHelpers {
  return ASYNC_HELPERS;
}

/** What `info` offers a subscription's `subscribe` resolver under graphql 17: the caller's abortSignal as given (or none). */
export type InfoHelpers = Pick<ExecutionSignals, 'getAbortSignal' | 'getAsyncHelpers'>;

export function sourceStreamSignals(signal: AbortSignal | undefined): InfoHelpers {
  return { getAbortSignal: () => signal, getAsyncHelpers };
}

function promiseAll<T>(values: ReadonlyArray<T | PromiseLike<T>>): Promise<T[]> {
  const all = Promise.all(values);
  // The first rejection settles `all`; later ones must not go unhandled.
  all.catch(() => track(values));
  return all;
}

function track(values: ReadonlyArray<unknown>): void {
  for (const value of values) {
    if (isPromiseLike(value)) value.then(undefined, () => undefined);
  }
}
