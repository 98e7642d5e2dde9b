/**
 * A value now, or a promise of it. The executor and the pipeline stay synchronous while the
 * values they meet are (no promise unless one is needed); graphql-js calls the same type
 * PromiseOrValue.
 */
export type PromiseOrValue<T> = T | Promise<T>;
