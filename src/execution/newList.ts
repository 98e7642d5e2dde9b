/**
 * A new, empty list result. Not a literal `[]`: V8 may decide, from one collection that found
 * a literal's arrays all alive (one in the middle of an execution can), to allocate every later
 * array of that literal in the old generation, for good (compileFields.ts says what that cost).
 * An array copied by a builtin is never so placed; copied from this template, which has held a
 * value that is not a small integer, it takes objects without changing its kind of elements.
 */
export function newList(): unknown[] {
  return EMPTY_LIST.slice();
}

const EMPTY_LIST: unknown[] = [undefined];
EMPTY_LIST.length = 0;
