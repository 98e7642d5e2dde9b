/**
 * Whether a value is an array that iterates as arrays do, so that reading it by index gives
 * what graphql-js's iteration (`Array.from`) gives. An array with an iterator of its own (or a
 * subclass with one) is iterated instead.
 */
const arrayValues = Array.prototype[Symbol.iterator];

export function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && value[Symbol.iterator] === arrayValues;
}
