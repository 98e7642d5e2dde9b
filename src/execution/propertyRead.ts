/**
 * The default resolver's first step: reading the property of the parent value named like the
 * field. The default resolver itself (execute.ts `resolveByDefault`: the property, or the method
 * of that name called with `(args, contextValue, info)`) is written once, on the reference path.
 * The plain-read fast paths (plainReads.ts, and the code compileFields.ts generates) do only this
 * read, and hand anything they cannot store as it is to the reference path together with the
 * value they read, so that a getter runs once per field, as under graphql-js.
 */
import { fastClass } from '../jsutils/fastClass.ts';

/** Marks that the property has not been read yet: the reference path reads it itself. */
export const NOT_READ: unique symbol = Symbol('not read');

/** A property read that threw (a getter), carried to the reference path, which raises it as the field's error. */
export class FailedRead {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}
fastClass(FailedRead);

/** The property read, with a throwing getter caught as a FailedRead. */
export function readProperty(source: object, name: string): unknown {
  try {
    return (source as Record<string, unknown>)[name];
  } catch (error) {
    return new FailedRead(error);
  }
}
