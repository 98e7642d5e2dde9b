/** Whether a value can be iterated with `for await`: it has a `Symbol.asyncIterator` method. */
export function isAsyncIterable<T = unknown>(value: unknown): value is AsyncIterable<T> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null | undefined)?.[Symbol.asyncIterator] === 'function';
}
