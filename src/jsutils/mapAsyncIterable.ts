/**
 * An async iterator of `map(value)` for each value of a source async iterable, with graphql-js's
 * `mapAsyncIterator` semantics (MapSourceToResponseEvent, spec 6.2.3.2): returning closes the
 * source; a mapping that throws closes the source (ignoring what closing throws) and rethrows;
 * `throw(error)` is passed to the source when it has one. `onEnd` runs once, when the mapped
 * iterator is done for whatever reason: returned, exhausted, or failed.
 */
export function mapAsyncIterable<T, R>(
  iterable: AsyncIterable<T>,
  map: (value: T) => R | Promise<R>,
  onEnd?: () => void,
): AsyncGenerator<R, void, void> {
  const iterator = iterable[Symbol.asyncIterator]();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd?.();
  };

  async function mapped(step: IteratorResult<T>): Promise<IteratorResult<R, void>> {
    if (step.done === true) {
      end();
      return step as IteratorResult<R, void>;
    }
    try {
      return { value: await map(step.value), done: false };
    } catch (error) {
      await closeIgnoringErrors();
      throw error;
    }
  }

  async function closeIgnoringErrors(): Promise<void> {
    end();
    if (typeof iterator.return === 'function') {
      try {
        await iterator.return();
      } catch {
        // The mapping's error is the one to report.
      }
    }
  }

  /** A failure of the source itself ends the mapped iterator too. */
  async function stepped(step: Promise<IteratorResult<T>>): Promise<IteratorResult<R, void>> {
    let settled: IteratorResult<T>;
    try {
      settled = await step;
    } catch (error) {
      end();
      throw error;
    }
    return mapped(settled);
  }

  const responses = {
    next() {
      return stepped(iterator.next());
    },
    return() {
      end();
      return typeof iterator.return === 'function' ? stepped(iterator.return()) : Promise.resolve({ value: undefined, done: true as const });
    },
    async throw(error: unknown) {
      if (typeof iterator.throw === 'function') return stepped(iterator.throw(error));
      await closeIgnoringErrors();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return responses as unknown as AsyncGenerator<R, void, void>;
}
