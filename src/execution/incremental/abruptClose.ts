/**
 * Closing an async generator early, while it is waiting.
 *
 * A client that stops reading an incremental result calls `return()` on `subsequentResults`
 * (a `for await` loop left by `break` does). A plain async generator would only see that call
 * once its pending `next()` settles, which may be never (a stream whose next item never comes).
 * The wrappers here act on `return()` and `throw()` at once: they first run a cleanup (cancel
 * the queue, close the streamed lists' iterators), then let the generator finish. This is
 * graphql 17's behaviour, and what the RFC asks: a client that leaves stops the work.
 */
import { isPromiseLike } from '../../jsutils/isPromiseLike.ts';

const asyncDispose: symbol = (Symbol as { asyncDispose?: symbol }).asyncDispose ?? Symbol.for('Symbol.asyncDispose');

/** `generator`, whose `return()` runs `beforeReturn` (and `throw()` `beforeThrow`) first, even while a `next()` is pending. */
export function closeAbruptly<T>(
  generator: AsyncGenerator<T, void, void>,
  beforeReturn: () => unknown,
  beforeThrow: (reason: unknown) => unknown = beforeReturn,
): AsyncGenerator<T, void, void> {
  let completed = false;
  let closing = false;
  const closeOnce = (close: () => unknown): unknown => {
    if (completed || closing) return undefined;
    closing = true;
    return ignoringErrors(close);
  };
  const wrapped = {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      const result = generator.next();
      result.then((iteration) => (completed ||= iteration.done === true)).catch(() => undefined);
      return result;
    },
    async return() {
      await closeOnce(beforeReturn);
      return generator.return();
    },
    async throw(error: unknown) {
      await closeOnce(() => beforeThrow(error));
      return generator.throw(error);
    },
    async [asyncDispose]() {
      await closeOnce(beforeReturn);
      const dispose = (generator as unknown as Record<symbol, (() => Promise<void>) | undefined>)[asyncDispose];
      if (typeof dispose === 'function') await dispose.call(generator);
    },
  };
  return wrapped as unknown as AsyncGenerator<T, void, void>;
}

/** Each value of `iterable` through `map`; closing the result closes `iterable` too (at once, as above). */
export function mapClosing<T, U>(iterable: AsyncIterable<T>, map: (value: T) => U): AsyncGenerator<U, void, void> {
  const iterator = iterable[Symbol.asyncIterator]();
  const returnIt = iterator.return?.bind(iterator);
  const throwIt = iterator.throw?.bind(iterator);
  const onReturn = returnIt ? () => quietly(returnIt) : () => Promise.resolve();
  const onThrow = throwIt ? (reason: unknown) => quietly(() => throwIt(reason)) : onReturn;
  return closeAbruptly(mapEach(iterable, map), onReturn, onThrow);
}

async function* mapEach<T, U>(iterable: AsyncIterable<T>, map: (value: T) => U): AsyncGenerator<U, void, void> {
  for await (const value of iterable) {
    const result = map(value);
    yield result instanceof Promise ? await result : result;
  }
}

async function quietly(call: () => unknown): Promise<void> {
  try {
    await call();
  } catch {
    // Closing is best effort: the caller has stopped listening.
  }
}

function ignoringErrors(call: () => unknown): unknown {
  try {
    const result = call();
    if (isPromiseLike(result)) return Promise.resolve(result).catch(() => undefined);
  } catch {
    // As above.
  }
  return undefined;
}

/** Closes an iterator (`return()`), ignoring what it answers: a streamed list left unread. */
export async function returnQuietly(iterator: { return?: () => unknown }): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // The list's own failure no longer matters to anyone.
  }
}

/** Reads what is left of a synchronous iterator, keeping its promises so their rejections are handled. */
export function remainingPromises(iterator: Iterator<unknown>): Array<PromiseLike<unknown>> {
  const promises: Array<PromiseLike<unknown>> = [];
  try {
    for (;;) {
      const iteration = iterator.next();
      if (iteration.done) return promises;
      if (isPromiseLike(iteration.value)) promises.push(iteration.value);
    }
  } catch {
    return promises;
  }
}
